// SPDX-License-Identifier: BSD-3-Clause
// `three-phase`: Barrière, Cohen & Mitjana's phases with the machine's nodes
// as components.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "schedule/explicit.hpp"
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
    const long long inner = (s.rounds() - gossip_round_count(s.nodes())) / 2;
    std::vector<std::unique_ptr<RankProgram>> programs;
    for (Rank r = 0; r < c.ranks; ++r) programs.push_back(s.program(r));
    RoundOps ops;
    for (long long k = 0; k < s.rounds(); ++k)
      for (Rank from = 0; from < c.ranks; ++from) {
        programs[static_cast<std::size_t>(from)]->next_round(ops);
        for (const Transfer& x : ops.sends) {
          const bool across = node_of[static_cast<std::size_t>(from)] != node_of[static_cast<std::size_t>(x.peer)];
          const bool gossip = k >= inner && k < s.rounds() - inner;
          EXPECT_EQ(across, gossip) << "round " << k + 1 << ": " << from << " -> " << x.peer;
          if (across) {
            EXPECT_EQ(from % c.node_size, 0);
            EXPECT_EQ(x.peer % c.node_size, 0);
          }
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

// Each rank's program makes exactly the calls of the whole construction
// derived with every rank's holdings (GossipBuilder: a call carries what the
// caller holds and the callee lacks), for nodes of g consecutive ranks,
// runs of unequal sizes and nodes that interleave.
TEST(ThreePhase, EachRanksProgramMakesTheConstructionsCalls) {
  std::vector<std::vector<int>> maps;
  for (int P = 2; P <= 40; ++P)
    for (int g : {1, 2, 3, 4, 7}) {
      std::vector<int> m(static_cast<std::size_t>(P));
      for (int r = 0; r < P; ++r) m[static_cast<std::size_t>(r)] = r / g;
      maps.push_back(m);
      for (int r = 0; r < P; ++r) m[static_cast<std::size_t>(r)] = (r * 7 + P) % (g + 2);  // interleaved
      maps.push_back(m);
      std::vector<int> runs;  // runs of sizes 1, 2, ..., g, 1, 2, ...
      for (int node = 0, size = 1; static_cast<int>(runs.size()) < P; ++node, size = size % g + 1)
        for (int i = 0; i < size && static_cast<int>(runs.size()) < P; ++i) runs.push_back(node);
      maps.push_back(runs);
    }
  maps.push_back({});
  int compared = 0;
  for (const auto& node_of : maps) {
    ++compared;
    const Rank P = node_of.empty() ? 33 : static_cast<Rank>(node_of.size());
    SCOPED_TRACE(std::to_string(P) + " ranks");
    const ThreePhaseSchedule s{Torus({static_cast<int>(P)}), node_of};
    // The old construction: members by node in order of their lowest rank.
    std::vector<std::vector<Rank>> members;
    std::map<int, std::size_t> index;
    for (Rank r = 0; r < P; ++r) {
      const int label = node_of.empty() ? static_cast<int>(r) : node_of[static_cast<std::size_t>(r)];
      const auto it = index.emplace(label, members.size()).first;
      if (it->second == members.size()) members.emplace_back();
      members[it->second].push_back(r);
    }
    std::vector<std::vector<std::pair<Rank, Rank>>> tree;
    for (const auto& m : members) {
      const auto rounds = halving_broadcast(0, static_cast<Rank>(m.size()), 0);
      if (tree.size() < rounds.size()) tree.resize(rounds.size());
      for (std::size_t i = 0; i < rounds.size(); ++i)
        for (const auto& [a, b] : rounds[i])
          tree[i].emplace_back(m[static_cast<std::size_t>(a)], m[static_cast<std::size_t>(b)]);
    }
    GossipBuilder b(P, [](Rank, Port p) { return static_cast<Rank>(p); });
    for (auto it = tree.rbegin(); it != tree.rend(); ++it) {
      b.next_round();
      for (const auto& [root, callee] : *it) b.call(callee, {static_cast<Port>(root)});
    }
    for (const auto& round : complete_gossip(static_cast<int>(members.size()))) {
      b.next_round();
      for (const auto& [x, y] : round.pairs) {
        b.call(members[static_cast<std::size_t>(x)].front(), {static_cast<Port>(members[static_cast<std::size_t>(y)].front())});
        b.call(members[static_cast<std::size_t>(y)].front(), {static_cast<Port>(members[static_cast<std::size_t>(x)].front())});
      }
    }
    for (const auto& round : tree) {
      b.next_round();
      for (const auto& [root, callee] : round) b.call(root, {static_cast<Port>(callee)});
    }
    expect_programs_make(s, b.finish());
  }
  EXPECT_EQ(compared, 586);  // 39 rank counts x 5 node sizes x 3 layouts, and one rank per node
}
