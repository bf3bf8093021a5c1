// Two packets per rank on two partial Hamiltonian cycles of a 2D torus with
// one odd side (Meyer & Sibeyn 1998, §3.2, Theorem 3): P/2 steps.
//
// Rows are the even side (R >= 4), columns the odd side (C >= 3); the paper
// writes n1 x n2 with the odd side n1 counting columns (its Figure 2 is 6x7,
// column 5 special). Every column keeps the §3.1 rules (j even or j = C-1:
// T<->R, B<->L; else T<->L, B<->R) except column C-2, which only passes
// L<->R. The strands then close into two cycles of P - R/2 ranks; each rank
// of column C-2 lies on one of them (they alternate down the column) and its
// vertical links are free.
//
// The block is cut into two parts. A rank on both cycles puts part c on
// cycle c. A rank of column C-2 puts both parts on its one cycle, as two
// consecutive virtual positions, so each cycle carries exactly P packets and
// runs as a cycle of P positions both ways: P/2 rounds, the last one bringing
// the antipode from both sides in halves (a rank holding two positions
// already has both of its antipodes then, so it gets nothing). A rank off
// cycle c is fed c's packets by its top and bottom neighbours, both on c,
// over the free vertical links, with §3.2's switching strategy: feeder A (the
// top one) passes on its forward stream all P/2 rounds; feeder B (the bottom
// one) first its forward stream until it has sent the K positions from its
// own last back to A's last + 1, then the positions beyond itself in order.
// So the off rank gets all P positions once in P/2 rounds over its two free
// links. K = 2C for every such rank: the "fixed switch step computed in
// constant time" of the paper (which counts l = 2 n1 - 1 on-cycle PUs between
// A and B; here 2C - 2 ranks lie between them and B holds two positions).
//
// The text's §3.3 (both sides odd) needs its Figure 4 (row n2-2's rules as
// printed do not close into two cycles here); that shape is declined.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "schedule/schedule.hpp"

namespace torusgather {

class HamiltonianPartialSchedule final : public Schedule {
 public:
  /// Throws std::invalid_argument if a check of the construction fails.
  explicit HamiltonianPartialSchedule(const Torus& torus);
  /// Empty for two active sides, one odd (>= 3) and one even (>= 4).
  static std::string not_applicable(const Torus& torus);

  const char* name() const override { return "hamiltonian-partial"; }
  std::string construction() const override;
  /// Theorem 3: n1 * n2 / 2.
  long long rounds() const override { return torus().size() / 2; }
  int colours() const override { return 2; }
  int claimed_max_link_messages_per_round() const override { return 1; }
  /// Every round's largest message is one part (a feeder's), half a block.
  double claimed_blocks_sum() const override { return 0.5 * static_cast<double>(rounds()); }
  std::unique_ptr<RankProgram> program(Rank r) const override;
  /// From the constructor's checks and the two lemmas (a cycle of P
  /// positions both ways; the switching feed), O(P): for tori too large to
  /// step through.
  StructuralProof prove() const override;

  /// The torus axis of the rows (even side) and of the columns (odd side).
  int row_axis() const { return row_axis_; }
  int column_axis() const { return column_axis_; }
  /// Ranks on cycle c (P - R/2).
  long long cycle_ranks() const { return cycle_ranks_; }
  /// First virtual position of r on cycle c (0..P-1), or -1 if r is off c.
  long long position(Rank r, int c) const { return first_[static_cast<std::size_t>(r * 2 + c)]; }
  /// Virtual positions r holds on cycle c: 0, 1 or 2.
  int positions(Rank r, int c) const;
  /// The rank at virtual position p (mod P) of cycle c, and the part of its
  /// block that position carries.
  Rank at(int c, long long p) const { return seq_[index(c, p)]; }
  int part(int c, long long p) const { return part_[index(c, p)]; }
  /// Port of r towards the next (+1) or previous (-1) rank on cycle c.
  Port cycle_port(Rank r, int c, int dir) const {
    return port_[static_cast<std::size_t>((r * 2 + c) * 2 + (dir > 0 ? 0 : 1))];
  }
  /// The cycle r is off (a rank of column C-2), or -1.
  int off_cycle(Rank r) const;
  /// An off-cycle rank is fed by feeder A on its top port (which = 0) and by
  /// feeder B on its bottom port (which = 1).
  Port feed_port(int which) const { return make_port(row_axis_, which == 1); }
  /// §3.2's fixed switch step, the same for every off-cycle rank: B's forward
  /// stream runs K = 2C rounds (from B's last position back to A's last + 1)
  /// before B turns to the positions beyond itself. The constructor checks it
  /// against the traced cycles.
  long long switch_round() const { return 2LL * torus().dim(column_axis_); }
  /// The virtual position feeder `which` sends to off-cycle rank r in round t.
  long long fed_position(Rank r, int which, long long t) const;

 private:
  std::size_t index(int c, long long p) const {
    const long long P = torus().size();
    return static_cast<std::size_t>(c * P + ((p % P) + P) % P);
  }
  Port rule(Rank r, Port in) const;

  int row_axis_ = 0, column_axis_ = 1;
  long long cycle_ranks_ = 0;
  std::vector<long long> first_;  ///< [r * 2 + c]
  std::vector<Rank> seq_;         ///< [c * P + p]
  std::vector<std::uint8_t> part_;
  std::vector<Port> port_;        ///< [(r * 2 + c) * 2 + (forward ? 0 : 1)]
};

}  // namespace torusgather
