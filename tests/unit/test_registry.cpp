// SPDX-License-Identifier: BSD-3-Clause
// The registry: its names and applicability, and its shape rules against
// the papers' statements on every torus of 1 to 25 ranks in up to three
// sides (where a paper leaves a shape open, the rule the construction claims).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "schedule/registry.hpp"
#include "topology/torus.hpp"

using namespace torusgather;

namespace {

std::vector<std::vector<int>> shapes_up_to(int most) {
  std::vector<std::vector<int>> out;
  for (int n = 1; n <= most; ++n) {
    out.push_back({n});
    for (int a = 2; a < n; ++a) {
      if (n % a) continue;
      out.push_back({a, n / a});
      for (int b = 2; b < n / a; ++b)
        if ((n / a) % b == 0) out.push_back({a, b, n / a / b});
    }
  }
  return out;
}

bool builds(const char* name, const std::vector<int>& dims) {
  std::string why;
  return try_build(*find_algorithm(name), Torus(dims), &why) != nullptr;
}

std::string shape(const std::vector<int>& dims) { return Torus(dims).to_string(); }

}  // namespace

TEST(Registry, ShapeRulesOfThePapers) {
  for (const auto& dims : shapes_up_to(25)) {
    int p = 1, active = 0, odd = 0, even4 = 0;
    for (int n : dims) {
      p *= n;
      active += n > 1;
      odd += n > 1 && n % 2 == 1;
      even4 += n >= 4 && n % 2 == 0;
    }
    const std::string at = " on " + shape(dims);
    // Meyer & Sibeyn Theorem 2: every even 2D torus; a ring is its own cycle.
    if ((dims.size() == 2 && dims[0] % 2 == 0 && dims[1] % 2 == 0) || dims.size() == 1)
      EXPECT_TRUE(builds("hamiltonian", dims)) << at;
    // §3.2-3.3: two sides > 1, both odd, or one odd and one even >= 4.
    EXPECT_EQ(builds("hamiltonian-partial", dims), active == 2 && (odd == 2 || (odd == 1 && even4 == 1))) << at;
    // §4.1 and the helices: 2D with an even side >= 4, or both sides odd.
    if (dims.size() == 2 && dims[0] >= 2 && dims[1] >= 2 &&
        ((dims[0] % 2 == 1 && dims[1] % 2 == 1) || (dims[0] % 2 == 0 && dims[0] >= 4) ||
         (dims[1] % 2 == 0 && dims[1] >= 4)))
      EXPECT_TRUE(builds("partial-cycles", dims)) << at;
    // Delmas & Pérennes: d <= 3 sides > 1, each a multiple of 2d + 1; §6's
    // split broadcast has nothing to send on a ring of 3.
    bool lee = active >= 1;
    for (int n : dims) lee = lee && (n == 1 || n % (2 * active + 1) == 0);
    EXPECT_EQ(builds("lee-code", dims), lee) << at;
    EXPECT_EQ(builds("lee-code-large", dims), lee && p != 3) << at;
    // Monakhova & Monakhov: any P > 4.
    EXPECT_EQ(builds("circulant", dims), p > 4) << at;
    // Barrière, Cohen & Mitjana §4.1, §4.3: C(N, c) needs N even, N >= 6.
    EXPECT_EQ(builds("chordal-ring", dims), p % 2 == 0 && p >= 6) << at;
    EXPECT_EQ(builds("three-phase", dims), p >= 2) << at;
    // Juurlink, Rao & Sibeyn: the start-up family on every shape; torgos,
    // cubgos and the coloured variant on two sides > 1 or more.
    EXPECT_TRUE(builds("bridgehead", dims)) << at;
    EXPECT_TRUE(builds("concentrate", dims)) << at;
    EXPECT_TRUE(builds("dim-rings", dims)) << at;
    EXPECT_EQ(builds("cubgos", dims), active >= 2) << at;
    EXPECT_EQ(builds("bridgehead-coloured", dims), active >= 2) << at;
  }
}

TEST(Registry, NamesAndApplicability) {
  ASSERT_NE(find_algorithm("hamiltonian"), nullptr);
  ASSERT_NE(find_algorithm("dim-rings"), nullptr);
  EXPECT_EQ(find_algorithm("vendor"), nullptr);  // not a schedule
  EXPECT_EQ(find_algorithm("nope"), nullptr);
  for (const auto& info : algorithms()) {
    const Torus t({4, 6});
    BuildContext c;
    if (info.node_aware) c.node_ranks = 6;  // 4 nodes of 6
    if (info.not_applicable(t).empty()) EXPECT_EQ(std::string(info.build(t, c)->name()), info.name);
  }
}

// Every id names its own entry, and every fallback chain ends at the
// algorithm that takes every shape.
TEST(Registry, IdsAndFallbackChains) {
  for (const auto& info : algorithms()) {
    EXPECT_EQ(&algorithm(info.id), &info) << info.name;
    AlgorithmId a = info.id;
    for (std::size_t steps = 0; a != kUniversal && steps < algorithms().size(); ++steps) a = algorithm(a).fallback;
    EXPECT_EQ(a, kUniversal) << info.name;
    if (info.tuned) EXPECT_NE(info.describe, nullptr) << info.name;
  }
  EXPECT_TRUE(builds(algorithm(kUniversal).name, {2, 3, 5}));
}
