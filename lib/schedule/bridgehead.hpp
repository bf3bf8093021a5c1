// SPDX-License-Identifier: BSD-3-Clause
// The start-up trade-off family of Juurlink, Rao & Sibeyn:
// circgos(n, a, b) on every ring of an axis, axis after axis (§4.2, §4.3
// "highdimgos"). Approach 1 (a = n) and approach 2 (recursive concentration,
// a = 1, b = 3, one packet) are its limits; `concentrate` is approach 2, and
// `bridgehead-coloured` the same class with d colours (bridgehead_coloured.cpp).
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "schedule/explicit.hpp"

namespace torusgather {

/// circgos(n, a, b) with k packets per round of phase 3 (the Paragon
/// implementation's third parameter, §7).
struct RingParams {
  int a = 1;  ///< bridgeheads after phase 1
  int b = 3;  ///< factor by which each round of phase 3 multiplies them
  int k = 1;  ///< packets a bridgehead cuts its data into in phase 3 (k | n)
  bool operator==(const RingParams& o) const { return a == o.a && b == o.b && k == o.k; }
};

/// The cost of a schedule in the paper's units: steps·r + blocks, where r =
/// α/(sβ) and blocks is the sum over steps of each step's largest message in
/// blocks of s (time in units of sβ, distance term neglected as in §4).
struct StepCost {
  long long steps = 0;
  long long blocks = 0;
  double at(double r) const { return static_cast<double>(steps) * r + static_cast<double>(blocks); }
};

/// Each rank derives its own calls from the rings it is on (n x n bits
/// per ring, §4.3's highdimgos runs the same circgos on every ring of an
/// axis), not from P x P bits: memory per rank O(its calls).
class BridgeheadSchedule final : public Schedule {
 public:
  /// One RingParams per active axis, in axis order. Throws
  /// std::invalid_argument if the torus or the parameters do not fit.
  BridgeheadSchedule(const Torus& torus, std::vector<RingParams> params, const char* name = "bridgehead");
  /// highdimgos' (the colouring of §6.2, "cubgos'", applied to
  /// highdimgos): the block is cut into d colours, d = active axes; colour
  /// c runs the axes from the c-th on, cyclically, so in every phase the d
  /// colours use d different axes and all 2d links of a rank carry data.
  /// params[i] is the circgos of axis i, whichever phase runs it. Phases
  /// last as long as their longest colour (all alike on a cube).
  struct Coloured {};
  BridgeheadSchedule(const Torus& torus, std::vector<RingParams> params, Coloured);
  static std::string not_applicable(const Torus& torus);
  static std::string not_applicable_coloured(const Torus& torus);
  /// Empty if params fit the torus (one per active axis, 1 <= a <= n,
  /// 2 <= b, k divides n), else why not.
  static std::string check(const Torus& torus, const std::vector<RingParams>& params);

  /// Approach 2 on every axis: a = 1, b = 3, k = 1 (2⌈log3 n⌉ steps per axis).
  static std::vector<RingParams> concentrate(const Torus& torus);
  /// The parameters that minimise cost().at(r), axis by axis (the paper's
  /// own method: a small search over its cost formula, §4.2 Table 1).
  static std::vector<RingParams> best(const Torus& torus, double r);
  /// Lemma 5 for one ring of n ranks whose ranks hold `unit` blocks each.
  static StepCost ring_cost(int n, const RingParams& p, long long unit);
  /// Lemma 5 step by step: each step's largest message, ranks holding one block.
  static std::vector<long long> ring_steps(int n, const RingParams& p);
  /// At most ring_cost(n, p, 1), in O(1) per candidate of a search: phases 1
  /// and 2 exactly, phase 3's floor (ring_gossip::chain_floor; with
  /// `pipelines`, the tighter ring_gossip::pipelines_floor, O(rounds)). The
  /// searches skip a candidate whose floor already costs more than their best.
  static StepCost ring_floor(int n, const RingParams& p, bool pipelines = false);
  /// The coloured schedule's steps and largest messages in units of s/d
  /// (one colour's part): its time is steps·r + blocks/d in units of sβ.
  static StepCost coloured_cost(const Torus& torus, const std::vector<RingParams>& params);
  /// The parameters that minimise the coloured time: best(torus, r·d) (each
  /// colour moves pieces of s/d) or one triple a, b, k on every axis.
  static std::vector<RingParams> best_coloured(const Torus& torus, double r);
  /// The sum of ring_cost over the axis phases (unit = product of the sides done).
  static StepCost cost(const Torus& torus, const std::vector<RingParams>& params);
  /// "a,b,k" per axis, axes separated by ';'.
  static std::string to_string(const std::vector<RingParams>& params);
  /// Parses to_string's form; one triple applies to every axis.
  static bool parse(const std::string& text, const Torus& torus, std::vector<RingParams>* params, std::string* why);

  const char* name() const override { return name_; }
  long long rounds() const override { return cost_.steps; }
  int colours() const override { return colours_; }
  std::unique_ptr<RankProgram> program(Rank r) const override;
  bool routed_calls_only() const override { return true; }
  int claimed_max_link_messages_per_round() const override { return 1; }
  double claimed_blocks_sum() const override { return static_cast<double>(cost_.blocks) / colours_; }

  /// One round's loads, over all ranks: the busiest directed link's and the
  /// busiest receiver's blocks (of s), the most messages a rank sends and
  /// receives, the longest route.
  struct RoundLoad {
    double link_blocks = 0, recv_blocks = 0;
    int sends = 0, recvs = 0, hops = 0;
  };
  /// Every round's loads as the cost model charges them (an MPI message
  /// takes the shorter way round), from one ring per side (n x n bits,
  /// O(rounds * n) calls), not from P ranks: every ring of an axis does the same, and in
  /// a round the colours run on different axes, so their sends add up and
  /// their links never meet.
  std::vector<RoundLoad> round_loads() const;
  std::string construction() const override;
  const std::vector<RingParams>& params() const { return params_; }

 private:
  class Program;
  struct RankCalls;
  /// Rank r's calls, derived once and kept for the last rank asked (every
  /// call of a communicator asks for the same one).
  std::shared_ptr<const RankCalls> calls_of(Rank r) const;
  /// The ranges a rank keeps expanded (1 MB): beyond, it expands per round.
  static constexpr std::size_t kKeptRanges = 65536;
  /// One axis of one colour: its ring runs params_[param] from round start + 1.
  struct Phase {
    int axis;
    int param;
    int colour;
    long long start;
    std::uint32_t done;  ///< the axes this colour finished before
  };
  const char* name_;
  std::vector<RingParams> params_;
  StepCost cost_;  ///< blocks in units of s/colours_
  int colours_ = 1;
  std::vector<Phase> phases_;
  mutable std::mutex cache_mutex_;
  mutable std::shared_ptr<const RankCalls> cached_;
};

}  // namespace torusgather
