// SPDX-License-Identifier: BSD-3-Clause
// Perfect-Lee-code three-phase gossip (Delmas & Pérennes §5):
// concentrate into the code, gossip among code nodes on arc-disjoint
// dipaths, broadcast back; recursively on the code's dilated sub-tori.
// The large-message variant (§6) splits each broadcast into two rounds.
#pragma once

#include <string>
#include <vector>

#include "schedule/explicit.hpp"

namespace torusgather {

class LeeCodeSchedule final : public ExplicitSchedule {
 public:
  /// Throws std::invalid_argument if not_applicable(torus) is not empty.
  /// `large`: Delmas & Pérennes §6's variant for large messages, every broadcast
  /// split into two rounds that move 1/(2d+1) of the data per link.
  explicit LeeCodeSchedule(const Torus& torus, bool large = false);
  /// d = number of sides > 1 must be 1, 2 or 3, each such side a multiple
  /// of q = 2d+1, and P at most kMaxRanks (the calls are built with P x P bits).
  /// `large` also declines the ring of 3, where every piece is the block
  /// its receiver already holds (§6's first round would be empty).
  static std::string not_applicable(const Torus& torus, bool large = false);
  static constexpr long long kMaxRanks = 16384;

  /// Tori of more than kMaxRanks ranks (Delmas & Pérennes §5.2's 49x49x49, 117649
  /// ranks) cannot keep their calls: the ranges of one local gossip round
  /// alone would take tens of GB. They are generated and handed to a sink
  /// one by one, for CallChecker, and no schedule is built. The builder
  /// still keeps P x P bits twice: P^2/4 bytes, up to kMaxStreamedRanks.
  static constexpr long long kMaxStreamedRanks = 131072;
  struct Streamed {
    long long rounds = 0;  ///< as the construction's formula gives them
    long long hops = 0;    ///< the claimed sum of the rounds' longest dipaths
    std::string construction;
  };
  /// Empty if stream() applies: the shapes of not_applicable(), up to
  /// kMaxStreamedRanks ranks.
  static std::string not_streamable(const Torus& torus, bool large = false);
  /// Generates the calls of the schedule for `torus` into `sink` in the
  /// order of the rounds, keeping none of them. Throws std::invalid_argument
  /// if not_streamable(torus) is not empty.
  static Streamed stream(const Torus& torus, bool large, const GossipBuilder::Sink& sink);

  const char* name() const override { return large_ ? "lee-code-large" : "lee-code"; }
  long long rounds() const override { return rounds_; }
  int claimed_max_link_messages_per_round() const override { return 1; }
  long long claimed_hops_sum() const override { return hops_; }
  std::string construction() const override { return construction_; }

 private:
  static std::string shape_not_applicable(const Torus& torus, bool large);
  /// Makes the calls into `b`; returns the claims and the description.
  static Streamed generate(const Torus& torus, bool large, GossipBuilder& b);
  bool large_ = false;  ///< §6's split broadcast
  long long rounds_ = 0;
  long long hops_ = 0;
  std::string construction_;
};

}  // namespace torusgather
