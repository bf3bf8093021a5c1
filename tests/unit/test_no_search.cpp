// SPDX-License-Identifier: BSD-3-Clause
// auto takes hamiltonian's cycles only from a construction: every rank
// would run the switch search at its first call (0.8 s to fail on
// 2x2x255). Named, hamiltonian still runs it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/closed_form.hpp"
#include "model/predictions.hpp"
#include "model_context.hpp"
#include "schedule/decomposition.hpp"

using namespace torusgather;

namespace {

std::string why_not_hamiltonian(const Torus& t, const Pick* named) {
  ModelView v(t, Machine{});
  std::vector<Candidate> table;
  int best = -1;
  EXPECT_EQ(predict_all(v.ctx, 1 << 20, named, &table, &best), 0);
  return candidate_of(table, AlgorithmId::hamiltonian).why_not;
}

}  // namespace

TEST(NoSearch, AutoTakesTheCyclesOnlyFromAConstruction) {
  // 2x2x2x3: the search finds cycles, no construction does.
  const Torus searched({2, 2, 2, 3});
  ASSERT_FALSE(decomposes_without_search(searched));
  EXPECT_EQ(why_not_hamiltonian(searched, nullptr), kNeedsSearch);
  const Pick named = Pick::of(AlgorithmId::hamiltonian);
  EXPECT_EQ(why_not_hamiltonian(searched, &named), "");
  // 4x4x8 (the node torus of tpu-v4 and gemini with 4 ranks per node): the
  // layered lift gives them, no O(1) rule does.
  const Torus layered({4, 4, 8});
  ASSERT_FALSE(decomposes_by_rule(layered));
  EXPECT_TRUE(decomposes_without_search(layered));
  EXPECT_EQ(why_not_hamiltonian(layered, nullptr), "");
  // 5D: the layered lift gives bgq's cycles, but auto tries it only in 2D-4D.
  EXPECT_EQ(why_not_hamiltonian(Torus({4, 4, 4, 4, 2}), nullptr), kNoRule);
  // The answer is kept per shape; links and wraps do not change it.
  EXPECT_TRUE(decomposes_without_search(Torus({4, 4, 8}, 0, 0)));
  EXPECT_FALSE(decomposes_without_search(Torus({2, 2, 2, 3})));
  // 4x4x6: every side even, the lift's switches joined by repair switches.
  EXPECT_TRUE(decomposes_without_search(Torus({4, 4, 6})));
  EXPECT_EQ(why_not_hamiltonian(Torus({4, 4, 6}), nullptr), "");
  // 3x4x5: coprime sides, lifted by the row-gap switches.
  EXPECT_TRUE(decomposes_without_search(Torus({3, 4, 5})));
  EXPECT_EQ(why_not_hamiltonian(Torus({3, 4, 5}), nullptr), "");
}
