// SPDX-License-Identifier: BSD-3-Clause
// Bidirectional rings along each dimension in turn (Juurlink, Rao & Sibeyn,
// "approach 1" per axis, the highdimgos' colouring of Juurlink, Rao & Sibeyn §6.2).
// The block is cut into D colours, D = number of sides > 1; colour c runs the
// axes in the order c, c+1, ... so that all 2D links carry data. Any shape.
#pragma once

#include <vector>

#include "schedule/schedule.hpp"

namespace torusgather {

class DimRingsSchedule final : public Schedule {
 public:
  explicit DimRingsSchedule(const Torus& torus);

  const char* name() const override { return "dim-rings"; }
  /// Sum over the axes of floor(n_i / 2).
  long long rounds() const override { return rounds_; }
  int colours() const override { return static_cast<int>(axes_.size()); }
  int claimed_max_link_messages_per_round() const override { return max_link_messages_; }
  std::unique_ptr<RankProgram> program(Rank r) const override;
  /// A ring of n delivers everything in floor(n/2) bidirectional steps; after
  /// phase f a rank holds the sub-box of the axes processed so far, so the
  /// phases compose to the whole torus. Link loads come from the phase layout.
  StructuralProof prove() const override;

  /// The axis colour c uses in phase f.
  int phase_axis(int colour, int phase) const {
    return axes_[(colour + phase) % axes_.size()];
  }

 private:
  std::vector<int> axes_;
  long long rounds_ = 0;
  int max_link_messages_ = 0;
  double max_link_blocks_ = 0;
};

}  // namespace torusgather
