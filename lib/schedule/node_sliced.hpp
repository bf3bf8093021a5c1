// SPDX-License-Identifier: BSD-3-Clause
// A node-aware allgather for k ranks per node. The torus is the node torus
// with the node's k ranks as its last axis (shared memory). Rank j of every
// node drives slice j of the data, the blocks of the ranks j of all nodes,
// with a torus schedule over the node torus: the k slices share the node's
// 2d links, and no block crosses the network twice. A bidirectional ring
// over the node's k ranks then exchanges the slices (the third phase of
// Barrière, Cohen & Mitjana §4.1's accumulate/gossip/broadcast shape, run
// with every rank of a node busy instead of one leader per node). On an
// even ring the last step sends halves both ways, a pair of ranks included
// (unlike dim-rings on a side of 2): two concurrent halves beat one whole
// slice in the lab's simulations (docs/performance.md). Overlapped, the
// node ring starts at once: in every round each rank passes on along the
// ring what it received the round before, so that only the last round's
// blocks are exchanged after the network's rounds.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "schedule/schedule.hpp"

namespace torusgather {

class NodeSlicedSchedule final : public Schedule {
 public:
  /// `torus`: node torus x k; `inner`: a neighbour-only schedule on the
  /// node torus (node_torus(torus)). Throws std::invalid_argument where
  /// not_applicable says why.
  NodeSlicedSchedule(const Torus& torus, std::unique_ptr<Schedule> inner, bool overlap = false);
  /// The torus without its last (node) axis.
  static Torus node_torus(const Torus& torus);
  /// Empty if it applies: at least 2 axes, the last of side k >= 2 and at
  /// least 2 nodes.
  static std::string not_applicable(const Torus& torus);
  /// Empty if the node ring can overlap the inner rounds. Its claims and
  /// cost are read off the inner programs of line_positions(), at most
  /// kMaxLinePositions of them.
  static std::string overlap_not_applicable(const Torus& torus);
  /// One node of the node torus `n` per combination of coordinates on its
  /// open axes, 0 on the others: along a closed axis every node's inner
  /// program moves the same counts, along an open one they differ.
  static std::vector<Rank> line_positions(const Torus& n);
  /// Each is stepped through when the schedule is built, which auto does
  /// per block size: more would take the decision past milliseconds.
  static constexpr Rank kMaxLinePositions = 64;
  /// The inner schedule's rounds plus floor(k/2).
  static long long formula_rounds(long long inner_rounds, int k) { return inner_rounds + k / 2; }

  const char* name() const override { return name_.c_str(); }
  long long rounds() const override { return rounds_; }
  int colours() const override { return inner_->colours(); }
  /// The node ring moves each colour's own piece: independent colours stay so.
  bool independent_colours() const override { return inner_->independent_colours(); }
  Piece colour_piece(int colour) const override { return inner_->colour_piece(colour); }
  /// The inner schedule's claim; the node ring carries one transfer per colour.
  int claimed_max_link_messages_per_round() const override;
  std::unique_ptr<RankProgram> program(Rank r) const override;
  std::string construction() const override { return inner_->construction(); }
  /// The inner schedule's proof, lifted to every slice (an injective
  /// relabelling of its blocks), plus the node ring's: floor(k/2) steps of
  /// N-block sets deliver the other k-1 slices.
  StructuralProof prove() const override;

  const Schedule& inner() const { return *inner_; }
  int node_ranks() const { return k_; }
  /// Blocks in one slice (the node ring moves one per step and direction).
  long long nodes() const { return inner_->torus().size(); }
  bool overlap() const { return overlap_; }
  /// The node ring's levels: floor(k/2). Level s brings slices j -+ s; an
  /// even ring's last level runs towards +axis only, overlapped.
  int levels() const { return k_ / 2; }

  /// The node ring's share of one round, each field the most of any rank
  /// (from the inner programs of line_positions()).
  struct NodeRound {
    int messages = 0;       ///< on the busiest node link direction
    double blocks = 0;      ///< on the busiest node link direction, in units of s
    int sends = 0, recvs = 0;
    double recv_blocks = 0;
  };
  /// Overlapped: every round's node ring, O(rounds); empty otherwise.
  const std::vector<NodeRound>& node_rounds() const { return node_rounds_; }

 private:
  std::unique_ptr<Schedule> inner_;
  std::string name_;
  int k_ = 1;
  long long rounds_ = 0;
  bool overlap_ = false;
  std::vector<NodeRound> node_rounds_;
};

}  // namespace torusgather
