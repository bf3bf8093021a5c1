// SPDX-License-Identifier: BSD-3-Clause
// The hierarchical allgather of the three-phase shape of Barrière, Cohen & Mitjana (
// Cohen & Mitjana §4.1) with the components taken from the machine: the
// ranks that share a node. Accumulate into each node's first rank, gossip
// among those leaders as in a complete graph (Algorithms 2 and 3), broadcast
// back inside each node. Only the leaders' calls cross between nodes.
#pragma once

#include <string>
#include <vector>

#include "schedule/explicit.hpp"

namespace torusgather {

class ThreePhaseSchedule final : public ExplicitSchedule {
 public:
  /// `node_of[r]`: the node of rank r (any labels; ranks with equal labels
  /// share a node). Empty: every rank is a node of its own, and the schedule
  /// is the gossip of Algorithm 2 or 3 among all P ranks.
  ThreePhaseSchedule(const Torus& torus, const std::vector<int>& node_of = {});
  /// Empty if it applies: at least 2 ranks, at most kMaxRanks (the calls are
  /// built with P x P bits), and node_of of size 0 or P.
  static std::string not_applicable(const Torus& torus, const std::vector<int>& node_of = {});
  static constexpr long long kMaxRanks = 16384;
  /// 2⌈log2 g⌉ + the gossip's rounds among r nodes, g the largest node.
  static long long formula_rounds(long long largest_node, int nodes);

  const char* name() const override { return "three-phase"; }
  long long rounds() const override { return rounds_; }
  int claimed_max_link_messages_per_round() const override { return 1; }
  std::string construction() const override { return construction_; }
  /// The network is the complete graph on the ranks: port p leads to rank
  /// p. MPI routes a call; one call per ordered pair and round.
  int link_ports() const override { return static_cast<int>(torus().size()); }
  Rank link_target(Rank, Port p) const override { return p; }
  bool torus_network() const override { return false; }
  int nodes() const { return nodes_; }

 private:
  int nodes_ = 0;
  long long rounds_ = 0;
  std::string construction_;
};

}  // namespace torusgather
