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
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "schedule/schedule.hpp"

namespace torusgather {

class PartialCyclesSchedule final : public Schedule {
 public:
  static constexpr int kMaxCycles = 16;

  /// Throws std::invalid_argument if no axis order meets the conditions or
  /// the construction fails one of its checks (O(P) time, O(1) memory, once
  /// per shape in the process).
  explicit PartialCyclesSchedule(const Torus& torus, bool time_independent = false);
  /// Empty when some order of the axes meets conditions (1)-(3).
  static std::string not_applicable(const Torus& torus);
  /// The rounds of the schedule the constructor builds (its O(P) checks):
  /// auto asks before profiling it; 1 where it does not build.
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
  /// What rank r needs of the construction, from r's coordinates alone:
  /// its position on each cycle (-1 if off it), its ports along each cycle,
  /// the cycle it injects on, and its two feed ports on each cycle it is off.
  struct Local {
    std::array<long long, kMaxCycles> pos{};
    std::array<std::array<Port, 2>, kMaxCycles> port{};  ///< [c][0]: towards +1, [1]: towards -1
    std::array<std::array<Port, 2>, kMaxCycles> feed{};  ///< -1 if r is on c
    std::array<std::array<long long, 2>, kMaxCycles> feed_pos{};  ///< those feeders' positions on c
    int inject = -1;
    bool fed = false;  ///< false if no two feeders were found on some cycle r is off
  };
  Local local(Rank r) const;
  /// Every rank's position on every cycle, [r * d + c] (-1: off it), made
  /// by walking the cycles: O(P d) memory, for the profile, which looks at
  /// every rank anyway.
  std::vector<long long> positions_table() const;
  /// local(r), reading positions from that table.
  Local local(Rank r, const std::vector<long long>& table) const;
  /// Position of r on cycle c, or -1 (closed form, O(d^2)).
  long long position(Rank r, int c) const;
  /// The rank at position p (mod m) of cycle c (closed form, O(d)).
  Rank at(int c, long long p) const;
  /// As above, and whether that rank injects on c (O(d^2)).
  Rank at(int c, long long p, bool* injects) const;
  bool injects(Rank r, int c) const;
  /// Port of r towards the next (+1) or previous (-1) rank on cycle c.
  Port cycle_port(Rank r, int c, int dir) const;
  /// Port along cycle c at its position p towards p + 1 (dir > 0) or p - 1.
  Port port_at(int c, long long p, int dir) const;
  /// The ports of off-cycle rank r on which it is fed cycle c's blocks.
  Port feed_port(Rank r, int c, int which) const { return local(r).feed[static_cast<std::size_t>(c)][static_cast<std::size_t>(which)]; }
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
  Feeders feeders(Rank r, int c) const { return feeders(local(r), c); }
  /// As above, from r's Local (its feeders' positions).
  Feeders feeders(const Local& own, int c) const;
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
  long long wrap(long long p) const {
    if (p >= 0) return p < m_ ? p : p % m_;
    return p >= -m_ ? p + m_ : ((p % m_) + m_) % m_;
  }
  /// Lays the cycles out for an axis order (the lap walk, or the helices);
  /// empty if that order gives them their sizes.
  std::string build(const std::vector<int>& order, bool helix);
  /// Checks the laid cycles and the feeders on every rank, O(P); empty if they hold.
  std::string check() const;
  void time_independent_rounds();

  // The lap walk (§4.3). Lap i (1-based) starts at S_{i-1} and makes the
  // moves of zigzag(d, J(i)); S_l's coordinates are in closed form.
  int lap_J(long long i) const;
  /// Paper axis (0-based) of the k-th move (k = 1..d) of zigzag(d, J).
  int zigzag_axis(int J, int k) const { return k >= 3 && k <= J + 1 ? k - 2 : 0; }
  /// The lap l in [0, laps) and the cycle c with S_l = z on c (z: paper
  /// coordinates x_1..x_{d-1}); exactly one cycle's lap starts there.
  long long lap_of(const long long* z, int* c) const;
  // The helices: row `row`'s run of cycle c, its first position and column.
  long long run(int c, long long row) const;
  long long row_start(int c, long long row) const;
  long long row_column(int c, long long row) const;
  /// Paper coordinates of the rank at position p of cycle c, and the paper
  /// axis of the move from p to p + 1.
  void place(int c, long long p, long long* x, int* move_axis) const;
  Rank rank_of(const long long* x) const;
  /// Paper coordinates of r.
  void coords_of(Rank r, long long* y) const;
  long long position_at(const long long* y, int c) const;
  /// The positions of the rank at paper coordinates y on every cycle (-1: off it).
  void positions_at(const long long* y, long long* pos) const;
  /// The cycle the rank at paper coordinates y injects on, or -1.
  int inject_at(const long long* y) const;
  /// As above, with its positions on every cycle at hand.
  int inject_of(const long long* y, const long long* pos) const;
  /// local(r), with positions from `table` (nullptr: from coordinates).
  Local local(Rank r, const long long* table) const;
  /// Paper axis of the move from position p of cycle c to p + 1.
  int move_axis(int c, long long p) const;

  bool ti_ = false;
  long long cycle_rounds_ = 0, feed_rounds_ = 0;
  int d_ = 0;
  long long m_ = 0;
  long long helix_defects_ = 0;  ///< both sides odd: the helix's defect rows k
  std::vector<int> order_;
  std::vector<int> paper_of_;    ///< inverse of order_: torus axis -> paper index
  std::vector<long long> n_;     ///< sides in paper order, n_1..n_d
  long long laps_ = 0, lap_ = 0; ///< laps per cycle, ranks per lap (n_d + d)
  std::vector<long long> M_;     ///< M_[j] = n_1/d * n_2 * ... * n_{j-1}, j = 2..d-1
  std::vector<Rank> stride_;     ///< rank step of one along x_{k+1}
};

}  // namespace torusgather
