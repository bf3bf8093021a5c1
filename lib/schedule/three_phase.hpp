// SPDX-License-Identifier: BSD-3-Clause
// The hierarchical allgather of the three-phase shape of Barrière, Cohen &
// Mitjana (§4.1) with the components taken from the machine: the ranks that
// share a node. Accumulate into each node's first rank, gossip among those
// leaders as in a complete graph (Algorithms 2 and 3), broadcast back
// inside each node. Only the leaders' calls cross between nodes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "schedule/schedule.hpp"

namespace torusgather {

/// Each rank makes its own calls: its place in its node's halving tree and
/// the leaders' gossip in closed form. The schedule keeps the nodes: O(1)
/// where they are runs of g consecutive ranks (the last may be shorter),
/// one start per node for other runs, the node map (O(P)) otherwise.
class ThreePhaseSchedule final : public Schedule {
 public:
  /// `node_of[r]`: the node of rank r (any labels; ranks with equal labels
  /// share a node). Empty: every rank is a node of its own, and the schedule
  /// is the gossip of Algorithm 2 or 3 among all P ranks.
  ThreePhaseSchedule(const Torus& torus, const std::vector<int>& node_of = {});
  /// Empty if it applies: at least 2 ranks, node_of of size 0 or P, and
  /// fewer than 2^31 nodes.
  static std::string not_applicable(const Torus& torus, const std::vector<int>& node_of = {});
  /// 2⌈log2 g⌉ + the gossip's rounds among r nodes, g the largest node.
  static long long formula_rounds(long long largest_node, int nodes);

  const char* name() const override { return "three-phase"; }
  long long rounds() const override { return rounds_; }
  int colours() const override { return 1; }
  std::unique_ptr<RankProgram> program(Rank r) const override;
  bool routed_calls_only() const override { return true; }
  int claimed_max_link_messages_per_round() const override { return 1; }
  std::string construction() const override { return construction_; }
  /// The network is the complete graph on the ranks: port p leads to rank
  /// p. MPI routes a call; one call per ordered pair and round.
  int link_ports() const override { return static_cast<int>(torus().size()); }
  Rank link_target(Rank, Port p) const override { return p; }
  bool torus_network() const override { return false; }
  int nodes() const { return nodes_; }

 private:
  class Program;
  /// Node k's rank at position `pos` (0: its leader), and rank r's node.
  Rank member(int k, Rank pos) const;
  int node_of_rank(Rank r) const;
  /// Rank r's position in its node k: O(1), O(log g) where nodes interleave.
  Rank position_of(Rank r, int k) const;
  Rank node_size(int k) const;
  /// The ranks of positions [lo, hi) of node k, and of nodes [a, b).
  BlockRanges positions(int k, Rank lo, Rank hi) const;
  BlockRanges ranks_of(int a, int b) const;

  int nodes_ = 0;
  Rank uniform_ = 0;           ///< > 0: node k is ranks [k g, (k+1) g)
  std::vector<Rank> starts_;   ///< runs of other sizes: node k is [starts_[k], starts_[k+1])
  std::vector<Rank> offsets_;  ///< otherwise: node k is order_[offsets_[k] .. offsets_[k+1])
  std::vector<Rank> order_;    ///< the ranks by node, ascending in each
  std::vector<int> node_;      ///< each rank's node
  int depth_ = 0;              ///< ⌈log2⌉ of the largest node
  int gossip_rounds_ = 0;
  long long rounds_ = 0;
  std::string construction_;
};

}  // namespace torusgather
