// SPDX-License-Identifier: BSD-3-Clause
// Bidirectional rings along each dimension in turn (Juurlink, Rao & Sibeyn,
// "approach 1" per axis, the highdimgos' colouring of Juurlink, Rao & Sibeyn §6.2).
// The block is cut into C colours, C <= D = number of sides > 1; colour c
// runs the axes in the order c, c+1, ... so that with C = D all 2D links
// carry data. Any shape. Fewer colours, and the antipode's group sent whole
// one way instead of in halves both ways, mean fewer messages per round: the
// variants for small blocks, chosen per call from r = α/(sβ). Where sides
// of 2 with one link (both ways to the one neighbour) stand beside longer
// sides, a colour that ends on one pushes its largest phase through one
// link while the others idle: the short-first order runs those sides
// first, while the groups are small, and rotates the colours over the
// others alone.
#pragma once

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "schedule/dim_rings_weights.hpp"
#include "schedule/schedule.hpp"

namespace torusgather {

/// dim-rings' variant: TORUSGATHER_DIM_RINGS's "C,halves", "C,whole",
/// either with ",short", or "balanced".
struct DimRingsParams {
  /// 0: one per axis the colours rotate over (the paper's colouring).
  int colours = 0;
  /// The last step of an even ring carries the antipode's group whole,
  /// towards +axis only, instead of a half each way.
  bool whole_antipode = false;
  /// Every side of 2 with one link first, for every colour; the colours
  /// rotate over the other sides (where there are both).
  bool short_first = false;
  /// Every rotation of the axes and its reverse, weighted, as streams
  /// (colours and the others are then unused).
  bool balanced = false;
  /// Balanced: two open axes, or an open axis and a side of 2 of one link,
  /// run as one cycle of their grid (Ring::snake), not as two lines.
  bool snakes = false;
  /// Several colours run in step, each round waiting for them all, not as
  /// streams ("C,...,step"): where a node axis is one of the torus's axes,
  /// colours that drift apart meet on the same links.
  bool in_step = false;
};

class DimRingsSchedule final : public Schedule {
 public:
  explicit DimRingsSchedule(const Torus& torus, DimRingsParams params = {});
  DimRingsSchedule(const Torus& torus, int colours, bool whole_antipode = false)
      : DimRingsSchedule(torus, DimRingsParams{colours, whole_antipode, false, false}) {}

  const char* name() const override { return "dim-rings"; }
  /// Sum over the axes of floor(n_i / 2), n_i − 1 on an open axis.
  long long rounds() const override { return rounds_; }
  int colours() const override { return colours_; }
  /// One phase per side > 1, or per plane and other side.
  int phases() const { return orders_.empty() ? 0 : static_cast<int>(orders_.front().size()); }
  bool whole_antipode() const { return whole_; }
  /// The variant as built (colours resolved, short_first only where it applies).
  DimRingsParams params() const { return DimRingsParams{colours_, whole_, short_first_, balanced_, snakes_, in_step_}; }
  /// Every colour moves only its own piece, so several run as streams
  /// unless the variant says in step.
  bool independent_colours() const override { return balanced_ || (colours_ > 1 && !in_step_); }
  Piece colour_piece(int colour) const override { return piece(colour); }
  /// The streams' time in the fluid model (balanced, or several colours
  /// not in step), in one block's time over one link (0 for the others).
  double fluid_blocks() const { return fluid_blocks_; }
  double streams_link_blocks() const override { return fluid_blocks_; }
  /// fluid_blocks() where the node passes at most `inject` links' worth in
  /// and out together (0: no limit).
  double fluid_blocks(double inject) const;
  int claimed_max_link_messages_per_round() const override { return max_link_messages_; }
  std::unique_ptr<RankProgram> program(Rank r) const override;
  /// A ring of n delivers everything in floor(n/2) bidirectional steps, a
  /// line of an open axis in n − 1; after
  /// phase f a rank holds the sub-box of the axes processed so far, so the
  /// phases compose to the whole torus. Link loads come from the phase layout.
  StructuralProof prove() const override;

  /// The ring colour c uses in phase f, and its axis.
  const Ring& phase_ring(int colour, int phase) const {
    return orders_[static_cast<std::size_t>(colour)][static_cast<std::size_t>(phase)];
  }
  int phase_axis(int colour, int phase) const { return phase_ring(colour, phase).axis; }
  /// Colour c's share of a block.
  double weight(int colour) const {
    return units_.empty() ? 1.0 / colours_ : static_cast<double>(units_[static_cast<std::size_t>(colour)]) / Piece::kUnits;
  }
  /// Colour c's piece of a block, before halving.
  Piece piece(int colour) const;

  /// One colour's messages in one round: along `axis`, each carrying
  /// `blocks` whole blocks (its group over the colours, halved where it
  /// goes both ways to the antipode), `messages` of them (2, or 1 when the
  /// antipode's group goes whole); on a plane's lane 0 or 1, where `lane`
  /// >= 0.
  struct ColourStep {
    int axis;
    double blocks;
    int messages;
    int lane = -1;
    /// On an open axis's line of n: n and the step k (1..n−1); the rank at
    /// x sends towards + where x ≥ k−1 and receives from − where x ≥ k
    /// (mirrored towards −). 0 on a ring, where every rank does the same.
    int line = 0;
    long long step = 0;
    /// Its blocks on the busiest link of its axis, towards - (dir[0]) and +
    /// (dir[1]): a line's messages one each way, a lane's two on two links
    /// of its own, counted as lane 0 towards + and lane 1 towards -.
    void add_load(std::vector<double> (&dir)[2]) const {
      const auto a = static_cast<std::size_t>(axis);
      dir[lane == 1 ? 0 : 1][a] += blocks;
      if (messages == 2 && lane < 0) dir[0][a] += blocks;
    }
    /// The busiest link of axis a from those loads: a shared link takes both directions.
    static double busiest(const Torus& t, const std::vector<double> (&dir)[2], std::size_t a) {
      return t.shared_link(static_cast<int>(a)) ? dir[0][a] + dir[1][a] : std::max(dir[0][a], dir[1][a]);
    }
  };
  /// Calls f(rounds, steps, dir) once per run of alike rounds, in order:
  /// the run's length, its colour steps and their blocks per axis towards
  /// − (dir[0]) and + (dir[1]) (add_load). O(C · (C + phases)) per run, at
  /// most 2 · C · phases runs on rings; a line's rounds are one run each.
  void for_each_run(
      const std::function<void(long long, const std::vector<ColourStep>&, const std::vector<double> (&)[2])>& f) const;
  /// What the busiest rank sends and receives in a round of these steps
  /// (each a maximum of its own over the ranks): O(C²) per round.
  struct RankMost {
    int sends = 0, recvs = 0;
    double recv_blocks = 0;
    double moved_blocks = 0;  ///< sent and received together (a line's inner ranks pass on more)
  };
  static RankMost most_per_rank(const std::vector<ColourStep>& round);

  /// Parameters as text, "C,halves" or "C,whole", ",short" added for the
  /// short-first order, ",step" for colours in step (TORUSGATHER_DIM_RINGS).
  static std::string to_string(const DimRingsParams& p);
  static std::string to_string(int colours, bool whole_antipode) {
    return to_string(DimRingsParams{colours, whole_antipode, false, false});
  }
  static bool parse(const std::string& text, const Torus& torus, DimRingsParams* out, std::string* why);
  /// The variant cheapest for r = α/(sβ) and a software cost of q·α per
  /// message beyond a round's first send and receive, among 1 and D
  /// colours. The paper's (D colours, halves) unless another is at least
  /// 5 % cheaper: the model cannot see what else a message costs, and ties
  /// go to the paper. Where every axis is network links (`all_network`),
  /// short-first (sides of 2 beside longer ones, a colour per side > 2)
  /// and then balanced take the paper's place where 5 % cheaper. (This
  /// cost counts every axis as network links: with a node axis it moved
  /// tofud's 4 ranks per node at 1 KiB from 104 to 134 us in SimGrid.)
  /// Without `all_network` several colours run in step (",step").
  /// `streams`: whether balanced may be chosen; `inject`: the node's
  /// injection limit in links (what it sends and receives together), 0 for none.
  static std::string best(const Torus& torus, double r, double q, bool all_network = true, bool streams = true,
                          double inject = 0);
  /// The cost `best` weighs, in one block's time over one link. In step:
  /// rounds · r · (1 + q · (2 · messages − 2)), each round's busiest link,
  /// and what passes the node over `inject`. As streams (balanced, or
  /// several colours): each round priced as predict() prices it, with the
  /// fluid time (links and `inject` together) spread as the rounds receive.
  static double model_cost(const Torus& torus, const DimRingsParams& v, double r, double q, double inject = 0);
  /// Whether the balanced colours can run two open axes as a snake.
  static bool has_snake(const Torus& torus);
  /// Balanced lines, or snakes where the torus has them, the machine an
  /// injection limit, and model_cost (with the limit) finds them cheaper.
  /// Whether streams beat the colours in step is asked of the lines' cost,
  /// without the limit.
  static DimRingsParams streams_variant(const Torus& torus, double r, double q, double inject);
  /// What balanced streams cost at least under model_cost: every round's
  /// start-up and (P − 1) blocks over the node's links. Below it nothing
  /// needs their weights (a search of milliseconds).
  static double balanced_floor(const Torus& torus, double r);

 private:
  std::vector<int> axes_;     ///< the sides > 1
  std::vector<int> shorts_;   ///< short-first: the sides of one link, run first by every colour
  std::vector<int> rotated_;  ///< the axes the colours rotate over
  std::vector<AxisOrder> orders_;  ///< per colour
  std::vector<long long> units_;   ///< balanced: per colour, of Piece::kUnits
  std::vector<long long> first_;   ///< balanced: where each colour's units start
  bool balanced_ = false;
  bool snakes_ = false;  ///< balanced: asked to run snakes where the torus has them
  double fluid_blocks_ = 0;
  int colours_ = 0;
  bool whole_ = false;
  bool short_first_ = false;
  bool in_step_ = false;
  long long rounds_ = 0;
  int max_link_messages_ = 0;
  double max_link_blocks_ = 0;
};

}  // namespace torusgather
