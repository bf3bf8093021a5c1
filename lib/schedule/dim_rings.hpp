// SPDX-License-Identifier: BSD-3-Clause
// Bidirectional rings along each dimension in turn (Juurlink, Rao & Sibeyn,
// "approach 1" per axis, the highdimgos' colouring of Juurlink, Rao & Sibeyn §6.2).
// The block is cut into C colours, C <= D = number of sides > 1; colour c
// runs the axes in the order c, c+1, ... so that with C = D all 2D links
// carry data. Any shape. Fewer colours, and the antipode's group sent whole
// one way instead of in halves both ways, mean fewer messages per round: the
// variants for small blocks, chosen per call from r = α/(sβ).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "schedule/schedule.hpp"

namespace torusgather {

class DimRingsSchedule final : public Schedule {
 public:
  /// colours 0: one per side > 1 (the paper's colouring). whole_antipode:
  /// the last step of an even ring carries the antipode's group whole,
  /// towards +axis only, instead of a half each way.
  explicit DimRingsSchedule(const Torus& torus, int colours = 0, bool whole_antipode = false);

  const char* name() const override { return "dim-rings"; }
  /// Sum over the axes of floor(n_i / 2).
  long long rounds() const override { return rounds_; }
  int colours() const override { return colours_; }
  /// One phase per side > 1.
  int phases() const { return static_cast<int>(axes_.size()); }
  bool whole_antipode() const { return whole_; }
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

  /// One colour's messages in one round: along `axis`, each carrying
  /// `blocks` whole blocks (its group over the colours, halved where it
  /// goes both ways to the antipode), `messages` of them (2, or 1 when the
  /// antipode's group goes whole).
  struct ColourStep {
    int axis;
    double blocks;
    int messages;
  };
  /// Calls f(round, step) for every colour at work, rounds in order: O(rounds · C).
  void for_each_step(const std::function<void(long long, const ColourStep&)>& f) const;

  /// Parameters as text, "C,halves" or "C,whole" (TORUSGATHER_DIM_RINGS).
  static std::string to_string(int colours, bool whole_antipode);
  static bool parse(const std::string& text, const Torus& torus, int* colours, bool* whole_antipode, std::string* why);
  /// The variant cheapest for r = α/(sβ) and a software cost of q·α per
  /// message beyond a round's first send and receive, among 1 and D
  /// colours. The paper's (D colours, halves) unless another is at least
  /// 5 % cheaper: the model cannot see what else a message costs, and ties
  /// go to the paper.
  static std::string best(const Torus& torus, double r, double q);

 private:
  std::vector<int> axes_;
  int colours_ = 0;
  bool whole_ = false;
  long long rounds_ = 0;
  int max_link_messages_ = 0;
  double max_link_blocks_ = 0;
};

}  // namespace torusgather
