// SPDX-License-Identifier: BSD-3-Clause
// A call of the bridgehead family, cubgos, concentrate, circulant and the
// Lee codes lists its blocks one by one: auto charges that CPU per call,
// except where CPU takes no time (SimGrid without simulated computation).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/predictions.hpp"
#include "model_context.hpp"

using namespace torusgather;

// On 16x16x16x8x8 (262,144 ranks) with a 1 us overhead, bridgehead's
// messages are predicted 10 us faster than dim-rings' at 8 B, but a call of
// it lists 262,143 blocks (7.8 ms on this machine, tg-plan --plan-only).
TEST(Listing, AutoChargesACallsListOfBlocks) {
  const Torus t({16, 16, 16, 8, 8});
  Machine m;
  m.overhead = 1e-6;
  for (const bool cpu : {true, false}) {
    ModelView v(t, m);
    v.ctx.cpu_counts = cpu;
    std::vector<Candidate> table;
    int best = -1;
    ASSERT_EQ(predict_all(v.ctx, 8, nullptr, &table, &best), 0);
    ASSERT_GE(best, 0);
    const Candidate& b = candidate_of(table, AlgorithmId::bridgehead);
    ASSERT_TRUE(b.why_not.empty()) << b.why_not;
    const double listing = algorithm(AlgorithmId::bridgehead).profile.listing_ns_per_block * 1e-9 * (t.size() - 1);
    EXPECT_GT(listing, 5e-3);
    EXPECT_DOUBLE_EQ(b.per_call, cpu ? listing : 0);
    EXPECT_EQ(candidate_of(table, AlgorithmId::dim_rings).per_call, 0);
    const Pick chosen = table[static_cast<std::size_t>(best)].pick;
    EXPECT_EQ(chosen, cpu ? Pick::of(AlgorithmId::dim_rings) : Pick::of(AlgorithmId::bridgehead))
        << chosen.name() << (cpu ? " with" : " without") << " the CPU";
  }
}
