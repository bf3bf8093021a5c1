// SPDX-License-Identifier: BSD-3-Clause
// `bridgehead`, `bridgehead-coloured` and `concentrate` (Juurlink, Rao &
// Sibeyn §4, §6.2): circgos(n, a, b) with k packets per axis, its limits, the
// cost formula against the simulator, the parameter search.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "schedule/bridgehead.hpp"
#include "schedule/ring_gossip.hpp"
#include "simulate/simulate.hpp"
#include "schedule_checks.hpp"

using namespace torusgather;

namespace {

int ceil_log3(int n) {
  int steps = 0;
  for (long long p = 1; p < n; p *= 3) ++steps;
  return steps;
}

}  // namespace

// §4.1: approach 2 takes 2⌈log3 n⌉ steps; for n = 3^L its cost is
// log3 n · (2r + n) (Lemma 4, here exact: the concentration's (n-1)/2 is
// saved again in the dissemination, whose receivers already hold their group).
TEST(Concentrate, TwoCeilLog3StepsAndLemma4Cost) {
  for (int n = 2; n <= 40; ++n) {
    const BridgeheadSchedule s(Torus({n}), BridgeheadSchedule::concentrate(Torus({n})), "concentrate");
    const auto rep = step_through(s);
    ASSERT_TRUE(rep.complete) << "n=" << n << "\n" << all_errors(rep);
    EXPECT_EQ(rep.rounds, 2 * ceil_log3(n)) << "n=" << n;
    EXPECT_EQ(rep.max_link_messages_per_round, 1) << "n=" << n;
  }
  for (int n : {3, 9, 27, 81}) {
    const StepCost c = BridgeheadSchedule::ring_cost(n, {1, 3, 1}, 1);
    EXPECT_EQ(c.steps, 2 * ceil_log3(n));
    EXPECT_EQ(c.blocks, static_cast<long long>(ceil_log3(n)) * n);
  }
}

// Per axis on a torus: the sum of the axes' steps, each axis' packets scaled
// by the sides already gathered.
TEST(Concentrate, AxisByAxisOnTori) {
  for (const auto& dims : std::vector<std::vector<int>>{{7, 7, 7}, {4, 6}, {3, 1, 5}, {2, 3, 4, 2}}) {
    const Torus t(dims);
    const BridgeheadSchedule s(t, BridgeheadSchedule::concentrate(t), "concentrate");
    const auto rep = step_through(s);
    ASSERT_TRUE(rep.complete) << t.to_string() << "\n" << all_errors(rep);
    long long steps = 0;
    for (int n : dims) steps += 2 * ceil_log3(n);
    EXPECT_EQ(rep.rounds, steps) << t.to_string();
  }
}

// Approach 1 is circgos with a = n: ⌊n/2⌋ steps of one block each.
TEST(Bridgehead, ApproachOneIsTheLimitAEqualsN) {
  for (int n = 2; n <= 30; ++n) {
    const StepCost c = BridgeheadSchedule::ring_cost(n, {n, 2, 1}, 1);
    EXPECT_EQ(c.steps, n / 2) << n;
    EXPECT_EQ(c.blocks, n / 2) << n;
  }
  const BridgeheadSchedule s(Torus({9}), {{9, 2, 1}});
  const auto rep = step_through(s);
  EXPECT_TRUE(rep.complete) << all_errors(rep);
  EXPECT_EQ(rep.rounds, 4);
  EXPECT_EQ(rep.hops_max, 1);
}

// §4.2: "circgos(n, 3, 1) is always faster than approach 2": after log3 n
// steps three bridgeheads hold everything, so dissemination needs one step
// fewer.
TEST(Bridgehead, ThreeBridgeheadsSaveOneStep) {
  for (int n : {9, 27, 81, 243}) {
    const StepCost two = BridgeheadSchedule::ring_cost(n, {1, 3, 1}, 1);
    const StepCost three = BridgeheadSchedule::ring_cost(n, {3, 3, 1}, 1);
    EXPECT_EQ(three.steps, two.steps - 1) << n;
    EXPECT_LT(three.blocks, two.blocks) << n;
  }
}

// The cost formula (Lemma 5 made exact) is what the schedule does: the
// simulator's rounds and the sum of each round's largest message equal the
// claim for every parameter choice, also where a does not divide n.
TEST(Bridgehead, FormulaMatchesTheSimulatorForEveryParameter) {
  for (int n : {2, 3, 5, 7, 8, 12, 16, 20, 27}) {
    for (int a = 1; a <= n; ++a)
      for (int b = 2; b <= 6; ++b)
        for (int k = 1; k <= n; ++k) {
          if (n % k) continue;
          const BridgeheadSchedule s(Torus({n}), {{a, b, k}});
          const auto rep = step_through(s);
          ASSERT_TRUE(rep.complete) << "n=" << n << " a=" << a << " b=" << b << " k=" << k << "\n" << all_errors(rep);
          EXPECT_EQ(rep.blocks_sum, static_cast<double>(s.claimed_blocks_sum()));
        }
  }
  // And on tori, where the packets of later axes are bigger.
  const Torus t({6, 4, 5});
  const BridgeheadSchedule s(t, {{2, 3, 2}, {1, 2, 2}, {5, 2, 1}});
  const auto rep = step_through(s);
  EXPECT_TRUE(rep.complete) << all_errors(rep);
  EXPECT_EQ(rep.blocks_sum, static_cast<double>(BridgeheadSchedule::cost(t, s.params()).blocks));
}

// The search: tiny r gives approach 1, huge r a logarithmic number of
// steps; and the choice is never worse than either limit.
TEST(Bridgehead, ParameterSearchSpansTheTradeOff) {
  const Torus ring({64});
  EXPECT_EQ(BridgeheadSchedule::best(ring, 0.01).front(), (RingParams{64, 2, 1}));
  EXPECT_LE(BridgeheadSchedule::cost(ring, BridgeheadSchedule::best(ring, 1e4)).steps, 2 * ceil_log3(64));
  for (const auto& dims : std::vector<std::vector<int>>{{64}, {8, 8}, {7, 7, 7}, {30, 30}})
    for (double r : {0.1, 1.0, 4.0, 16.0, 100.0, 1000.0}) {
      const Torus t(dims);
      const double chosen = BridgeheadSchedule::cost(t, BridgeheadSchedule::best(t, r)).at(r);
      std::vector<RingParams> one, two;
      for (int n : dims) {
        one.push_back({n, 2, 1});
        two.push_back({1, 3, 1});
      }
      EXPECT_LE(chosen, BridgeheadSchedule::cost(t, one).at(r)) << t.to_string() << " r=" << r;
      EXPECT_LE(chosen, BridgeheadSchedule::cost(t, two).at(r)) << t.to_string() << " r=" << r;
    }
}

// The searches skip a candidate whose floor already costs more than their
// best: both floors never exceed the cost (steps and blocks), the
// pipelines' never below the first, for every (a, b, k) the search tries
// on rings up to 40, and a sample of them on longer rings.
TEST(Bridgehead, RingFloorNeverExceedsTheCost) {
  // False (with the failure reported) where a floor is out of place.
  auto holds = [](int n, const RingParams& p) {
    const StepCost floor = BridgeheadSchedule::ring_floor(n, p), pipelines = BridgeheadSchedule::ring_floor(n, p, true),
                   cost = BridgeheadSchedule::ring_cost(n, p, 1);
    const std::string what = "n=" + std::to_string(n) + " " + BridgeheadSchedule::to_string({p});
    EXPECT_LE(floor.steps, pipelines.steps) << what;
    EXPECT_LE(floor.blocks, cost.blocks) << what;
    EXPECT_LE(pipelines.steps, cost.steps) << what;
    EXPECT_LE(pipelines.blocks, cost.blocks) << what;
    return floor.steps <= pipelines.steps && floor.blocks <= cost.blocks && pipelines.steps <= cost.steps &&
           pipelines.blocks <= cost.blocks;
  };
  int checked = 0;
  for (int n = 2; n <= 40; ++n)
    for (int a = 1; a <= n; ++a)
      for (int b = 2; b <= std::min(n, 8); ++b)
        for (int k = 1; k <= std::min(n, 32); ++k) {
          if (n % k) continue;
          ASSERT_TRUE(holds(n, RingParams{a, b, k}));
          ++checked;
        }
  EXPECT_GT(checked, 20000);
  // Longer rings, a sampled as the search takes it (up to 32, then divisors).
  for (int n : {64, 81, 128, 243, 256, 512})
    for (int a = 1; a < n; a += a < 32 ? 3 : 1) {
      if (a >= 32 && n % a) continue;
      for (int b = 2; b <= 8; ++b)
        for (int k = 1; k <= 32; ++k)
          if (n % k == 0) ASSERT_TRUE(holds(n, RingParams{a, b, k}));
    }
}

// Phase 3's rounds counted gap by gap equal the rounds listed by growing
// the bridgeheads (what the floors use against what the generators run).
TEST(Bridgehead, Phase3RoundsCountedAsListed) {
  int checked = 0;
  for (int n : {2, 3, 4, 5, 7, 8, 9, 12, 16, 27, 31, 40, 64, 81, 100, 128, 243, 256, 512})
    for (int a = 1; a <= n; a += n > 64 ? 7 : 1)
      for (int b = 2; b <= std::min(n, 6); ++b) {
        ASSERT_EQ(ring_gossip::phase3_rounds(n, a, b), static_cast<long long>(ring_gossip::chain_rounds(n, a, b, 1).size()))
            << "n=" << n << " a=" << a << " b=" << b;
        ++checked;
      }
  EXPECT_GT(checked, 1500);
}

// Each step's largest call, as the cost formulas take it (which stops a
// round once every step has a call as large as a call can be), equals the
// largest of the listed calls.
TEST(Bridgehead, LargestCallPerStepAsListed) {
  int checked = 0;
  for (int n : {2, 6, 9, 16, 27, 40, 64, 81, 128, 256, 512})
    for (int a = 1; a <= n; a += n > 40 ? 9 : 1)
      for (int b = 2; b <= std::min(n, 8); ++b)
        for (int k = 1; k <= std::min(n, 32); k *= 2) {
          if (n % k) continue;
          const auto listed = ring_gossip::chain_rounds(n, a, b, k);
          const auto largest = ring_gossip::chain_round_largest(n, a, b, k);
          ASSERT_EQ(listed.size(), largest.size());
          for (std::size_t t = 0; t < listed.size(); ++t) {
            std::vector<long long> want;
            for (const auto& step : listed[t]) {
              long long most = 0;
              for (const auto& call : step) most = std::max<long long>(most, call.size);
              want.push_back(most);
            }
            ASSERT_EQ(largest[t], want) << "n=" << n << " a=" << a << " b=" << b << " k=" << k << " round " << t;
          }
          ++checked;
        }
  EXPECT_GT(checked, 700);
}

// With the floors, both searches choose what trying every candidate
// chooses (the same order, the same tie rules).
TEST(Bridgehead, PrunedSearchesChooseAsTheFullSearch) {
  for (const auto& dims : std::vector<std::vector<int>>{{64}, {24, 10}, {12, 8, 6}, {30, 30}, {4, 4, 4, 2}})
    for (int e = -3; e <= 12; e += 3) {
      const Torus t(dims);
      const double r = std::exp2(e);
      const auto axes = t.active_axes();
      // bridgehead: axis by axis, approach 1 first, then a, b, k in order.
      std::vector<RingParams> full;
      long long unit = 1;
      for (int axis : axes) {
        const int n = t.dim(axis);
        RingParams best{n, 2, 1};
        StepCost best_c = BridgeheadSchedule::ring_cost(n, best, unit);
        for (int a = 1; a < n; ++a) {
          if (a > 32 && n % a) continue;
          for (int b = 2; b <= std::min(n, 8); ++b)
            for (int k = 1; k <= std::min(n, 32); ++k) {
              if (n % k) continue;
              const StepCost c = BridgeheadSchedule::ring_cost(n, {a, b, k}, unit);
              if (c.at(r) < best_c.at(r) || (c.at(r) == best_c.at(r) && c.steps < best_c.steps)) {
                best_c = c;
                best = {a, b, k};
              }
            }
        }
        full.push_back(best);
        unit *= n;
      }
      EXPECT_EQ(BridgeheadSchedule::best(t, r), full) << t.to_string() << " r=" << r;
      if (axes.size() < 2) continue;
      // bridgehead-coloured: bridgehead's at r·d, then one triple on every axis.
      const double d = static_cast<double>(axes.size());
      auto time = [&](const std::vector<RingParams>& p) {
        const StepCost c = BridgeheadSchedule::coloured_cost(t, p);
        return std::make_pair(static_cast<double>(c.steps) * r + static_cast<double>(c.blocks) / d, c.steps);
      };
      std::vector<RingParams> coloured = BridgeheadSchedule::best(t, r * d);
      auto best_t = time(coloured);
      int shortest = t.dim(axes[0]);
      for (int axis : axes) shortest = std::min(shortest, t.dim(axis));
      for (int a = 1; a <= shortest; ++a) {
        bool divides_all = true;
        for (int axis : axes) divides_all = divides_all && t.dim(axis) % a == 0;
        if (a > 32 && !divides_all) continue;
        for (int b = 2; b <= std::min(shortest, 8); ++b)
          for (int k = 1; k <= std::min(shortest, 32); ++k) {
            bool fits = true;
            for (int axis : axes) fits = fits && t.dim(axis) % k == 0;
            if (!fits) continue;
            const std::vector<RingParams> p(axes.size(), RingParams{a, b, k});
            if (const auto x = time(p); x < best_t) {
              best_t = x;
              coloured = p;
            }
          }
      }
      EXPECT_EQ(BridgeheadSchedule::best_coloured(t, r), coloured) << t.to_string() << " r=" << r;
    }
}

// highdimgos' (the colouring of §6.2 applied to highdimgos): d colours on
// rotated axis orders, every link in use in every phase. Verified on all
// ranks: complete, one message per directed link and round, the claimed
// rounds and transfer term. On a cube with one triple per axis it takes
// the same steps as bridgehead and exactly 1/d of its transfer term, and
// its chosen parameters are never slower by the cost formula than
// bridgehead's; elsewhere the colours wait for each other (a phase lasts as
// long as its longest axis) and it can be slower.
TEST(BridgeheadColoured, VerifiedOnEveryShapeAndAThirdOfTheTransferOnACube) {
  for (const auto& dims : std::vector<std::vector<int>>{
           {8, 8}, {6, 6}, {4, 6}, {5, 7, 3}, {4, 4, 8}, {7, 7, 7}, {6, 6, 6}, {3, 4, 5, 2}, {9, 1, 9}, {2, 2}}) {
    const Torus t(dims);
    const double d = static_cast<double>(t.active_axes().size());
    for (double r : {0.1, 1.0, 10.0, 100.0, 1000.0}) {
      SCOPED_TRACE(t.to_string() + " r=" + std::to_string(r));
      const auto params = BridgeheadSchedule::best_coloured(t, r);
      const BridgeheadSchedule s(t, params, BridgeheadSchedule::Coloured{});
      EXPECT_EQ(s.colours(), static_cast<int>(d));
      const auto rep = step_through(s);
      ASSERT_TRUE(rep.complete) << BridgeheadSchedule::to_string(params) << "\n" << all_errors(rep);
      EXPECT_EQ(rep.max_link_messages_per_round, 1);
      const StepCost c = BridgeheadSchedule::coloured_cost(t, params);
      EXPECT_NEAR(rep.blocks_sum, static_cast<double>(c.blocks) / d, 1e-9);
      bool cube = true;
      for (int axis : t.active_axes()) cube = cube && t.dim(axis) == t.dim(t.active_axes().front());
      if (cube) {
        const StepCost plain = BridgeheadSchedule::cost(t, BridgeheadSchedule::best(t, r));
        EXPECT_LE(static_cast<double>(c.steps) * r + static_cast<double>(c.blocks) / d, plain.at(r) + 1e-9);
      }
    }
  }
  for (const int n : {6, 7, 9}) {
    const Torus cube({n, n, n});
    for (const RingParams p : {RingParams{1, 3, 1}, RingParams{2, 2, 1}, RingParams{n, 2, 1}, RingParams{3, 3, 3}}) {
      if (n % p.k) continue;
      const std::vector<RingParams> params(3, p);
      const BridgeheadSchedule plain(cube, params), coloured(cube, params, BridgeheadSchedule::Coloured{});
      EXPECT_EQ(coloured.rounds(), plain.rounds());
      EXPECT_NEAR(coloured.claimed_blocks_sum() * 3, plain.claimed_blocks_sum(), 1e-9);
      const auto rep = step_through(coloured);
      EXPECT_TRUE(rep.complete) << all_errors(rep);
      EXPECT_NEAR(rep.blocks_sum * 3, plain.claimed_blocks_sum(), 1e-9);
    }
  }
  EXPECT_FALSE(BridgeheadSchedule::not_applicable_coloured(Torus({12})).empty());
  EXPECT_FALSE(BridgeheadSchedule::not_applicable_coloured(Torus({12, 1})).empty());
}

// The call-by-call checker (verify() beyond 4096 ranks) holds each colour's
// blocks apart: it agrees with step-through on a coloured schedule and
// misses no part of a block.
TEST(BridgeheadColoured, CallCheckerAgreesWithStepThrough) {
  const Torus t({6, 5, 4});
  const BridgeheadSchedule s(t, BridgeheadSchedule::best_coloured(t, 30.0), BridgeheadSchedule::Coloured{});
  const auto a = step_through(s);
  const auto b = check_calls(s);
  EXPECT_TRUE(a.complete) << all_errors(a);
  EXPECT_TRUE(b.complete) << all_errors(b);
  EXPECT_EQ(a.rounds, b.rounds);
  EXPECT_EQ(a.max_link_messages_per_round, b.max_link_messages_per_round);
  EXPECT_NEAR(a.max_link_blocks_per_round, b.max_link_blocks_per_round, 1e-9);
  EXPECT_NEAR(a.volume_per_rank_blocks, b.volume_per_rank_blocks, 1e-9);
  EXPECT_NEAR(a.blocks_sum, b.blocks_sum, 1e-9);
}

TEST(Bridgehead, ParametersParseAndAreChecked) {
  const Torus t({8, 6});
  std::vector<RingParams> p;
  std::string why;
  ASSERT_TRUE(BridgeheadSchedule::parse("2,3,2", t, &p, &why)) << why;
  EXPECT_EQ(p, (std::vector<RingParams>{{2, 3, 2}, {2, 3, 2}}));
  ASSERT_TRUE(BridgeheadSchedule::parse("4,2,1;3,3,3", t, &p, &why)) << why;
  EXPECT_EQ(BridgeheadSchedule::to_string(p), "4,2,1;3,3,3");
  EXPECT_FALSE(BridgeheadSchedule::parse("2,3", t, &p, &why));
  EXPECT_FALSE(BridgeheadSchedule::parse("2,3,5", t, &p, &why));  // 5 does not divide 8
  EXPECT_NE(why.find("does not fit"), std::string::npos) << why;
  EXPECT_FALSE(BridgeheadSchedule::parse("1,3,1;1,3,1;1,3,1", t, &p, &why));
  EXPECT_THROW(BridgeheadSchedule(t, {{9, 2, 1}, {1, 3, 1}}), std::invalid_argument);
}
