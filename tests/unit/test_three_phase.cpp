// SPDX-License-Identifier: BSD-3-Clause
// `three-phase`: Barrière, Cohen & Mitjana's phases with the machine's nodes
// as components.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "schedule/phases.hpp"
#include "schedule/three_phase.hpp"
#include "simulate/simulate.hpp"
#include "schedule_checks.hpp"

using namespace torusgather;

// The hierarchical three-phase (Barrière, Cohen & Mitjana's phases with the machine's nodes as
// components): 2⌈log2 g⌉ + the leaders' gossip (⌈log2 r⌉ for r even,
// Algorithm 3's for r odd) rounds, one call per ordered pair and round,
// complete; for nodes of consecutive ranks, of unequal sizes, and for
// nodes that interleave.
TEST(ThreePhase, RoundsForNodesOfEverySize) {
  struct Case {
    int ranks, node_size;
    long long rounds;
  };
  // (8, 2): 1 + 2 + 1; (7, 3): nodes 3, 3, 1: 2 + 3 + 2; (64, 4): 2 + 4 + 2;
  // (25, 6): nodes 6, 6, 6, 6, 1: 3 + 4 + 3; (343, 7): 49 nodes, 3 + 7 + 3;
  // (12, 12): one node, 4 + 0 + 4; (12, 1): K_12's 4; (9, 1): Algorithm 3 on
  // 9 ranks: 1 + 3 (n' = 6) + 1.
  const std::vector<Case> cases = {{8, 2, 4},  {7, 3, 7},   {64, 4, 8}, {25, 6, 10}, {343, 7, 13},
                                   {12, 12, 8}, {12, 1, 4}, {9, 1, 5},  {2, 1, 1},   {2, 2, 2},
                                   {100, 10, 12}, {96, 8, 10}};
  for (const auto& c : cases) {
    SCOPED_TRACE(std::to_string(c.ranks) + " ranks, nodes of " + std::to_string(c.node_size));
    std::vector<int> node_of(static_cast<std::size_t>(c.ranks));
    for (int r = 0; r < c.ranks; ++r) node_of[static_cast<std::size_t>(r)] = r / c.node_size;
    const ThreePhaseSchedule s{Torus({c.ranks}), node_of};
    EXPECT_EQ(s.rounds(), c.rounds);
    EXPECT_EQ(s.nodes(), (c.ranks + c.node_size - 1) / c.node_size);
    const auto rep = step_through(s);
    EXPECT_TRUE(rep.complete) << all_errors(rep);
    EXPECT_EQ(rep.rounds, c.rounds);
    EXPECT_EQ(rep.max_link_messages_per_round, 1);
    // Only leaders call across nodes, and only in the gossip rounds.
    const auto& calls = s.calls();
    const long long inner = (s.rounds() - static_cast<long long>(complete_gossip(s.nodes()).size())) / 2;
    for (std::size_t k = 0; k < calls.size(); ++k)
      for (const Call& call : calls[k]) {
        const bool across = node_of[static_cast<std::size_t>(call.from)] != node_of[static_cast<std::size_t>(call.to)];
        const bool gossip = static_cast<long long>(k) >= inner && static_cast<long long>(k) < s.rounds() - inner;
        EXPECT_EQ(across, gossip) << "round " << k + 1 << ": " << call.from << " -> " << call.to;
        if (across) {
          EXPECT_EQ(call.from % c.node_size, 0);
          EXPECT_EQ(call.to % c.node_size, 0);
        }
      }
  }
}

TEST(ThreePhase, NodesNeedNotBeRunsOfRanks) {
  // Round-robin placement: rank r on node r mod 3 (12 ranks, nodes of 4
  // with leaders 0, 1, 2); and a map with arbitrary labels.
  std::vector<int> round_robin(12), labels = {7, 7, -2, 7, 40, -2, 40, 40, 7};
  for (int r = 0; r < 12; ++r) round_robin[static_cast<std::size_t>(r)] = r % 3;
  for (const auto& node_of : {round_robin, labels}) {
    const ThreePhaseSchedule s{Torus({static_cast<int>(node_of.size())}), node_of};
    EXPECT_EQ(s.nodes(), 3);
    EXPECT_EQ(s.rounds(), ThreePhaseSchedule::formula_rounds(4, 3));
    const auto rep = step_through(s);
    EXPECT_TRUE(rep.complete) << all_errors(rep);
    EXPECT_EQ(rep.rounds, s.rounds());
    EXPECT_EQ(rep.max_link_messages_per_round, 1);
  }
  EXPECT_FALSE(ThreePhaseSchedule::not_applicable(Torus({1})).empty());
  EXPECT_FALSE(ThreePhaseSchedule::not_applicable(Torus({4}), {0, 0, 1}).empty());
  EXPECT_THROW((ThreePhaseSchedule{Torus({4}), {0, 0, 1}}), std::invalid_argument);
}
