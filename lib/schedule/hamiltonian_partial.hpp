// SPDX-License-Identifier: BSD-3-Clause
// Two packets per rank on two partial Hamiltonian cycles of a 2D torus with
// an odd side (Meyer & Sibeyn 1998, §3.2 Theorem 3, §3.3 Theorem 4):
// ceil(P/2) steps.
//
// §3.2, one side even. Rows are the even side (R >= 4), columns the odd side
// (C >= 3); the paper writes n1 x n2 with the odd side n1 counting columns
// (its Figure 2 is 6x7, column 5 special). Every column keeps the §3.1 rules
// (j even or j = C-1: T<->R, B<->L; else T<->L, B<->R) except column C-2,
// which only passes L<->R. The strands then close into two cycles of
// P - R/2 ranks; each rank of column C-2 lies on one of them (they alternate
// down the column) and its vertical links are free.
//
// §3.3, both sides odd (R, C >= 3). The text's row rules do not close (see
// docs/algorithms.md) and its Figure 4 is lost, so this is our own rule set
// in the section's terms, found by a search over the rules of the last two
// rows (docs/algorithms.md); the constructor checks it on every shape, the
// unit tests step 23 odd shapes through round by round.
// Rows 0..R-3 keep §3.2's rules. Row R-2 keeps §3.1's rules but for
// (R-2, C-2): B<->L only, and (R-2, C-1): T<->R only. Row R-1 passes straight
// on (T<->B, L<->R) but for (R-1, C-2): T<->L only, and (R-1, C-1): B<->R
// only. The strands close into two simple cycles, of P - (R+3)/2 and
// P - (R+1)/2 ranks, that together visit every rank; the ranks on one cycle
// (column C-2, and (R-2, C-1), (R-1, C-1)) are fed the other's packets by two
// neighbours on it over free links, except (R-1, C-2) and (R-1, C-1): each has
// one such neighbour and passes what it gets from it on to the other one, a
// feeder at distance two (the section's "OOC-PUs [that] forward a packet
// that they received in their capacity as an OOC-PU to an adjacent OOC-PU").
//
// The block is cut into two parts. A rank on both cycles puts part c on
// cycle c. A rank on one cycle puts both parts on it, as two consecutive
// virtual positions, so cycle c carries M_c packets (P each in §3.2; P - 1
// and P + 1 in §3.3) and runs as a cycle of M_c positions both ways: M_c/2
// rounds, the last one bringing the antipode from both sides in halves (a
// rank holding two positions already has both of its antipodes then, so it
// gets nothing). A rank off cycle c is fed c's packets over two free links
// with §3.2's switching strategy: feeder A passes on its forward stream
// (its last position, then backwards); feeder B first its forward stream
// until it has sent the K positions from its own last back to A's last + 1,
// then the positions beyond itself in order. So the off rank gets all M_c
// positions once in M_c/2 rounds. In §3.2, K = 2C for every such rank: the
// paper's "fixed switch step computed in constant time" (it counts
// l = 2 n1 - 1 on-cycle PUs between A and B; here 2C - 2 ranks lie between
// them and B holds two positions). The two relaying ranks of §3.3 are off
// the shorter cycle (P - 1 positions, (P + 1)/2 rounds): each gets its own
// feeder's stream for (P + 1)/2 rounds and the other's, one round late, for
// (P - 1)/2; the two switch steps are chosen so that each pair of streams
// covers the cycle, and a relayed position the rank already gets from its
// own feeder is not sent.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "schedule/schedule.hpp"

namespace torusgather {

class HamiltonianPartialSchedule final : public Schedule {
 public:
  /// Throws std::invalid_argument if a check of the construction fails
  /// (O(P) time, O(1) memory: both cycles walked once per shape in the process).
  explicit HamiltonianPartialSchedule(const Torus& torus);
  /// Empty for two active sides, one odd (>= 3) and one even (>= 4), or both
  /// odd (>= 3).
  static std::string not_applicable(const Torus& torus);

  const char* name() const override { return "hamiltonian-partial"; }
  std::string construction() const override;
  /// Theorems 3 and 4: ceil(n1 * n2 / 2).
  long long rounds() const override { return (torus().size() + 1) / 2; }
  int colours() const override { return 2; }
  int claimed_max_link_messages_per_round() const override { return 1; }
  /// Every round's largest message is one part (a feeder's), half a block.
  double claimed_blocks_sum() const override { return 0.5 * static_cast<double>(rounds()); }
  std::unique_ptr<RankProgram> program(Rank r) const override;
  /// From the constructor's checks and the two lemmas (a cycle of M
  /// positions both ways; the switching feed), O(P): for tori too large to
  /// step through.
  StructuralProof prove() const override;

  /// True for §3.3 (both sides odd).
  bool both_odd() const { return both_odd_; }
  /// The torus axis of the rows (the even side in §3.2) and of the columns.
  int row_axis() const { return row_axis_; }
  int column_axis() const { return column_axis_; }
  /// Ranks on cycle c, and the virtual positions it carries (M_c).
  long long cycle_ranks(int c) const { return ranks_[c]; }
  long long cycle_positions(int c) const { return m_[c]; }

  /// A rank by its row i and column j.
  struct Place {
    long long i = 0, j = 0;
  };
  Place place(Rank r) const { return {torus().coord(r, row_axis_), torus().coord(r, column_axis_)}; }
  Rank rank(Place x) const { return x.i * row_stride_ + x.j * column_stride_; }
  /// The cycle the rank at x is off (its one strand is the other's), or -1.
  int off_cycle(Place x) const;
  int off_cycle(Rank r) const { return off_cycle(place(r)); }
  /// Virtual positions the rank holds on cycle c: 0, 1 (on both cycles:
  /// part c) or 2 (on c only: both parts, in order).
  int positions(Place x, int c) const {
    const int off = off_cycle(x);
    return off == c ? 0 : off >= 0 ? 2 : 1;
  }
  int positions(Rank r, int c) const { return positions(place(r), c); }
  /// Port of the rank towards the next (+1) or previous (-1) rank on cycle
  /// c, or -1 if it is off c: the forwarding rules with each strand's cycle
  /// and direction in closed form (checked against the walk of both cycles).
  Port cycle_port(Place x, int c, int dir) const;
  Port cycle_port(Rank r, int c, int dir) const { return cycle_port(place(r), c, dir); }

  /// One of the two streams that feed an off-cycle rank: the feeder
  /// `anchor` on the cycle sends, as its u-th message (u = 1..n), the
  /// position u - 1 before its last one while u <= k, then the one u - k
  /// after it; k >= n: only backwards (feeder A). It arrives `delay` rounds
  /// after it is sent (1: passed on by the other relaying rank of §3.3).
  /// `last` is the anchor's last position where the construction needs it
  /// (§3.3's relaying pair: which relayed positions the rank gets anyway),
  /// else -1.
  struct Stream {
    Port port = -1;  ///< where the off-cycle rank receives it
    Rank anchor = -1;
    long long last = -1, k = 0, n = 0;
    int delay = 0;
    /// Its u-th message's distance from the anchor's last position.
    long long offset(long long u) const { return u <= k ? -(u - 1) : u - k; }
    /// The first position of the arc it covers, [low, low + n) (needs `last`).
    long long low() const { return last - std::min(k, n) + 1; }
  };
  /// Whether relayed stream s's u-th position is one the fed rank's own
  /// stream brings too (then it is not passed on); M: the cycle's positions.
  static bool brought_anyway(const Stream& s, const Stream& own, long long u, long long M);
  /// The place one step through port p.
  Place moved(Place x, Port p) const;
  /// Steps x one virtual position forward (dir > 0) or back along cycle c;
  /// k is the position within the rank (0, or 0..1 on a rank of two).
  void step(Place* x, int* k, int c, int dir) const;

  /// Off-cycle rank r's stream `which` (0 or 1).
  Stream feed(Rank r, int which) const;
  /// Whether stream `which` of off-cycle rank r brings it a position in
  /// round t; then `offset`: that position's distance from the anchor's
  /// last one (negative: before it).
  bool fed_offset(Rank r, int which, long long t, long long* offset) const;

 private:
  /// The port a packet entering the rank at x on `in` leaves on; -1: free.
  Port rule(Place x, Port in) const;
  /// Whether x is an off-cycle rank of §3.3's first or last two rows, whose
  /// feeders are not 2C apart: its streams are kept (special_).
  bool special(Place x) const;
  std::string walk_and_check();

  bool both_odd_ = false;
  int row_axis_ = 0, column_axis_ = 1;
  long long R_ = 0, C_ = 0;
  Rank row_stride_ = 0, column_stride_ = 0;
  long long ranks_[2] = {0, 0}, m_[2] = {0, 0};
  struct Special {
    Rank rank = -1;
    Stream streams[2];
  };
  std::vector<Special> special_;  ///< §3.3 only: at most 6
};

}  // namespace torusgather
