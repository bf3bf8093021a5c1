// SPDX-License-Identifier: BSD-3-Clause
// Time-independent gossiping on edge-disjoint cycles (Meyer & Sibeyn 1998, §3):
// every rank pairs its 2d ports into d strands by a fixed forwarding rule
// ("what arrives from the top leaves to the right"); the strands of one colour
// link up into one Hamiltonian cycle. Each block is cut into d parts and part
// c runs both ways round cycle c.
#pragma once

#include <vector>

#include "schedule/schedule.hpp"

namespace torusgather {

class CycleSchedule : public Schedule {
 public:
  explicit CycleSchedule(Torus torus);

  /// The port a stream entering rank r on `in` leaves on (an involution
  /// without fixed points on the 2d ports of r).
  virtual Port partner(Rank r, Port in) const = 0;
  /// The colour (cycle index, 0..d-1) of the strand of r that contains port p.
  virtual int colour(Rank r, Port p) const = 0;

  /// floor(P/2): after t rounds the two directions of a cycle of length P
  /// have brought the blocks at distance 1..t; for even P the last round
  /// brings the opposite rank from both sides (each side then carries half).
  long long rounds() const override { return torus().size() / 2; }
  int colours() const override { return static_cast<int>(ports_.size() / 2); }
  int claimed_max_link_messages_per_round() const override { return torus().size() > 1 ? 1 : 0; }
  std::unique_ptr<RankProgram> program(Rank r) const override;
  /// Checks that the strands of each colour form one cycle through all P
  /// ranks and that links are consistently coloured: then every directed
  /// link carries exactly one stream, so one message per round, and both
  /// directions of each cycle reach everyone in floor(P/2) rounds.
  StructuralProof prove() const override;

  /// Which half of the part a message carries in the last round of an even
  /// cycle, decided from the receiver's ports so that sender and receiver agree.
  std::uint8_t last_round_half(Rank receiver, Port in) const {
    return in < partner(receiver, in) ? 1 : 2;
  }

  /// The ports on axes with side > 1: those the cycles use.
  const std::vector<Port>& ports() const { return ports_; }

 private:
  std::vector<Port> ports_;
};

}  // namespace torusgather
