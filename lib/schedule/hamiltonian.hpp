// Two edge-disjoint Hamiltonian cycles on a 2D torus with both sides even,
// by the time-independent forwarding rules of Meyer & Sibeyn 1998, §3.1
// (Theorem 2): n1*n2/2 steps with the block cut into two halves.
#pragma once

#include <string>

#include "schedule/cycles.hpp"

namespace torusgather {

class HamiltonianSchedule final : public CycleSchedule {
 public:
  /// Throws std::invalid_argument where not_applicable() is non-empty.
  explicit HamiltonianSchedule(const Torus& torus);
  /// Empty when the construction applies to the shape, else the reason.
  static std::string not_applicable(const Torus& torus);

  const char* name() const override { return "hamiltonian"; }
  Port partner(Rank r, Port in) const override;
  int colour(Rank r, Port p) const override;
};

}  // namespace torusgather
