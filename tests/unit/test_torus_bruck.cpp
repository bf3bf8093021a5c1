// SPDX-License-Identifier: BSD-3-Clause
// `torus-bruck` (Bruck et al. 1997, per axis): rounds, far-first order,
// declines.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "schedule/torus_bruck.hpp"
#include "simulate/simulate.hpp"
#include "schedule_checks.hpp"

using namespace torusgather;

// torus-bruck delivers every block in Σ ceil(log_k n_i) rounds, each rank
// sending P - 1 blocks (nothing twice), with the link loads it claims and
// calls that never leave their axis by more than half its side.
TEST(TorusBruck, CeilLogRoundsOnEveryRadix) {
  const std::vector<std::vector<int>> shapes = {{2},    {3},       {7},    {16},      {2, 2},    {3, 5},
                                                {4, 6}, {2, 3, 4}, {7, 7, 7}, {1, 9},   {4, 4, 4, 4, 2},
                                                {5, 1, 6}, {2, 2, 2, 2, 3, 2}, {13, 10}};
  for (const auto& dims : shapes)
    for (int k = 2; k <= 9; ++k) {
      SCOPED_TRACE(name_of(dims) + " radix " + std::to_string(k));
      const TorusBruckSchedule s{Torus(dims), k};
      long long rounds = 0;
      for (int n : dims)
        for (long long m = 1; m < n; m *= k) ++rounds;
      EXPECT_EQ(s.rounds(), rounds);
      expect_verified(s, rounds);
      const SimulationReport rep = step_through(s);
      EXPECT_EQ(rep.max_link_messages_per_round, s.claimed_max_link_messages_per_round());
      for (const auto& round : s.round_list())
        for (const auto& part : round.parts)
          EXPECT_LE(2 * part.hops, s.torus().dim(round.axis));
    }
}

// The far-first order: the same rounds, every block delivered, the claimed
// link loads; with k ranks per node on the last axis too. On sides that are
// powers of the radix the long calls go first: each network round's
// longest call is no longer than the one before, and the messages are
// fewer pieces than kMaxPieces.
TEST(TorusBruck, FarFirstDeliversOnEveryRadix) {
  const std::vector<std::vector<int>> shapes = {{2},       {4},          {8},       {9},       {16},   {4, 4},
                                                {3, 9},    {4, 6},       {2, 3, 4}, {8, 8, 8}, {1, 9}, {4, 4, 4, 4, 2},
                                                {5, 1, 6}, {2, 2, 2, 2, 3, 2}, {13, 10}, {4, 4, 8, 4}};
  int built = 0;
  for (const auto& dims : shapes)
    for (int k = 2; k <= 9; ++k)
      for (int per_node : {1, dims.back()}) {
        SCOPED_TRACE(name_of(dims) + " radix " + std::to_string(k) + ", " + std::to_string(per_node) + " per node");
        std::unique_ptr<TorusBruckSchedule> s;
        try {
          s = std::make_unique<TorusBruckSchedule>(Torus(dims), TorusBruckSchedule::Params{k, true}, per_node);
        } catch (const std::invalid_argument& e) {
          ADD_FAILURE() << e.what();  // every message here is at most 256 pieces
          continue;
        }
        ++built;
        EXPECT_EQ(s->rounds(), TorusBruckSchedule::formula_rounds(s->torus(), k));
        expect_verified(*s, s->rounds());
        EXPECT_EQ(step_through(*s).max_link_messages_per_round, s->claimed_max_link_messages_per_round());
        EXPECT_LE(s->max_pieces(), TorusBruckSchedule::kMaxPieces);
        const int d = s->torus().ndims();
        const int node_axis = per_node > 1 && d > 1 ? d - 1 : -1;
        std::size_t last = SIZE_MAX;
        bool all_powers = true;
        for (int n : dims) {
          long long m = 1;
          while (m < n) m *= k;
          all_powers = all_powers && m == n;
        }
        for (const auto& round : s->round_list()) {
          std::size_t longest = 0;
          for (const auto& part : round.parts) longest = std::max(longest, static_cast<std::size_t>(part.hops));
          if (!all_powers || round.axis == node_axis) continue;
          EXPECT_LE(longest, last) << "axis " << round.axis;
          last = longest;
        }
      }
  EXPECT_EQ(built, static_cast<int>(shapes.size()) * 8 * 2);
}

// Far-first on 4x4x4x4x2, radix 2 (a Blue Gene/Q-like shape): the rounds
// of 2 hops first, so the busiest links carry 526 blocks in all against
// near-first's 851 (1 + 4 x (1 + 2 x 2) x 2^i over the axes).
TEST(TorusBruck, FarFirstMovesTheLongCallsEarly) {
  const Torus t({4, 4, 4, 4, 2});
  const TorusBruckSchedule near(t, TorusBruckSchedule::Params{2, false}), far(t, TorusBruckSchedule::Params{2, true});
  // Σ over rounds of the busiest link's blocks: a call of h hops puts its
  // blocks on h links one way (ClosedForm.TorusBruck* check this against
  // stepping through).
  auto busiest = [](const TorusBruckSchedule& s) {
    double sum = 0;
    for (const auto& round : s.round_list()) {
      double way[2] = {0, 0};
      for (const auto& p : round.parts)
        way[port_plus(p.port) ? 1 : 0] += round.blocks(p) * static_cast<double>(p.hops);
      sum += s.torus().dim(round.axis) == 2 ? way[0] + way[1] : std::max(way[0], way[1]);
    }
    return sum;
  };
  EXPECT_DOUBLE_EQ(busiest(near), 851);
  EXPECT_DOUBLE_EQ(busiest(far), 526);
  EXPECT_EQ(far.round_list().front().parts.front().hops, 2);
  EXPECT_EQ(far.max_pieces(), 16);  // {0, 2} on four axes
  // With 4 ranks per node the node axis comes last, in Bruck's order: a
  // message is one or two pieces (an interval that wraps) per node.
  const TorusBruckSchedule nodes(Torus({4, 4, 8, 4}), TorusBruckSchedule::Params{2, true}, 4);
  EXPECT_EQ(nodes.round_list().back().axis, 3);
  EXPECT_EQ(nodes.max_pieces(), 256);
}

// A far-first message of more than kMaxPieces pieces is not built: 16^3
// with radix 2 would hold 8 positions on each axis after the far rounds.
TEST(TorusBruck, FarFirstDeclinesTooManyPieces) {
  EXPECT_THROW(TorusBruckSchedule(Torus({16, 16, 16}), TorusBruckSchedule::Params{2, true}), std::invalid_argument);
  const auto p = TorusBruckSchedule::best(Torus({16, 16, 16}), 1.0, 0.5);
  EXPECT_FALSE(p.far_first && p.radix == 2);
  TorusBruckSchedule::Params parsed;
  std::string why;
  EXPECT_TRUE(TorusBruckSchedule::parse("3,far", Torus({9}), &parsed, &why));
  EXPECT_EQ(parsed.radix, 3);
  EXPECT_TRUE(parsed.far_first);
  EXPECT_FALSE(TorusBruckSchedule::parse("3,sideways", Torus({9}), &parsed, &why));
  EXPECT_NE(why.find("sideways"), std::string::npos);
}
