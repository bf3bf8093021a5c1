// SPDX-License-Identifier: BSD-3-Clause
// Perfect-Lee-code three-phase gossip (Delmas & Pérennes §5):
// concentrate into the code, gossip among code nodes on arc-disjoint
// dipaths, broadcast back; recursively on the code's dilated sub-tori.
// The large-message variant (§6) splits each broadcast into two rounds.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "schedule/schedule.hpp"

namespace torusgather {

/// Each rank makes its own calls from where it sits in the recursion: the
/// levels at which it is a code node, its code node, its families. What a
/// call carries is a union of the units of the level (a node's ball at the
/// level below, q^level blocks), enumerated for that call alone.
class LeeCodeSchedule final : public Schedule {
 public:
  /// Throws std::invalid_argument if not_applicable(torus) is not empty.
  /// `large`: Delmas & Pérennes §6's variant for large messages, every broadcast
  /// split into two rounds that move 1/(2d+1) of the data per link.
  explicit LeeCodeSchedule(const Torus& torus, bool large = false);
  /// d = number of sides > 1 must be 1, 2 or 3, each such side a multiple
  /// of q = 2d+1. `large` also declines the ring of 3, where every piece is
  /// the block its receiver already holds (§6's first round would be empty).
  static std::string not_applicable(const Torus& torus, bool large = false);

  /// Whether the code divides a sub-torus of these sides into another level
  /// (every side a multiple of q, not all of them 1); else it runs rings.
  static bool code_divides(const std::vector<int>& sides, int q);
  /// A dipath as segments (axis index among the active axes, signed
  /// length), walked in order; the dipath of -u walks them negated.
  using Segments = std::vector<std::pair<int, int>>;
  /// The last level's ring of n positions, both ways, in step `step`
  /// (0 .. n/2 - 1): the position that p's call towards + (side 0) or -
  /// (side 1) carries, or -1. Position p holds p - step .. p + step, so it
  /// passes on the far end of that arc; at an even ring's antipode both
  /// neighbours hold the one position still missing, and the one first in
  /// the builder's order (positions ascending, + before -) carries it. O(1).
  static int ring_call(int n, int step, int p, int side);
  /// The local gossip rounds x -> x + M^k B1 (k = 1 .. d-1) among the code
  /// nodes, one dipath per ±u of M^k B1 (Delmas & Pérennes §5.1.3 for d = 3).
  static const std::vector<std::vector<Segments>>& local_rounds(int d);

  const char* name() const override { return large_ ? "lee-code-large" : "lee-code"; }
  long long rounds() const override { return rounds_; }
  int colours() const override { return 1; }
  std::unique_ptr<RankProgram> program(Rank r) const override;
  bool routed_calls_only() const override { return true; }
  int claimed_max_link_messages_per_round() const override { return 1; }
  long long claimed_hops_sum() const override { return hops_; }
  std::string construction() const override { return construction_; }

 private:
  class Program;
  /// One round: the level's concentration, a ring step of the last level,
  /// a local gossip round, or the broadcast (one round, or §6's 3-a and 3-b).
  struct Stage {
    enum Kind { concentrate, ring, local, broadcast, pieces, pass_on } kind;
    int level = 0;
    int index = 0;  ///< ring: the axis; local: the round k - 1
    int step = 0;   ///< ring: the step
  };
  void add_stages(int level);
  /// What programs share (a sub-torus' blocks, their pieces, a local
  /// round's message between two families), made when first asked and
  /// kept while a program holds it: the simulator's P programs ask for the
  /// same few in each round; a rank alone keeps none past its round.
  std::shared_ptr<const BlockRanges> remembered(const std::vector<long long>& key,
                                                const std::function<BlockRanges()>& make) const;
  mutable std::mutex memo_mutex_;
  mutable std::map<std::vector<long long>, std::weak_ptr<const BlockRanges>> memo_;
  bool large_ = false;  ///< §6's split broadcast
  std::vector<int> axes_;
  int d_ = 0, q_ = 0, levels_ = 0;
  std::vector<int> sides_;  ///< the active sides
  std::vector<int> rings_;  ///< the last level's ring length along each active axis
  std::vector<Stage> stages_;
  long long rounds_ = 0;
  long long hops_ = 0;
  std::string construction_;
};

}  // namespace torusgather
