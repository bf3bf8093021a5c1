// SPDX-License-Identifier: BSD-3-Clause
// `partial-cycles` and `partial-cycles-ti` (Meyer & Sibeyn §4).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "schedule/partial_cycles.hpp"
#include "simulate/simulate.hpp"
#include "schedule/registry.hpp"
#include "schedule_checks.hpp"

using namespace torusgather;

// Meyer & Sibeyn §4: d partial cycles of m = P/d + P/n_d ranks. The feeders
// send blocks they already hold, so the off-cycle ranks finish with the
// cycles: ceil(m/2) rounds, within the theorems' counts (Theorem 5:
// n1*n2/4 + n1/2 + 1; Theorem 6: n1*n2*n3/6 + n1*n2/2 + 1; Theorem 7:
// (1 + d/n_d) * P/(2d) + 2, all = m/2 + 1 or + 2).
TEST(PartialCycles, ShapesOfSectionsFourOneToFourThree) {
  const std::vector<std::vector<int>> shapes = {
      {2, 4},  {3, 4},  {4, 4},  {5, 4},  {6, 4},  {4, 6},  {6, 8},    {8, 6},    {7, 8},    {5, 8},
      {9, 4},  {4, 10}, {10, 4}, {3, 12}, {12, 3}, {8, 8},  {11, 6},   {6, 11},   {16, 16},  {13, 10},
      {20, 6}, {3, 3, 3}, {3, 3, 4}, {3, 6, 3}, {6, 6, 3}, {6, 6, 4}, {3, 9, 5}, {6, 6, 6}, {4, 4, 4, 4}};
  for (const auto& dims : shapes) {
    SCOPED_TRACE(name_of(dims));
    const PartialCyclesSchedule s{Torus(dims)};
    const long long P = s.torus().size();
    const int d = static_cast<int>(dims.size());
    const long long nd = dims[static_cast<std::size_t>(s.paper_axis(d - 1))];
    const long long m = P / d + P / nd;
    EXPECT_EQ(s.cycle_length(), m);
    EXPECT_EQ(s.rounds(), (m + 1) / 2);
    EXPECT_LE(2 * s.rounds(), m + 2);  // the theorems' m/2 + 1 (or + 2), rounded
    expect_stepped_and_proved(s, s.rounds());
  }
}

// Both sides odd: the helices (ours; §4.1 only names a "special column").
// The defect rows k = 2R mod C (taken odd, <= R) on the orientation with
// fewer of them, m = (P + k)/2 ranks per cycle, ceil(m/2) rounds, which is
// within §4.1's n1*n2/4 + n1/2 + 1 for either side as n1.
TEST(PartialCycles, HelicesOnShapesWithBothSidesOdd) {
  const std::vector<std::vector<int>> shapes = {
      {3, 3},  {3, 5},  {5, 3},  {5, 5},  {5, 7},  {7, 5},   {7, 7},   {3, 7},   {7, 3},   {9, 3},   {3, 9},
      {5, 9},  {9, 5},  {9, 9},  {7, 11}, {11, 7}, {11, 13}, {13, 11}, {3, 15},  {15, 3},  {9, 15},  {21, 5},
      {17, 17}, {25, 7}, {7, 25}, {23, 31}};
  for (const auto& dims : shapes) {
    SCOPED_TRACE(name_of(dims));
    const PartialCyclesSchedule s{Torus(dims)};
    const long long P = s.torus().size();
    auto defects = [](long long R, long long C) {
      long long k = (2 * R) % C;
      if (k % 2 == 0) k += C;
      return k <= R ? k : 1LL << 40;
    };
    const long long k = std::min(defects(dims[0], dims[1]), defects(dims[1], dims[0]));
    ASSERT_LT(k, 1LL << 40);
    EXPECT_EQ(s.helix_defects(), k);
    EXPECT_EQ(s.cycles(), 2);
    EXPECT_EQ(s.cycle_length(), (P + k) / 2);
    EXPECT_EQ(s.rounds(), (s.cycle_length() + 1) / 2);
    for (const int n1 : {dims[0], dims[1]}) EXPECT_LE(s.rounds(), P / 4.0 + n1 / 2.0 + 1);
    // Exactly k ranks lie on both cycles, the others on one.
    long long both = 0;
    for (Rank r = 0; r < P; ++r) both += s.position(r, 0) >= 0 && s.position(r, 1) >= 0;
    EXPECT_EQ(both, k);
    expect_stepped_and_proved(s, s.rounds());
  }
}

// The time-independent variant (§4.1's proof, Theorem 7's second claim):
// fixed rules, no switching. Its feed length is recomputed here by brute
// force over every fed rank and injected position (first arrival
// 1 + min(j, (l + 1 - j) mod m) for position a + j), and the rounds must stay
// within the paper's bounds: 2D, n1*n2/4 + n1/2 + 1 (Theorem 5) plus the
// n2 + 1 extra steps of §4.1's proof; d-dim, Theorem 7's
// (1 + d/n_d)(1 + 3d/n_{d-1}) P/(2d).
TEST(PartialCycles, TimeIndependentVariant) {
  const std::vector<std::vector<int>> shapes = {
      {2, 4},  {3, 4},  {4, 4},  {6, 4},  {4, 6},   {6, 8},   {8, 6},   {7, 8},    {5, 8},    {9, 4},
      {4, 10}, {12, 3}, {8, 8},  {11, 6}, {16, 16}, {13, 10}, {20, 6},  {3, 3, 3}, {3, 3, 4}, {3, 6, 3},
      {6, 6, 3}, {6, 6, 4}, {3, 9, 5}, {6, 6, 6}, {4, 4, 4, 4}, {3, 3}, {5, 7}, {7, 7}, {9, 3}, {11, 13}};
  for (const auto& dims : shapes) {
    SCOPED_TRACE(name_of(dims));
    const PartialCyclesSchedule s(Torus(dims), true);
    const PartialCyclesSchedule sw{Torus(dims)};
    const Torus& t = s.torus();
    const long long m = s.cycle_length();
    EXPECT_STREQ(s.name(), "partial-cycles-ti");
    long long feed = 0;
    for (Rank r = 0; r < t.size(); ++r)
      for (int c = 0; c < s.cycles(); ++c) {
        if (s.position(r, c) >= 0) continue;
        const auto f = s.feeders(r, c);
        for (long long j = 0; j < m; ++j)
          if (s.injects(s.at(c, f.a + j), c)) feed = std::max(feed, 1 + std::min(j, ((f.l + 1 - j) % m + m) % m));
      }
    EXPECT_EQ(s.feed_rounds(), feed);
    EXPECT_EQ(s.cycle_rounds(), std::max(m / 2, feed - 1));
    EXPECT_EQ(s.rounds(), std::max(s.cycle_rounds(), s.feed_rounds()));
    EXPECT_GE(s.rounds(), sw.rounds());
    const int d = t.ndims();
    std::vector<double> n;
    for (int k = 0; k < d; ++k) n.push_back(t.dim(s.paper_axis(k)));
    const double P = static_cast<double>(t.size());
    EXPECT_LE(s.rounds(), (1 + d / n[d - 1]) * (1 + 3 * d / n[d - 2]) * P / (2 * d));
    if (d == 2) EXPECT_LE(s.rounds(), n[0] * n[1] / 4 + n[0] / 2 + 1 + n[1] + 1);
    const SimulationReport rep = expect_stepped_and_proved(s, s.rounds());
    if (feed > m / 2 + 1) EXPECT_GT(rep.relayed_blocks, 0.0);
  }
}

TEST(PartialCycles, Theorem6Count) {
  // 3x3x4, the paper's Corollary 1 torus: Theorem 6 gives 36/6 + 9/2 + 1 = 11.5.
  const PartialCyclesSchedule s(Torus({3, 3, 4}));
  EXPECT_EQ(s.cycle_length(), 21);
  EXPECT_EQ(s.rounds(), 11);
}

TEST(PartialCycles, CyclesAreLinkDisjointAndEveryRankInjectsOnce) {
  for (const auto& dims : std::vector<std::vector<int>>{{6, 8}, {3, 3, 4}}) {
    const PartialCyclesSchedule s{Torus(dims)};
    const Torus& t = s.torus();
    std::vector<int> used(static_cast<std::size_t>(t.size() * t.ports()), 0);
    for (int c = 0; c < s.cycles(); ++c)
      for (long long p = 0; p < s.cycle_length(); ++p) {
        const Rank r = s.at(c, p);
        EXPECT_EQ(s.position(r, c), p);
        const Port out = s.cycle_port(r, c, +1);
        EXPECT_EQ(t.neighbor(r, out), s.at(c, p + 1));
        ++used[static_cast<std::size_t>(r * t.ports() + out)];
      }
    for (int u : used) EXPECT_LE(u, 1);
    for (Rank r = 0; r < t.size(); ++r) {
      int n = 0;
      for (int c = 0; c < s.cycles(); ++c) n += s.injects(r, c) ? 1 : 0;
      EXPECT_EQ(n, 1);
    }
  }
}

// The cycles are kept as formulas (a rank's position from its coordinates,
// the rank at a position from the lap's start), not as tables. Here they are
// checked against the walks themselves, stepped move by move as §4.3 states
// them (lap i: zigzag(d, J) with J the largest index with
// i mod (n1/d * n2 * ... * n_{J-1}) = 0, then along x_d back to x_d = 0)
// and as the helices are drawn (row r: a run along x_1, one step down x_2).
TEST(PartialCycles, FormulasEqualTheWalks) {
  const std::vector<std::vector<int>> shapes = {{6, 8},    {8, 6},    {2, 4},    {4, 10},    {3, 12},   {20, 6},
                                                {3, 3, 4}, {3, 6, 3}, {6, 6, 4}, {3, 9, 5},  {6, 6, 6}, {4, 4, 4, 4},
                                                {5, 7},    {9, 3},    {11, 13},  {23, 31},   {7, 25}};
  for (const auto& dims : shapes) {
    SCOPED_TRACE(name_of(dims));
    const PartialCyclesSchedule s{Torus(dims)};
    const Torus& t = s.torus();
    const int d = s.cycles();
    std::vector<int> axis(static_cast<std::size_t>(t.ndims()));
    std::vector<long long> n;
    for (int k = 0; k < t.ndims(); ++k) n.push_back(t.dim(s.paper_axis(k)));
    for (int c = 0; c < d; ++c) {
      // The walk, as paper coordinates x_1..x_d.
      std::vector<long long> x(static_cast<std::size_t>(t.ndims()), 0);
      std::vector<Rank> walk;
      auto visit = [&] {
        std::vector<int> coords(static_cast<std::size_t>(t.ndims()));
        for (int k = 0; k < t.ndims(); ++k)
          coords[static_cast<std::size_t>(s.paper_axis(k))] = static_cast<int>(x[static_cast<std::size_t>(k)]);
        walk.push_back(t.rank(coords));
      };
      auto step = [&](int k) {  // one positive move along x_{k+1}
        visit();
        x[static_cast<std::size_t>(k)] = (x[static_cast<std::size_t>(k)] + 1) % n[static_cast<std::size_t>(k)];
      };
      if (s.helix_defects() > 0) {
        const long long C = n[0], R = n[1], k = s.helix_defects();
        x[0] = c == 0 ? 0 : (C + 1) / 2 - 1;
        for (long long row = 0; row < R; ++row) {
          long long len = (C + 1) / 2;
          if (row >= k) {
            const long long a = (row - k) % 2 == 0 ? (C - 1) / 2 : (C + 1) / 2;
            len = c == 0 ? a : C - a;
          }
          for (long long j = 1; j < len; ++j) step(0);
          step(1);
        }
      } else {
        x[0] = c;
        long long laps = n[0] / d;
        for (int l = 1; l <= d - 2; ++l) laps *= n[static_cast<std::size_t>(l)];
        for (long long i = 1; i <= laps; ++i) {
          int J = 1;
          long long modulus = n[0] / d;
          for (int j = 2; j <= d - 1; ++j) {
            if (i % modulus == 0) J = j;
            modulus *= n[static_cast<std::size_t>(j - 1)];
          }
          for (int k = 1; k <= d; ++k) {
            step(k >= 3 && k <= J + 1 ? k - 2 : 0);
            if (k < d) step(d - 1);
          }
          for (long long k = 0; k < n[static_cast<std::size_t>(d - 1)] - d + 1; ++k) step(d - 1);
        }
      }
      ASSERT_EQ(static_cast<long long>(walk.size()), s.cycle_length());
      for (long long p = 0; p < s.cycle_length(); ++p) {
        ASSERT_EQ(s.at(c, p), walk[static_cast<std::size_t>(p)]) << "cycle " << c << " position " << p;
        ASSERT_EQ(s.position(walk[static_cast<std::size_t>(p)], c), p) << "cycle " << c;
        const Rank next = walk[static_cast<std::size_t>((p + 1) % s.cycle_length())];
        ASSERT_EQ(t.neighbor(walk[static_cast<std::size_t>(p)], s.cycle_port(walk[static_cast<std::size_t>(p)], c, +1)), next);
        ASSERT_EQ(t.neighbor(next, s.cycle_port(next, c, -1)), walk[static_cast<std::size_t>(p)]);
      }
      // Every other rank is off the cycle.
      std::vector<bool> on(static_cast<std::size_t>(t.size()), false);
      for (Rank r : walk) on[static_cast<std::size_t>(r)] = true;
      for (Rank r = 0; r < t.size(); ++r)
        if (!on[static_cast<std::size_t>(r)]) ASSERT_EQ(s.position(r, c), -1) << "rank " << r << " cycle " << c;
    }
  }
}

// What a schedule keeps does not grow with the torus: a rank's places come
// from its coordinates (the checks at construction free what they use).
TEST(PartialCycles, PlanKeptDoesNotGrowWithTheTorus) {
  for (const auto& [dims, ti] : std::vector<std::pair<std::vector<int>, bool>>{
           {{64, 64}, false}, {{1000, 1000}, false}, {{300, 300}, true}, {{999, 1001}, false}, {{60, 60, 60}, false}}) {
    SCOPED_TRACE(name_of(dims) + (ti ? " ti" : ""));
    const Torus t(dims);
    const std::size_t before = heap_in_use();
    const PartialCyclesSchedule s(t, ti);
    const std::size_t after = heap_in_use();
    EXPECT_LT(after - std::min(after, before), 16u * 1024) << "bytes kept";
    EXPECT_GT(s.rounds(), 0);
  }
}

TEST(PartialCycles, Declines) {
  EXPECT_TRUE(PartialCyclesSchedule::not_applicable(Torus({5, 7})).empty());    // the helices
  EXPECT_FALSE(PartialCyclesSchedule::not_applicable(Torus({4, 4, 5})).empty()); // no side = 0 mod 3
  EXPECT_FALSE(PartialCyclesSchedule::not_applicable(Torus({12})).empty());
  EXPECT_TRUE(PartialCyclesSchedule::not_applicable(Torus({3, 4})).empty());
  std::string why;
  EXPECT_EQ(try_build(*find_algorithm("partial-cycles"), Torus({4, 5, 2, 4}), &why), nullptr);
  EXPECT_FALSE(why.empty());
}
