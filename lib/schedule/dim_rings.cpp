// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/dim_rings.hpp"

#include <algorithm>
#include <string>

namespace torusgather {
namespace {

long long ring_steps(int n) { return n / 2; }

/// Where colour c is in global round t (1-based): its phase and step in it.
struct Position {
  int phase;
  long long step;  ///< 1-based step within the phase
};

Position locate(const DimRingsSchedule& s, int colour, long long round) {
  long long before = 0;
  for (int f = 0; f < s.colours(); ++f) {
    const long long len = ring_steps(s.torus().dim(s.phase_axis(colour, f)));
    if (round <= before + len) return {f, round - before};
    before += len;
  }
  return {-1, 0};
}

class DimRingsProgram final : public RankProgram {
 public:
  DimRingsProgram(const DimRingsSchedule& s, Rank self) : s_(s), self_(self) {}

  void next_round(RoundOps& ops) override {
    ops.clear();
    ++round_;
    const Torus& t = s_.torus();
    const auto colours = static_cast<std::uint16_t>(s_.colours());
    for (int c = 0; c < s_.colours(); ++c) {
      const Position at = locate(s_, c, round_);
      if (at.phase < 0) continue;
      const int axis = s_.phase_axis(c, at.phase);
      std::uint32_t done = 0;  // axes this colour has already gathered
      for (int f = 0; f < at.phase; ++f) done |= 1u << s_.phase_axis(c, f);
      const int n = t.dim(axis);
      // On an even ring the last step brings the opposite group from both
      // sides: the one travelling towards +axis carries the first half.
      const bool halves = n % 2 == 0 && at.step == n / 2;
      const auto piece = [&](bool towards_plus) {
        return Piece{static_cast<std::uint16_t>(c), colours,
                     static_cast<std::uint8_t>(halves ? (towards_plus ? 1 : 2) : 0)};
      };
      const auto group = [&](long long delta) {
        return BlockSet{t.clear_axes(t.shift(self_, axis, delta), done), done};
      };
      // Travelling towards +axis: received on the minus port, from step ago.
      ops.recvs.push_back({make_port(axis, false), group(-at.step), piece(true)});
      ops.recvs.push_back({make_port(axis, true), group(at.step), piece(false)});
      ops.sends.push_back({make_port(axis, true), group(-(at.step - 1)), piece(true)});
      ops.sends.push_back({make_port(axis, false), group(at.step - 1), piece(false)});
    }
  }

 private:
  const DimRingsSchedule& s_;
  Rank self_;
  long long round_ = 0;
};

}  // namespace

DimRingsSchedule::DimRingsSchedule(const Torus& torus) : Schedule(torus), axes_(torus.active_axes()) {
  for (int a = 0; a < torus.ndims(); ++a) rounds_ += ring_steps(torus.dim(a));
  // Colours start on different axes but phases of unequal length can bring
  // two colours onto the same axis in one round: count the worst round.
  for (long long r = 1; r <= rounds_; ++r) {
    std::vector<int> per_axis(torus.ndims(), 0);
    std::vector<double> blocks(torus.ndims(), 0.0);
    for (int c = 0; c < colours(); ++c) {
      const Position at = locate(*this, c, r);
      if (at.phase < 0) continue;
      const int axis = phase_axis(c, at.phase);
      ++per_axis[axis];
      double group = 1;  // blocks per message: the sides gathered so far
      for (int f = 0; f < at.phase; ++f) group *= torus.dim(phase_axis(c, f));
      const int n = torus.dim(axis);
      blocks[axis] += group / colours() * ((n % 2 == 0 && at.step == n / 2) ? 0.5 : 1.0);
    }
    max_link_messages_ = std::max(max_link_messages_, *std::max_element(per_axis.begin(), per_axis.end()));
    max_link_blocks_ = std::max(max_link_blocks_, *std::max_element(blocks.begin(), blocks.end()));
  }
}

std::unique_ptr<RankProgram> DimRingsSchedule::program(Rank r) const {
  return std::make_unique<DimRingsProgram>(*this, r);
}

StructuralProof DimRingsSchedule::prove() const {
  StructuralProof proof;
  proof.supported = true;
  // One ring of n: after floor(n/2) bidirectional steps a rank has received
  // the blocks at distances 1..ceil(n/2)-1 from both sides, and, if n is even,
  // both halves of the one at distance n/2. Count that for every side used.
  for (int a : axes_) {
    const int n = torus().dim(a);
    const long long from_both = 2 * (ring_steps(n) - (n % 2 == 0 ? 1 : 0));
    const long long antipode = n % 2 == 0 ? 1 : 0;
    if (from_both + antipode != n - 1) {
      proof.detail = "ring of " + std::to_string(n) + " does not deliver every block";
      return proof;
    }
  }
  proof.complete = true;
  proof.rounds = rounds_;
  proof.max_link_messages_per_round = max_link_messages_;
  proof.max_link_blocks_per_round = max_link_blocks_;
  // Phase f sends prod(previous sides) * (n_f - 1) parts: telescopes to P - 1.
  proof.volume_per_rank_blocks = static_cast<double>(torus().size() - 1);
  proof.detail = "bidirectional rings along " + std::to_string(axes_.size()) + " axes in " +
                 std::to_string(axes_.size()) + " colours";
  return proof;
}

}  // namespace torusgather
