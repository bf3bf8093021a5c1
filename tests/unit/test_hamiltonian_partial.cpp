// SPDX-License-Identifier: BSD-3-Clause
// `hamiltonian-partial` (Meyer & Sibeyn §3.2-3.3): Theorems 3 and 4.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "schedule/hamiltonian_partial.hpp"
#include "simulate/simulate.hpp"
#include "schedule/registry.hpp"
#include "schedule_checks.hpp"

using namespace torusgather;

// Meyer & Sibeyn §3.2, Theorem 3: n1*n2/2 steps with one odd side, round by
// round on all ranks; the paper's 6x7 (Figure 2), both orientations, C = 3,
// and a side of 1 beside the two.
TEST(HamiltonianPartial, Theorem3OnShapesWithOneOddSide) {
  const std::vector<std::vector<int>> shapes = {
      {6, 7},  {7, 6},  {4, 3},  {3, 4},  {4, 5},   {5, 4},   {8, 9},   {9, 8},    {10, 5},   {4, 11},
      {6, 3},  {12, 7}, {14, 9}, {4, 21}, {20, 11}, {16, 15}, {8, 3},   {6, 13},   {13, 6},   {24, 25},
      {6, 1, 7}, {1, 4, 5}, {7, 1, 1, 10}};
  for (const auto& dims : shapes) {
    SCOPED_TRACE(name_of(dims));
    const HamiltonianPartialSchedule s{Torus(dims)};
    const Torus& t = s.torus();
    const long long P = t.size(), R = t.dim(s.row_axis()), C = t.dim(s.column_axis());
    EXPECT_EQ(R % 2, 0);
    EXPECT_EQ(C % 2, 1);
    EXPECT_EQ(s.rounds(), P / 2);  // Theorem 3
    EXPECT_FALSE(s.both_odd());
    for (int c = 0; c < 2; ++c) {
      EXPECT_EQ(s.cycle_ranks(c), P - R / 2);
      EXPECT_EQ(s.cycle_positions(c), P);
    }
    // §3.2's fixed switch step: feeder A only backwards, B turns after 2C.
    for (Rank x = 0; x < P; ++x) {
      if (s.off_cycle(x) < 0) continue;
      const auto &f0 = s.feed(x, 0), &f1 = s.feed(x, 1);
      EXPECT_EQ(std::min(f0.k, f1.k), 2 * C);
      EXPECT_EQ(std::max(f0.k, f1.k), P / 2);
      EXPECT_EQ(f0.delay + f1.delay, 0);
    }
    const SimulationReport rep = step_through(s);
    EXPECT_TRUE(rep.complete) << (rep.errors.empty() ? "" : rep.errors.front());
    EXPECT_EQ(rep.rounds, P / 2);
    EXPECT_EQ(rep.max_link_messages_per_round, 1);
    // Not P - 1 on every rank: a rank of column C-2 sends both of its streams
    // (P/2 - 1/2 blocks of parts, halves in the last round) and feeds its top
    // and bottom neighbours P/2 parts each, P - 1/2 blocks; others send less.
    EXPECT_DOUBLE_EQ(rep.volume_per_rank_blocks, static_cast<double>(P) - 0.5);
    const SimulationReport proof = prove_structure(s);
    EXPECT_TRUE(proof.complete) << (proof.errors.empty() ? "" : proof.errors.front());
    EXPECT_EQ(proof.rounds, rep.rounds);
    EXPECT_DOUBLE_EQ(proof.volume_per_rank_blocks, rep.volume_per_rank_blocks);
    EXPECT_DOUBLE_EQ(proof.max_link_blocks_per_round, rep.max_link_blocks_per_round);
  }
}

// The structure §3.2 describes, on its Figure 2 torus: column n-2 passes
// L<->R only, so its ranks alternate between the cycles and its vertical
// links are left to feeding; every other rank is on both cycles; the cycles
// share no link; every part of every block is on exactly one cycle.
TEST(HamiltonianPartial, ColumnRulesOfSection32On6x7) {
  const HamiltonianPartialSchedule s{Torus({6, 7})};
  const Torus& t = s.torus();
  const Port T = make_port(0, false), B = make_port(0, true), L = make_port(1, false), R = make_port(1, true);
  std::vector<int> used(static_cast<std::size_t>(t.size() * t.ports()), 0);
  std::vector<int> carried(static_cast<std::size_t>(t.size() * 2), 0);
  for (int c = 0; c < 2; ++c) {
    // Round the cycle from rank 0: a rank on it only carries both parts.
    Rank r = 0;
    long long positions = 0;
    do {
      const int n = s.positions(r, c);
      ASSERT_GT(n, 0);
      for (int k = 0; k < n; ++k) ++carried[static_cast<std::size_t>(r * 2 + (n == 2 ? k : c))];
      positions += n;
      const Port out = s.cycle_port(r, c, +1);
      EXPECT_EQ(s.cycle_port(t.neighbor(r, out), c, -1), opposite(out));
      ++used[static_cast<std::size_t>(r * t.ports() + out)];
      ++used[static_cast<std::size_t>(t.neighbor(r, out) * t.ports() + opposite(out))];
      r = t.neighbor(r, out);
    } while (r != 0 && positions <= t.size());
    EXPECT_EQ(positions, t.size());
  }
  for (int u : used) EXPECT_LE(u, 1);
  for (int n : carried) EXPECT_EQ(n, 1);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 7; ++j) {
      const Rank r = t.rank({i, j});
      if (j != 5) {
        EXPECT_EQ(s.off_cycle(r), -1) << i << "," << j;
        continue;
      }
      EXPECT_EQ(s.off_cycle(r), i % 2 == 0 ? s.off_cycle(t.rank({0, 5})) : 1 - s.off_cycle(t.rank({0, 5})));
      const int on = 1 - s.off_cycle(r);
      EXPECT_EQ(s.positions(r, on), 2);
      const Port fwd = s.cycle_port(r, on, +1), bwd = s.cycle_port(r, on, -1);
      EXPECT_TRUE((fwd == L && bwd == R) || (fwd == R && bwd == L));
      EXPECT_EQ(used[static_cast<std::size_t>(r * t.ports() + T)], 0);
      EXPECT_EQ(used[static_cast<std::size_t>(r * t.ports() + B)], 0);
    }
}

// Meyer & Sibeyn §3.3, Theorem 4: ceil(n1*n2/2) steps with both sides odd,
// on our rule set for the last two rows (the paper's Figure 4 is lost), round
// by round on all ranks: the paper's 7x7, both orientations, sides 3 to 25,
// and sides of 1 beside the two.
TEST(HamiltonianPartial, Theorem4OnShapesWithBothSidesOdd) {
  const std::vector<std::vector<int>> shapes = {
      {7, 7},  {3, 3},  {5, 5},   {3, 5},   {5, 3},   {5, 7},   {7, 5},  {9, 7},  {7, 9},   {9, 9},
      {3, 25}, {25, 3}, {11, 13}, {13, 11}, {15, 15}, {21, 9},  {9, 21}, {17, 5}, {5, 17},  {25, 25},
      {7, 1, 7}, {1, 5, 9}, {3, 1, 1, 11}};
  for (const auto& dims : shapes) {
    SCOPED_TRACE(name_of(dims));
    const HamiltonianPartialSchedule s{Torus(dims)};
    const Torus& t = s.torus();
    const long long P = t.size(), R = t.dim(s.row_axis()), C = t.dim(s.column_axis());
    EXPECT_TRUE(s.both_odd());
    EXPECT_EQ(s.rounds(), (P + 1) / 2);  // Theorem 4
    // Two simple cycles of P - (R+3)/2 and P - (R+1)/2 ranks, carrying P - 1
    // and P + 1 packets; the shorter is the one the relaying pair is off.
    const int shorter = s.cycle_positions(0) < s.cycle_positions(1) ? 0 : 1;
    EXPECT_EQ(s.cycle_ranks(shorter), P - (R + 3) / 2);
    EXPECT_EQ(s.cycle_ranks(1 - shorter), P - (R + 1) / 2);
    EXPECT_EQ(s.cycle_positions(shorter), P - 1);
    EXPECT_EQ(s.cycle_positions(1 - shorter), P + 1);
    // Ranks on one cycle: column C-2 and the last two of column C-1; the two
    // relaying ranks (one feeder at distance two) are (R-1, C-2), (R-1, C-1).
    for (Rank x = 0; x < P; ++x) {
      const int i = t.coord(x, s.row_axis()), j = t.coord(x, s.column_axis());
      const bool one = j == C - 2 || (j == C - 1 && i >= R - 2);
      EXPECT_EQ(s.off_cycle(x) >= 0, one) << i << "," << j;
      if (!one) continue;
      const bool relays = i == R - 1 && j >= C - 2;
      EXPECT_EQ(s.feed(x, 0).delay + s.feed(x, 1).delay, relays ? 1 : 0) << i << "," << j;
      if (relays) EXPECT_EQ(s.off_cycle(x), shorter);
    }
    expect_stepped_and_proved(s, (P + 1) / 2);
  }
}

// Each rank's cycles and their directions come from formulas (which strand
// is which cycle, which way it runs), not from a walk kept in tables. Here
// the strands are followed by the forwarding rules as the sections state
// them, from rank 0 (cycle 0 leaves it right, cycle 1 down), and every step
// must leave on the rank's forward port for that cycle and enter on the
// next rank's backward one.
TEST(HamiltonianPartial, FormulasEqualTheForwardingRules) {
  const std::vector<std::vector<int>> shapes = {{6, 7}, {7, 6}, {4, 3},  {4, 5},  {8, 9},   {14, 9}, {4, 21},
                                                {3, 3}, {5, 5}, {3, 5},  {7, 9},  {9, 7},   {11, 13}, {25, 3}};
  for (const auto& dims : shapes) {
    SCOPED_TRACE(name_of(dims));
    const HamiltonianPartialSchedule s{Torus(dims)};
    const Torus& t = s.torus();
    const int R = t.dim(s.row_axis()), C = t.dim(s.column_axis());
    const Port T = make_port(s.row_axis(), false), B = make_port(s.row_axis(), true);
    const Port L = make_port(s.column_axis(), false), Rt = make_port(s.column_axis(), true);
    // §3.1 (j even or j = C-1: T<->R, B<->L; else T<->L, B<->R), §3.2's
    // column C-2 (L<->R only), and §3.3's last two rows (header).
    auto rule = [&](Rank r, Port in) -> Port {
      const int i = t.coord(r, s.row_axis()), j = t.coord(r, s.column_axis());
      auto only = [in](Port a, Port b) -> Port { return in == a ? b : in == b ? a : -1; };
      if (s.both_odd() && i == R - 2 && j == C - 2) return only(B, L);
      if (s.both_odd() && i == R - 2 && j == C - 1) return only(T, Rt);
      if (s.both_odd() && i == R - 1) {
        if (j == C - 2) return only(T, L);
        if (j == C - 1) return only(B, Rt);
        return in == T ? B : in == B ? T : in == L ? Rt : L;
      }
      if (j == C - 2) return only(L, Rt);
      const bool straight = j % 2 == 0 || j == C - 1;
      if (in == T) return straight ? Rt : L;
      if (in == Rt) return straight ? T : B;
      if (in == B) return straight ? L : Rt;
      return straight ? B : T;
    };
    long long ranks = 0;
    for (int c = 0; c < 2; ++c) {
      Rank r = 0;
      Port out = c == 0 ? Rt : B;
      long long steps = 0;
      do {
        ASSERT_EQ(s.cycle_port(r, c, +1), out) << "cycle " << c << " rank " << r;
        const Rank next = t.neighbor(r, out);
        ASSERT_EQ(s.cycle_port(next, c, -1), opposite(out)) << "cycle " << c << " rank " << next;
        out = rule(next, opposite(out));
        ASSERT_GE(out, 0);
        r = next;
        ASSERT_LE(++steps, t.size());
      } while (r != 0);
      EXPECT_EQ(steps, s.cycle_ranks(c));
      ranks += steps;
    }
    // Off-cycle ranks hold no port of the cycle they are off.
    long long off = 0;
    for (Rank r = 0; r < t.size(); ++r)
      for (int c = 0; c < 2; ++c)
        if (s.positions(r, c) == 0) {
          ++off;
          EXPECT_EQ(s.cycle_port(r, c, +1), -1);
        }
    EXPECT_EQ(ranks, 2 * t.size() - off);
  }
}

// What a schedule keeps does not grow with the torus: a rank's strands and
// directions come from its row and column, its positions from cursors.
TEST(HamiltonianPartial, PlanKeptDoesNotGrowWithTheTorus) {
  for (const auto& dims : std::vector<std::vector<int>>{{65, 65}, {1001, 1001}, {4, 250001}, {1000, 999}}) {
    SCOPED_TRACE(name_of(dims));
    const Torus t(dims);
    const std::size_t before = heap_in_use();
    const HamiltonianPartialSchedule s(t);
    const std::size_t after = heap_in_use();
    EXPECT_LT(after - std::min(after, before), 16u * 1024) << "bytes kept";
    EXPECT_EQ(s.rounds(), (t.size() + 1) / 2);
  }
}

TEST(HamiltonianPartial, Declines) {
  EXPECT_FALSE(HamiltonianPartialSchedule::not_applicable(Torus({6, 8})).empty());    // §3.1's case
  EXPECT_FALSE(HamiltonianPartialSchedule::not_applicable(Torus({2, 3})).empty());    // top = bottom
  EXPECT_FALSE(HamiltonianPartialSchedule::not_applicable(Torus({4, 4, 5})).empty()); // 3D
  EXPECT_FALSE(HamiltonianPartialSchedule::not_applicable(Torus({9})).empty());       // a ring
  EXPECT_TRUE(HamiltonianPartialSchedule::not_applicable(Torus({4, 3})).empty());
  EXPECT_TRUE(HamiltonianPartialSchedule::not_applicable(Torus({5, 7})).empty());     // §3.3
  std::string why;
  EXPECT_EQ(try_build(*find_algorithm("hamiltonian-partial"), Torus({2, 5}), &why), nullptr);
  EXPECT_NE(why.find("even side must be >= 4"), std::string::npos);
  EXPECT_THROW(HamiltonianPartialSchedule(Torus({2, 5})), std::invalid_argument);
}
