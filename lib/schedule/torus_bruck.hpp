// SPDX-License-Identifier: BSD-3-Clause
// A logarithmic allgather for the latency regime that keeps its calls on
// the torus: Bruck's dissemination (Bruck, Ho, Kipnis, Upfal & Weathersby,
// IEEE TPDS 1997) with radix k, each round on one axis, growing both ways
// round the ring, so that a call only crosses its own axis and the two
// links of an axis both work. The far-first order sends the long calls
// while the messages are small, so that the large late ones go one hop (the
// aim of the Bine and Swing partner distances, De Sensi et al. 2024-2025).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "schedule/schedule.hpp"

namespace torusgather {

/// Near-first (Bruck's order): along each axis of side n in turn (the
/// fastest first), a rank holds an interval [x - L, x + R] of the ring, m =
/// L + R + 1 positions, and the whole sub-torus of the axes already done at
/// each. Each round it receives from the ranks j*m away, j = 1..ceil((k-1)/2)
/// up the ring and j = 1..floor((k-1)/2) down, what they hold next to its
/// interval, so m grows k-fold: ceil(log_k n) rounds per axis, k - 1 calls
/// per rank and round.
///
/// Far-first: an axis whose side is a power of k takes one round per base-k
/// digit j, with partners c*k^j for the signed digits c != 0 (1..floor(k/2)
/// up, 1..floor((k-1)/2) down); each partner sends all it holds. Any order of
/// the digits delivers every position once, so the rounds go by their
/// busiest link, most messages first. Other axes keep Bruck's order and go
/// first; the node axis (k ranks per node, shared memory) keeps it and goes
/// last. A rank
/// then holds a product of position sets, one or more pieces of the
/// row-major buffer per message (at most kMaxPieces).
///
/// Every rank's calls are rank 0's translated: the schedule keeps one list
/// of parts per round and each axis's held positions as runs. On an open
/// axis the same calls go straight along the line, so a call that would
/// wrap round takes the long way (Round::route).
class TorusBruckSchedule final : public Schedule {
 public:
  /// A message of more pieces than this is not built (far-first): packing
  /// them costs more than the shorter routes save.
  static constexpr long long kMaxPieces = 256;

  struct Params {
    int radix = 2;
    bool far_first = false;
  };

  TorusBruckSchedule(const Torus& torus, Params params, int node_ranks = 1);
  TorusBruckSchedule(const Torus& torus, int radix) : TorusBruckSchedule(torus, Params{radix, false}) {}
  static std::string not_applicable(const Torus& torus);

  /// Positions along one axis relative to a rank: (first, count) runs,
  /// sorted, disjoint.
  using Runs = std::vector<std::pair<long long, long long>>;

  /// A round's call pattern: the receiver gets the positions `along` (on
  /// the round's axis, relative to its own) times what every rank holds on
  /// the other axes, from the rank `delta` positions up the ring, straight
  /// along the axis: `hops` times the sender's `port`, the shorter way
  /// round (on an open axis the route depends on the ranks: route_on()).
  /// A program lists the route's ports only for the round it is in.
  struct Part {
    long long delta = 0;
    Runs along;
    Port port = 0;
    long long hops = 0;
  };
  struct Round {
    int axis = 0;
    std::vector<Part> parts;
    std::vector<Runs> held;  ///< per axis, what every rank holds before the round
    /// Blocks of a part: its positions times the other axes' held ones.
    double blocks(const Part& p) const;
  };

  /// What a round puts on one line of its axis (every line carries the
  /// same): the most messages and blocks one direction of a link carries,
  /// and the longest route. O(parts) on a ring, O(parts^2) on an open axis.
  struct Load {
    int messages = 0;
    double blocks = 0;
    int hops = 0;
  };
  Load load(const Round& round) const;
  /// The route of part p to the rank at `to` on an open axis: straight
  /// along the line from its sender.
  std::vector<Port> route_on(const Round& round, const Part& p, Rank to) const;

  /// The parameters best among radices 2..2d+1 and both orders. With
  /// `cost`, each candidate's predicted time; else the heuristic below: for
  /// r = α/(sβ), a software cost of q·α per message beyond a round's first
  /// send and receive and p·α per round (p = round_ratio), rounds·r·(1 + p +
  /// q·(2·calls − 2)) + the busiest link's blocks.
  static Params best(const Torus& torus, double r, double q, double round_ratio = 0, int node_ranks = 1,
                     const std::function<double(const Schedule&)>& cost = nullptr);
  /// "k" (near-first) or "k,far".
  static bool parse(const std::string& text, const Torus& torus, Params* params, std::string* why);
  static std::string to_string(const Params& p);

  const char* name() const override { return "torus-bruck"; }
  /// formula_rounds: the simulator checks the rounds made deliver in it.
  long long rounds() const override { return formula_rounds(torus(), params_.radix); }
  int colours() const override { return 1; }
  int claimed_max_link_messages_per_round() const override { return max_link_messages_; }
  std::unique_ptr<RankProgram> program(Rank r) const override;
  bool routed_calls_only() const override { return true; }
  long long claimed_hops_sum() const override { return hops_sum_; }
  std::string construction() const override {
    return "radix " + std::to_string(params_.radix) + (params_.far_first ? ", far-first" : "");
  }

  int radix() const { return params_.radix; }
  const Params& params() const { return params_; }
  const std::vector<Round>& round_list() const { return rounds_; }
  /// The most pieces of the row-major buffer one message takes.
  long long max_pieces() const { return max_pieces_; }
  /// Σ over axes of ceil(log_k n_i), in either order.
  static long long formula_rounds(const Torus& torus, int radix);

 private:
  class Program;
  Params params_;
  std::vector<Round> rounds_;
  int max_link_messages_ = 0;
  long long hops_sum_ = 0;
  long long max_pieces_ = 1;
};

/// The blocks, as ranges of the row-major buffer, at positions `along` on
/// `axis` (relative to x) times `held` (relative to x) on the other axes.
void torus_bruck_ranges(const Torus& t, Rank x, int axis, const TorusBruckSchedule::Runs& along,
                        const std::vector<TorusBruckSchedule::Runs>& held, BlockRanges* out);

}  // namespace torusgather
