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
  for (int c = 0; c < 2; ++c)
    for (long long p = 0; p < t.size(); ++p) {
      const Rank r = s.at(c, p);
      ++carried[static_cast<std::size_t>(r * 2 + s.part(c, p))];
      if (s.at(c, p + 1) == r) continue;  // r's second position
      const Port out = s.cycle_port(r, c, +1);
      EXPECT_EQ(t.neighbor(r, out), s.at(c, p + 1));
      ++used[static_cast<std::size_t>(r * t.ports() + out)];
      ++used[static_cast<std::size_t>(t.neighbor(r, out) * t.ports() + opposite(out))];
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
