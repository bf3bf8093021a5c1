// Perfect-Lee-code three-phase gossip (Delmas & Pérennes, seed 004 §5):
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
  /// `large`: seed 004 §6's variant for large messages, every broadcast
  /// split into two rounds that move 1/(2d+1) of the data per link.
  explicit LeeCodeSchedule(const Torus& torus, bool large = false);
  /// d = number of sides > 1 must be 1, 2 or 3, each such side a multiple
  /// of q = 2d+1, and P at most kMaxRanks (the calls are built with P x P bits).
  /// `large` also declines the ring of 3, where every piece is the block
  /// its receiver already holds (§6's first round would be empty).
  static std::string not_applicable(const Torus& torus, bool large = false);
  static constexpr long long kMaxRanks = 16384;

  const char* name() const override { return large_ ? "lee-code-large" : "lee-code"; }
  long long rounds() const override { return rounds_; }
  int claimed_max_link_messages_per_round() const override { return 1; }
  long long claimed_hops_sum() const override { return hops_; }
  std::string construction() const override { return construction_; }

 private:
  std::vector<int> axes_;  ///< the active axes: x_1 .. x_d of the paper
  bool large_ = false;     ///< §6's split broadcast
  int q_ = 0;              ///< 2d + 1
  long long rounds_ = 0;
  long long hops_ = 0;
  std::string construction_;
};

}  // namespace torusgather
