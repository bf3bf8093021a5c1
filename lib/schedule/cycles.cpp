// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/cycles.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace torusgather {
namespace {

class CycleProgram final : public RankProgram {
 public:
  CycleProgram(const CycleSchedule& s, Rank self) : s_(s), self_(self) {
    const int ports = s.torus().ports();
    origin_.resize(ports);
    leave_.resize(ports);
    last_.assign(ports, self);
    for (Port p = 0; p < ports; ++p) {
      origin_[p] = s.torus().neighbor(self, p);  // round 1: the neighbour's own block
      leave_[p] = opposite(p);
    }
  }

  void next_round(RoundOps& ops) override {
    ops.clear();
    ++round_;
    const Torus& t = s_.torus();
    const bool halves = round_ == s_.rounds() && t.size() % 2 == 0;
    const auto colours = static_cast<std::uint16_t>(s_.colours());
    for (const Port p : s_.ports()) {
      Piece in{static_cast<std::uint16_t>(s_.colour(self_, p)), colours, 0};
      if (halves) in.half = s_.last_round_half(self_, p);
      ops.recvs.push_back({p, {origin_[p], 0}, in});
      // What leaves on q is what arrived last round on partner(q): in round 1
      // that is our own block (last_ starts as self).
      const Port q = p;
      Piece out{static_cast<std::uint16_t>(s_.colour(self_, q)), colours, 0};
      if (halves) out.half = s_.last_round_half(t.neighbor(self_, q), opposite(q));
      ops.sends.push_back({q, {last_[s_.partner(self_, q)], 0}, out});
    }
    // Walk every stream one hop further back for the next round.
    for (const Port p : s_.ports()) {
      last_[p] = origin_[p];
      const Port entered = s_.partner(origin_[p], leave_[p]);
      origin_[p] = t.neighbor(origin_[p], entered);
      leave_[p] = opposite(entered);
    }
  }

 private:
  const CycleSchedule& s_;
  Rank self_;
  long long round_ = 0;
  std::vector<Rank> origin_;  ///< per in-port: origin of the block arriving this round
  std::vector<Port> leave_;   ///< per in-port: port by which that stream leaves origin_
  std::vector<Rank> last_;    ///< per in-port: origin of the block that arrived last round
};

}  // namespace

CycleSchedule::CycleSchedule(Torus torus) : Schedule(std::move(torus)) {
  for (int a : this->torus().active_axes()) {
    ports_.push_back(make_port(a, false));
    ports_.push_back(make_port(a, true));
  }
}

std::unique_ptr<RankProgram> CycleSchedule::program(Rank r) const {
  return std::make_unique<CycleProgram>(*this, r);
}

StructuralProof CycleSchedule::prove() const {
  StructuralProof proof;
  proof.supported = true;
  const Torus& t = torus();
  const Rank P = t.size();
  const int d = colours();
  auto fail = [&](std::string why) {
    proof.complete = false;
    proof.detail = std::move(why);
    return proof;
  };
  // Local consistency: ports pair into d strands of distinct colours, and a
  // link has the same colour at both of its ends.
  for (Rank r = 0; r < P; ++r) {
    std::uint32_t seen = 0;
    for (const Port p : ports_) {
      const Port q = partner(r, p);
      if (q == p || std::find(ports_.begin(), ports_.end(), q) == ports_.end() || partner(r, q) != p)
        return fail("rank " + std::to_string(r) + ": forwarding rule is not a pairing of ports");
      const int c = colour(r, p);
      if (c < 0 || c >= d || colour(r, q) != c)
        return fail("rank " + std::to_string(r) + ": strand has inconsistent colour");
      if (p < q) {
        if (seen & (1u << c)) return fail("rank " + std::to_string(r) + ": two strands of one colour");
        seen |= 1u << c;
      }
      if (colour(t.neighbor(r, p), opposite(p)) != c)
        return fail("rank " + std::to_string(r) + ": link coloured differently at its two ends");
    }
  }
  // Global: the strands of each colour form a single cycle of length P.
  std::vector<bool> visited(static_cast<std::size_t>(P));
  for (int c = 0; c < d && P > 1; ++c) {
    std::fill(visited.begin(), visited.end(), false);
    Port in = ports_.front();
    for (const Port p : ports_)
      if (colour(0, p) == c) {
        in = p;
        break;
      }
    // Each rank has exactly one strand of colour c, so the walk can only
    // come back to rank 0 through `in`: reaching rank 0 closes the cycle.
    Rank r = 0;
    Rank length = 0;
    do {
      if (visited[static_cast<std::size_t>(r)])
        return fail("colour " + std::to_string(c) + " revisits rank " + std::to_string(r) +
                    " before closing: not a single cycle");
      visited[static_cast<std::size_t>(r)] = true;
      ++length;
      const Port out = partner(r, in);
      r = t.neighbor(r, out);
      in = opposite(out);
    } while (r != 0);
    if (length != P)
      return fail("colour " + std::to_string(c) + " forms a cycle of " + std::to_string(length) +
                  " ranks, not all " + std::to_string(P));
  }
  proof.complete = true;
  proof.rounds = rounds();
  proof.max_link_messages_per_round = claimed_max_link_messages_per_round();
  proof.max_link_blocks_per_round = 1.0 / d;
  // 2d messages of s/d per round; the last round of an even cycle carries halves.
  proof.volume_per_rank_blocks = static_cast<double>(P - 1);
  proof.detail = std::to_string(d) + " edge-disjoint Hamiltonian cycles of length " + std::to_string(P);
  return proof;
}

}  // namespace torusgather
