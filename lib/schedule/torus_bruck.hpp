// SPDX-License-Identifier: BSD-3-Clause
// A logarithmic allgather for the latency regime that keeps its calls on
// the torus: Bruck's dissemination (Bruck, Ho, Kipnis, Upfal & Weathersby,
// IEEE TPDS 1997) with radix k, run along each axis in turn and growing
// both ways round the ring, so that a call only crosses its own axis and
// the two links of an axis both work (the partner distances of Bine and
// Swing trees, De Sensi et al. 2024-2025, serve the same end).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "schedule/schedule.hpp"

namespace torusgather {

/// Along each axis of side n (the fastest first), a rank holds an interval
/// [x - L, x + R] of the ring, m = L + R + 1 positions, and the whole
/// sub-torus of the axes already done at each. Each round it receives from
/// the ranks j*m away, j = 1..ceil((k-1)/2) up the ring and j = 1..
/// floor((k-1)/2) down, what they hold next to its interval, so m grows
/// k-fold: ceil(log_k n) rounds per axis, k - 1 calls per rank and round.
/// Every rank's calls are rank 0's translated: the schedule keeps one list
/// of parts per round (O(k log P)).
class TorusBruckSchedule final : public Schedule {
 public:
  TorusBruckSchedule(const Torus& torus, int radix);
  static std::string not_applicable(const Torus& torus);

  /// A round's call pattern: the receiver gets `count` positions starting
  /// at its own + `offset` along `axis` from the rank `delta` positions up
  /// the ring, along `route` (the sender's ports, the shorter way round).
  struct Part {
    long long delta = 0, offset = 0, count = 0;
    std::vector<Port> route;
  };
  struct Round {
    int axis = 0;
    std::vector<Part> parts;
  };

  /// The radix best among 2..2d+1 for r = α/(sβ), a software cost of q·α
  /// per message beyond a round's first send and receive and p·α per round
  /// (p = round_ratio): the cost model's rounds·r·(1 + p + q·(2·calls − 2)) + the busiest
  /// link's blocks (what predict() charges, so that a larger block is never
  /// predicted faster).
  static int best(const Torus& torus, double r, double q, double round_ratio = 0);
  static bool parse(const std::string& text, const Torus& torus, int* radix, std::string* why);

  const char* name() const override { return "torus-bruck"; }
  /// formula_rounds: the simulator checks the rounds made deliver in it.
  long long rounds() const override { return formula_rounds(torus(), radix_); }
  int colours() const override { return 1; }
  int claimed_max_link_messages_per_round() const override { return max_link_messages_; }
  std::unique_ptr<RankProgram> program(Rank r) const override;
  bool routed_calls_only() const override { return true; }
  long long claimed_hops_sum() const override { return hops_sum_; }
  std::string construction() const override { return "radix " + std::to_string(radix_); }

  int radix() const { return radix_; }
  const std::vector<Round>& round_list() const { return rounds_; }
  /// Σ over axes of ceil(log_k n_i).
  static long long formula_rounds(const Torus& torus, int radix);

 private:
  class Program;
  int radix_;
  std::vector<Round> rounds_;
  int max_link_messages_ = 0;
  long long hops_sum_ = 0;
};

}  // namespace torusgather
