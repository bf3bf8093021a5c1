// SPDX-License-Identifier: BSD-3-Clause
// cubgos: bridgeheads on generalised diagonals (Juurlink, Rao & Sibeyn §6;
// torgos of §5.2 in 2D).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "schedule/bridgehead.hpp"
#include "schedule/ring_gossip.hpp"

namespace torusgather {

/// cubgos(n, a, b) with k packets per chain (§6.2; torgos of §5.2 when d = 2).
struct DiagonalParams {
  int a = 1;  ///< bridgeheads per row of the first axis after phase 1 (n_0 / a = spacing g)
  int b = 2;  ///< factor by which each round of phase 4 multiplies them (g a power of b)
  int k = 1;  ///< packets an old bridgehead cuts its data into in phase 4a (k | n_0)
  bool operator==(const DiagonalParams& o) const { return a == o.a && b == o.b && k == o.k; }
};

/// cubgos(n, a, b) of Juurlink, Rao & Sibeyn §6 on a d-dimensional torus,
/// d >= 2 (for d = 2 it is §5.2's torgos). Rows are the lines along the
/// first active axis x_0. The bridgeheads with spacing g are the ranks with
/// x_0 ≡ x_1 + ... + x_{d-1} (mod g): every g x ... x g sub-torus holds a
/// copy of this set, a generalised diagonal in the sense of §6.1 (each
/// orthogonal projection onto a bounding hyperplane is a bijection: every
/// line along any axis meets it exactly once per g ranks).
///  1. every row concentrates into its a bridgeheads (circgos phase 1);
///  2. ⌊a/2⌋ steps among them along the row: each holds its whole row;
///  3. for each further axis x_i, ⌊(n_i/g)/2⌋ steps among the bridgeheads
///     of each x_i-line: a bridgehead then holds every row whose coordinates
///     are ≡ its own mod g (Invariant 2), so every diagonal holds everything;
///  4. log_b g rounds, each dividing g by b: (a) along every row the old
///     bridgeheads (which hold the same data) pipeline it in k packets to
///     the b-1 new ones in each gap (circgos phase 3); (b) for each further
///     axis, ⌊b/2⌋ steps among the b consecutive bridgeheads of each
///     x_i-line, whose classes mod the old g differ.
/// The seed's formulas are lost (Lemma 9); cost() counts the steps and each
/// step's largest message from this description, and the simulator checks it.
/// Each rank makes its own calls: every row runs the same calls translated
/// (its own offset mod g), and what a call carries follows from the phase:
/// a group of phase 1, one bridgehead's segment or class in the gathers, a
/// packet of the old class less the callee's own run of phase 1 in 4a. The
/// schedule keeps one row's steps: O(n_0 · steps).
class CubgosSchedule final : public Schedule {
 public:
  CubgosSchedule(const Torus& torus, DiagonalParams params);
  static std::string not_applicable(const Torus& torus);
  /// Empty if params fit: 1 <= a <= n_0, g = n_0/a an integer dividing every
  /// active side and a power of b (or 1), k dividing n_0.
  static std::string check(const Torus& torus, const DiagonalParams& params);
  static StepCost cost(const Torus& torus, const DiagonalParams& params);
  /// The parameters that minimise cost().at(r) (the paper's method, as for
  /// circgos: a search over a, b <= 8 and k <= 32).
  static DiagonalParams best(const Torus& torus, double r);
  static std::string to_string(const DiagonalParams& params);
  static bool parse(const std::string& text, const Torus& torus, DiagonalParams* params, std::string* why);

  /// One round as it runs on every line along `axis` (each line carries a
  /// translate of these calls, no two lines share a link): the cost
  /// model's input, without the calls of all P ranks.
  struct LineCall {
    int from;          ///< position on the line
    int dist;          ///< signed: + rightwards
    long long blocks;  ///< what the callee lacks
    bool operator==(const LineCall& o) const { return from == o.from && dist == o.dist && blocks == o.blocks; }
  };
  /// Lines differ by a translation: rows (axis 0) by x_1 + ... + x_{d-1}
  /// mod g0, others' bridgeheads by x_0 - (the other further axes) mod the
  /// round's spacing g.
  struct LineRound {
    int axis;
    int spacing;
    std::vector<LineCall> calls;
    long long times = 1;  ///< consecutive rounds alike (approach 1's steps)
  };
  std::vector<LineRound> line_rounds() const;

  const char* name() const override { return "cubgos"; }
  long long rounds() const override { return cost_.steps; }
  int colours() const override { return 1; }
  std::unique_ptr<RankProgram> program(Rank r) const override;
  bool routed_calls_only() const override { return true; }
  int claimed_max_link_messages_per_round() const override { return 1; }
  double claimed_blocks_sum() const override { return static_cast<double>(cost_.blocks); }
  std::string construction() const override;
  const DiagonalParams& params() const { return params_; }

 private:
  class Program;
  /// One round of the schedule, the same on every row or line.
  struct Stage {
    enum Kind { merge, gather, chain } kind;
    int step = 0;   ///< merge: phase 1's step; gather: s, 1-based; chain: the step in its round
    int round = 0;  ///< chain: phase 4's round t
    int axis = 0;   ///< gather: index among the active axes (0: the rows, phase 2)
    int spacing = 0;  ///< gather: the bridgeheads' spacing, the hops of a call
    int count = 0;    ///< gather: bridgeheads on the ring (a, n_i/g) or in the group (b)
    /// gather on a further axis: the rows a call carries agree with its
    /// sender's modulo these, on the axes before it, its own axis and those
    /// after it (0: equal).
    int before_mod = 0, own_mod = 0, after_mod = 0;
  };
  DiagonalParams params_;
  StepCost cost_;
  std::vector<int> axes_;
  int n0_ = 0, g0_ = 0, leader_ = 0;
  std::vector<std::vector<ring_gossip::Merge>> merges_;
  std::vector<std::vector<std::pair<int, int>>> merge_runs_;  ///< what each merge's sender holds: offsets [first, second)
  std::vector<std::pair<int, int>> held_;                     ///< each segment offset's run after phase 1
  std::vector<std::vector<std::vector<ring_gossip::ChainCall>>> chains_;
  std::vector<int> spacing_;  ///< phase 4's g, round by round
  /// Rounds alike but for `step`, which goes up by one a round: phase 1's
  /// merges, a gather's steps and a chain's steps each come as one run.
  struct StageRun {
    Stage first;
    int rounds = 1;
  };
  /// Appends st, to the last run where it continues it.
  void add_stage(const Stage& st);
  std::vector<StageRun> stages_;
};

}  // namespace torusgather
