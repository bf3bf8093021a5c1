// SPDX-License-Identifier: BSD-3-Clause
// Gossiping along d edge-disjoint Hamiltonian cycles, block cut into d parts,
// part c both ways round cycle c: floor(P/2) steps (Meyer & Sibeyn 1998, §3).
// The cycles come from a decomposition of the torus's links:
// - 2D with both sides even: the time-independent forwarding rules of §3.1
//   (Theorem 2), O(1) per rank;
// - other 2D shapes and d >= 3 (§3.4): closed forms for k x k and for
//   gcd(m, n) > 1, else the 4-cycle switch search (decomposition.hpp).
#pragma once

#include <memory>
#include <string>

#include "schedule/cycles.hpp"
#include "schedule/decomposition.hpp"

namespace torusgather {

class HamiltonianSchedule final : public CycleSchedule {
 public:
  /// Throws std::invalid_argument if no decomposition could be built.
  explicit HamiltonianSchedule(const Torus& torus);
  /// Empty: every shape is attempted; the switch search may still fail, which
  /// the constructor reports.
  static std::string not_applicable(const Torus& torus);

  const char* name() const override { return "hamiltonian"; }
  Port partner(Rank r, Port in) const override;
  int colour(Rank r, Port p) const override;
  /// Which construction gave the cycles.
  std::string construction() const override { return colouring_->construction(); }

 private:
  std::shared_ptr<const LinkColouring> colouring_;
  std::vector<int> axis_index_;  ///< axis -> index among the active axes, -1 if side 1
};

/// Meyer & Sibeyn §3.1's rule at rank r (rows along row_axis, columns along
/// column_axis): j even or j = n2-1: T<->R, B<->L; else T<->L, B<->R. The
/// port a packet entering on `in` leaves on; -1 for a port of another axis.
Port section31_partner(const Torus& t, int row_axis, int column_axis, Rank r, Port in);

/// Meyer & Sibeyn §3.1 as a link colouring (2D, both sides even), exposed for tests.
std::unique_ptr<LinkColouring> section31_decomposition(const Torus& t);

}  // namespace torusgather
