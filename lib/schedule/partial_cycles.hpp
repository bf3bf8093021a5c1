// One-packet gossiping on partial cycles, 2D (Meyer & Sibeyn 1998, §4.1,
// Theorem 5). Two link-disjoint cycles of m = n1*n2/2 + n1 ranks each, made
// of n1/2 laps: the zigzag (+x1, +x2, +x1) followed by n2-1 moves along x2,
// the last over the wrap-around. Rows x2 = 0, 1 lie on both cycles, every
// other rank on one (its column's parity). Each rank injects its whole block
// on one cycle; it travels both ways round it. A rank off cycle c is fed
// cycle c's blocks over its otherwise unused x1 links by its two x1
// neighbours, both on c and l = n2+1 ranks apart on it, with the switching
// strategy of §3.2 (see partial_cycles.cpp): ceil(m/2) rounds.
#pragma once

#include <string>

#include "schedule/schedule.hpp"

namespace torusgather {

class PartialCyclesSchedule final : public Schedule {
 public:
  /// Throws std::invalid_argument where not_applicable() is non-empty.
  explicit PartialCyclesSchedule(const Torus& torus);
  /// Needs a 2D torus with one side even and >= 4 (x1) and the other >= 2 (x2).
  static std::string not_applicable(const Torus& torus);

  const char* name() const override { return "partial-cycles"; }
  std::string construction() const override;
  /// ceil(m/2): the cycles need floor(m/2); the feeders deliver 2 blocks per
  /// round, m in all, one round after the first arrivals.
  long long rounds() const override { return (cycle_length() + 1) / 2; }
  int colours() const override { return 1; }
  int claimed_max_link_messages_per_round() const override { return 1; }
  std::unique_ptr<RankProgram> program(Rank r) const override;

  long long cycle_length() const { return static_cast<long long>(n1_) * (n2_ + 2) / 2; }
  /// Position of r on cycle c, or -1 if r is not on it.
  long long position(Rank r, int c) const;
  /// The rank at position p of cycle c.
  Rank at(int c, long long p) const;
  /// Whether r injects its block on cycle c (exactly one c per rank).
  bool injects(Rank r, int c) const;
  /// Port of r towards the next (+1) or previous (-1) rank of cycle c.
  Port cycle_port(Rank r, int c, int dir) const;
  int x1_axis() const { return x1_; }

 private:
  int x1_ = 1, x2_ = 0;  ///< torus axes playing the paper's x1 (even side) and x2
  int n1_ = 0, n2_ = 0;
};

}  // namespace torusgather
