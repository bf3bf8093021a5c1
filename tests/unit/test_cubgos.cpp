// SPDX-License-Identifier: BSD-3-Clause
// `cubgos` (Juurlink, Rao & Sibeyn §5.2, §6): bridgeheads on generalised
// diagonals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "schedule/cubgos.hpp"
#include "simulate/simulate.hpp"
#include "schedule_checks.hpp"

using namespace torusgather;

// cubgos (§6.2; torgos of §5.2 in 2D): for every parameter choice on tori
// of 2 to 4 dimensions, square or not, the step-through simulator delivers
// every block, and its rounds, the sum of each round's largest message and
// the link load (one message per directed link per round) equal the claims
// that cost() computes from the construction.
TEST(Cubgos, FormulaMatchesTheSimulatorForEveryParameter) {
  int built = 0;
  for (const auto& dims : std::vector<std::vector<int>>{
           {4, 4}, {8, 8}, {9, 9}, {12, 6}, {6, 12}, {10, 5}, {4, 4, 4}, {6, 6, 6}, {2, 4, 4}, {2, 2, 2, 2}}) {
    const Torus t(dims);
    const int n0 = t.dim(t.active_axes()[0]);
    for (int a = 1; a <= n0; ++a)
      for (int b = 2; b <= 9; ++b)
        for (int k = 1; k <= n0; ++k) {
          const DiagonalParams p{a, b, k};
          if (!CubgosSchedule::check(t, p).empty()) continue;
          if (n0 / a == 1 && (b > 2 || k > 1)) continue;  // g = 1: no phase 4, b and k unused
          const CubgosSchedule s(t, p);
          const auto rep = step_through(s);
          ASSERT_TRUE(rep.complete) << t.to_string() << " a,b,k=" << CubgosSchedule::to_string(p) << "\n"
                                    << all_errors(rep);
          EXPECT_EQ(rep.rounds, CubgosSchedule::cost(t, p).steps);
          ++built;
        }
  }
  EXPECT_GE(built, 100);  // 107 parameter sets
}

// g = 1 (a = n_0): every rank is a bridgehead and cubgos is approach 1 along
// each axis in turn (approach 11 of §5.1): ⌊n_i/2⌋ steps whose messages are
// the product of the sides done.
TEST(Cubgos, SpacingOneIsApproachOneAlongEveryAxis) {
  for (const auto& dims : std::vector<std::vector<int>>{{8, 8}, {9, 9}, {5, 10}, {4, 6, 8}}) {
    const Torus t(dims);
    long long steps = 0, blocks = 0, unit = 1;
    for (int n : dims) {
      steps += n / 2;
      blocks += (n / 2) * unit;
      unit *= n;
    }
    const StepCost c = CubgosSchedule::cost(t, {dims[0], 2, 1});
    EXPECT_EQ(c.steps, steps) << t.to_string();
    EXPECT_EQ(c.blocks, blocks) << t.to_string();
  }
}

// §5.2 and §6's point: data concentrated on diagonals is spread along every
// axis at once, so for large sides and middle r torgos/cubgos take fewer
// time units than circgos axis by axis (the seed's Tables 2 and 3 make the
// same comparison; its numbers are lost). Where no spacing fits (8 has only
// powers of 2, and 4x4x4 is small) the search may not gain, never lose
// against its own limit g = 1.
TEST(Cubgos, DiagonalsBeatCircgosPerAxisOnLargeSides) {
  const struct {
    std::vector<int> dims;
    double r;
  } cases[] = {{{27, 27}, 64}, {{27, 27}, 512}, {{9, 9, 9}, 64}, {{9, 9, 9}, 512}, {{16, 16}, 64}};
  for (const auto& c : cases) {
    const Torus t(c.dims);
    const double diag = CubgosSchedule::cost(t, CubgosSchedule::best(t, c.r)).at(c.r);
    const double axis = BridgeheadSchedule::cost(t, BridgeheadSchedule::best(t, c.r)).at(c.r);
    EXPECT_LT(diag, 0.95 * axis) << t.to_string() << " r=" << c.r;
  }
  for (const auto& dims : std::vector<std::vector<int>>{{8, 8}, {4, 4, 4}, {27, 27}})
    for (double r : {0.1, 1.0, 16.0, 1000.0}) {
      const Torus t(dims);
      EXPECT_LE(CubgosSchedule::cost(t, CubgosSchedule::best(t, r)).at(r),
                CubgosSchedule::cost(t, {dims[0], 2, 1}).at(r));
    }
}

TEST(Cubgos, ParametersParseAndAreChecked) {
  DiagonalParams p;
  std::string why;
  ASSERT_TRUE(CubgosSchedule::parse("1,3,3", Torus({27, 27}), &p, &why)) << why;
  EXPECT_EQ(p, (DiagonalParams{1, 3, 3}));
  EXPECT_EQ(CubgosSchedule::to_string(p), "1,3,3");
  EXPECT_FALSE(CubgosSchedule::parse("1,3", Torus({27, 27}), &p, &why));
  EXPECT_FALSE(CubgosSchedule::parse("1,2,1", Torus({27, 27}), &p, &why));  // g = 27 is no power of 2
  EXPECT_NE(why.find("power of b"), std::string::npos) << why;
  EXPECT_FALSE(CubgosSchedule::parse("1,2,1", Torus({8, 4}), &p, &why));  // g = 8 does not divide 4
  EXPECT_FALSE(CubgosSchedule::parse("2,2,3", Torus({8, 4}), &p, &why));  // k = 3 does not divide 8
  EXPECT_FALSE(CubgosSchedule::parse("1,2,1", Torus({8}), &p, &why));     // a ring: circgos
  EXPECT_NE(CubgosSchedule::not_applicable(Torus({8, 1})), "");
  EXPECT_THROW(CubgosSchedule(Torus({9, 9}), {1, 2, 1}), std::invalid_argument);
}
