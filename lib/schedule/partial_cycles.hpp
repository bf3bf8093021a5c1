// SPDX-License-Identifier: BSD-3-Clause
// One-packet gossiping on d partial cycles (Meyer & Sibeyn 1998, §4:
// 2D §4.1 Theorem 5, 3D §4.2 Theorem 6, d-dimensional §4.3 Theorem 7).
//
// Cycle j starts at (j, 0, ..., 0) and is n1/d * n2 * ... * n_{d-1} laps; lap
// i starts with zigzag(d, J), J the largest index with
// i mod (n1/d * n2 * ... * n_{J-1}) = 0 (else 1), and continues along x_d
// back to x_d = 0: m = P/d + P/n_d ranks per cycle. Conditions (§4.3.1):
// (1) sum_{j=2}^{d-1} prod_{l=j}^{d-1} n_l = 0 (mod n1), (2) n1 = 0 (mod d),
// (3) n_d >= d; the axes of the torus are matched to x_1..x_d in the order
// that meets them with the largest n_d. 2D with both sides odd (§4.1's
// "special column" is not given): two helices of our own, m = (P + k)/2 with
// k = 2R mod C defect rows (build_helix; docs/algorithms.md).
//
// Each rank injects its whole block on one cycle it lies on; the block runs
// both ways round it. A rank off cycle c is fed c's blocks by two neighbours
// on c over links no cycle uses (the paper's Table 1 shows such links exist;
// here a per-rank search picks them and the construction checks it), with the
// switching strategy of §3.2 on blocks the feeders already hold: ceil(m/2)
// rounds, every directed link carrying at most one message per round.
//
// The fully time-independent variant (`partial-cycles-ti`; §4.1's proof and
// §4.3 before Theorem 7: "giving up the switching") keeps one rule per port
// for the whole run. On the cycles, what arrives from one side leaves on the
// other, for Tc rounds. An off-cycle rank's feeder A passes on its own block
// and everything arriving from its far side (running towards the gap),
// feeder B likewise from the other side, for T rounds: the two streams cross
// the gap of l ranks and meet opposite it, after ceil((m + l + 2)/2) rounds
// at most. Packets so pass ranks that already hold them (relay receives).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "schedule/schedule.hpp"

namespace torusgather {

class PartialCyclesSchedule final : public Schedule {
 public:
  /// Throws std::invalid_argument if no axis order meets the conditions or
  /// the construction fails one of its checks.
  explicit PartialCyclesSchedule(const Torus& torus, bool time_independent = false);
  /// Empty when some order of the axes meets conditions (1)-(3).
  static std::string not_applicable(const Torus& torus);
  /// The rounds of the schedule the constructor builds (O(P d)): auto asks
  /// before profiling it; 1 where it does not build.
  static long long rounds_at_least(const Torus& torus);

  const char* name() const override { return ti_ ? "partial-cycles-ti" : "partial-cycles"; }
  std::string construction() const override;
  long long rounds() const override { return std::max(cycle_rounds_, feed_rounds_); }
  int colours() const override { return 1; }
  int claimed_max_link_messages_per_round() const override { return 1; }
  std::unique_ptr<RankProgram> program(Rank r) const override;
  /// The construction's own checks (simple link-disjoint cycles, every rank
  /// injecting once, two distinct feeders per off-cycle rank and cycle over
  /// free links used once) plus the feeding lemma; O(P*d).
  StructuralProof prove() const override;

  bool time_independent() const { return ti_; }
  /// Rounds of forwarding along the cycles (floor(m/2) when switching), and
  /// of feeding the off-cycle ranks (ceil(m/2); time-independent: the latest
  /// any of them completes).
  long long cycle_rounds() const { return cycle_rounds_; }
  long long feed_rounds() const { return feed_rounds_; }

  int cycles() const { return d_; }
  long long cycle_length() const { return m_; }
  /// Position of r on cycle c, or -1.
  long long position(Rank r, int c) const { return pos_[static_cast<std::size_t>(r * d_ + c)]; }
  /// The rank at position p (mod m) of cycle c.
  Rank at(int c, long long p) const { return seq_[static_cast<std::size_t>(c * m_ + wrap(p))]; }
  bool injects(Rank r, int c) const { return inject_[static_cast<std::size_t>(r)] == c; }
  /// Port of r towards the next (+1) or previous (-1) rank on cycle c.
  Port cycle_port(Rank r, int c, int dir) const;
  /// The ports of off-cycle rank r on which it is fed cycle c's blocks.
  Port feed_port(Rank r, int c, int which) const { return feed_[static_cast<std::size_t>((r * d_ + c) * 2 + which)]; }
  /// The torus axis playing x_{k+1} (the helix: x_1 along its runs, x_2
  /// down its rows).
  int paper_axis(int k) const { return order_[static_cast<std::size_t>(k)]; }
  /// Both sides odd: the helix's defect rows k (ranks on both cycles); else 0.
  long long helix_defects() const { return helix_defects_; }

  /// Who of r's two feeders for cycle c is A (the other is B), and the gap l:
  /// A sends positions a, a-1, ...; B sends b, b-1, ..., a+1, then a+l+2, ...
  struct Feeders {
    int a_which;
    long long a, l;
  };
  Feeders feeders(Rank r, int c) const;
  /// False if off-cycle rank r's feeder `which` sends nothing for cycle c in
  /// this round; else the position it sends, and whether r already holds it
  /// (a relay: time-independent only).
  bool fed_from(Rank r, int c, int which, long long round, long long* p, bool* relay) const;
  /// As above, with r's feeders for c already known (feeders(r, c)).
  bool fed_from(const Feeders& f, int which, long long round, long long* p, bool* relay) const;
  /// The rounds, ascending, in which some rank's rule changes (the cycles'
  /// halves, a feeder starting, switching or stopping); from one to the
  /// next every position sent moves by one per round. O(P d).
  std::vector<long long> rule_changes() const;

 private:
  long long wrap(long long p) const { return ((p % m_) + m_) % m_; }
  std::string build(const std::vector<int>& order);
  std::string build_helix(const std::vector<int>& order);
  /// Injection and feeders once the cycles are laid (`used`: cycle links).
  std::string bind(const std::vector<std::uint8_t>& used);
  void time_independent_rounds();

  bool ti_ = false;
  long long cycle_rounds_ = 0, feed_rounds_ = 0;
  int d_ = 0;
  long long m_ = 0;
  long long helix_defects_ = 0;  ///< both sides odd: the helix's defect rows k
  std::vector<int> order_;
  std::vector<long long> pos_;   ///< [r * d + c]
  std::vector<Rank> seq_;        ///< [c * m + p]
  std::vector<Port> move_;       ///< [c * m + p]: port from position p to p + 1
  std::vector<std::int8_t> inject_;
  std::vector<Port> feed_;       ///< [(r * d + c) * 2 + which], -1 if r is on c
};

}  // namespace torusgather
