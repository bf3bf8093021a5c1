// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/circulant.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <memory>
#include <stdexcept>

namespace torusgather {
namespace {

/// floor((sqrt(2N-1) - 1) / 2) and its ceiling, in integers: the largest s
/// with (2s+1)^2 <= 2N-1, and the smallest D with (2D+1)^2 >= 2N-1.
long long isqrt(long long v) {
  long long r = static_cast<long long>(std::sqrt(static_cast<double>(v)));
  while (r * r > v) --r;
  while ((r + 1) * (r + 1) <= v) ++r;
  return r;
}

}  // namespace

long long CirculantSchedule::diameter(long long n) {
  long long d = (isqrt(2 * n - 1) - 1) / 2;  // floor, then up to the ceiling
  while ((2 * d + 1) * (2 * d + 1) < 2 * n - 1) ++d;
  return d;
}

long long CirculantSchedule::chord(long long n) {
  // §5.1 splits the N for which G(N; s, s+1) is optimal into the intervals
  // (4) 2s^2 - 1 <= N <= 2s^2 + 2s + 1, diameter s, and (5) 2s^2 + 2s + 2 <=
  // N <= 2s^2 + 4s + 3, diameter s + 1 (e.g. G(N; 4, 5) for 31 <= N <= 51,
  // Fig. 2). So s = D* when N >= 2D*^2 - 1, else D* - 1. (§2's printed
  // s = floor((sqrt(2N-1) - 1)/2) gives 3 for N = 35, where Fig. 1 shows
  // G(35; 4, 5), and G(37; 3, 4) has diameter 5, not D* = 4.)
  const long long d = diameter(n);
  return n >= 2 * d * d - 1 ? d : d - 1;
}

long long CirculantSchedule::prop9_rounds(long long d, long long p) {
  // ceil(D(D+1)/(2p) - (p-1)/2) + p - 1 = ceil((D(D+1) - p(p-1)) / 2p) + p - 1.
  const long long num = d * (d + 1) - p * (p - 1);
  const long long den = 2 * p;
  const long long up = num >= 0 ? (num + den - 1) / den : -((-num) / den);
  return up + p - 1;
}

std::string CirculantSchedule::not_applicable(const Torus& torus) {
  if (torus.size() <= 4) return "needs more than 4 ranks (G(N; s, s+1) is defined for N > 4)";
  if (torus.size() > std::numeric_limits<int>::max()) return "needs fewer than 2^31 ranks";
  return {};
}

Rank CirculantSchedule::link_target(Rank r, Port p) const {
  const long long step = (p < 2 ? s_ : s_ + 1) * ((p & 1) ? 1 : -1);
  return ((r + step) % n_ + n_) % n_;
}

CirculantSchedule::CirculantSchedule(const Torus& torus, int packets)
    : Schedule(Torus({static_cast<int>(torus.size())})),
      n_(torus.size()),
      s_(chord(torus.size())),
      packets_(packets > 0 ? packets : 0) {
  if (std::string why = not_applicable(torus); !why.empty()) throw std::invalid_argument("circulant: " + why);
  // The minimum spanning tree of the broadcast from 0 (Fig. 2, Programs 1
  // and 2), on the lattice of relative addresses: the plane minus the
  // origin is four quadrants {i·g + j·h : i >= 1, j >= 0} with (g, h) =
  // (s, s+1), (s+1, -s), (-s, -(s+1)), (-(s+1), s). In each, a message goes
  // straight along g (Program 2's U = 1) and turns once onto h. At depth R a
  // quadrant has one edge on g and R-1 on h, so every port carries at most R
  // edges at depth R (F_R(i) = R in §5.2, at most D* packets per link).
  // Layers are taken whole while their residues mod N are new; the last one
  // in part, the quadrants in turn (§5.1). Node-invariant: rank v's tree is
  // this one plus v.
  const Port ports = 4;
  const Port g_port[4] = {1, 3, 0, 2};  // +s, +(s+1), -s, -(s+1)
  const Port h_port[4] = {3, 0, 2, 1};  // +(s+1), -s, -(s+1), +s
  std::vector<long long> depth(static_cast<std::size_t>(n_), -1);
  std::vector<Port> via(static_cast<std::size_t>(n_), -1);  // port of the edge into the node
  std::vector<Rank> parent(static_cast<std::size_t>(n_), -1);
  depth[0] = 0;
  long long reached = 1;
  const auto step = [this](Rank r, Port p) { return link_target(r, p); };
  // (quadrant, i, j) -> residue, walking i along g then j along h.
  std::vector<std::vector<Rank>> straight(4, std::vector<Rank>{0});  // i·g, i = 0, 1, ...
  for (long long R = 1; reached < n_; ++R) {
    if (R > n_) throw std::invalid_argument("circulant: the spanning tree of G(" + std::to_string(n_) + "; " +
                                            std::to_string(s_) + ", " + std::to_string(s_ + 1) + ") did not close");
    for (int q = 0; q < 4; ++q) straight[static_cast<std::size_t>(q)].push_back(step(straight[static_cast<std::size_t>(q)].back(), g_port[q]));
    for (long long j = 0; j < R && reached < n_; ++j)
      for (int q = 0; q < 4 && reached < n_; ++q) {
        // Point i = R - j, j of quadrant q; its parent is (i, j-1), or (i-1, 0).
        Rank from = straight[static_cast<std::size_t>(q)][static_cast<std::size_t>(R - j)];
        for (long long k = 1; k < j; ++k) from = step(from, h_port[q]);
        const bool turn = j > 0;
        const Rank to = turn ? step(from, h_port[q]) : from;
        if (!turn) from = straight[static_cast<std::size_t>(q)][static_cast<std::size_t>(R - 1)];
        if (depth[static_cast<std::size_t>(to)] >= 0 || depth[static_cast<std::size_t>(from)] != R - 1) continue;
        depth[static_cast<std::size_t>(to)] = R;
        via[static_cast<std::size_t>(to)] = turn ? h_port[q] : g_port[q];
        parent[static_cast<std::size_t>(to)] = from;
        ++reached;
      }
  }
  // Schedule the tree's edges: edge (parent(b) -> b) may go once the edge
  // into parent(b) has gone; each (port, round) takes at most `packets`
  // edges (all with packets = 0), the deepest subtrees first (the edges that
  // still have the longest way to go).
  std::vector<long long> height(static_cast<std::size_t>(n_), 0);
  std::vector<Rank> order(static_cast<std::size_t>(n_));
  for (Rank v = 0; v < n_; ++v) order[static_cast<std::size_t>(v)] = v;
  std::sort(order.begin(), order.end(), [&](Rank a, Rank b) { return depth[static_cast<std::size_t>(a)] > depth[static_cast<std::size_t>(b)]; });
  for (Rank v : order)
    if (v != 0) {
      auto& h = height[static_cast<std::size_t>(parent[static_cast<std::size_t>(v)])];
      h = std::max(h, height[static_cast<std::size_t>(v)] + 1);
    }
  std::vector<long long> sent(static_cast<std::size_t>(n_), -1);  // round the edge into v went
  sent[0] = 0;
  std::vector<std::vector<Rank>> edges_in_round;  // per round: the children whose edge goes
  long long left = n_ - 1;
  for (long long round = 1; left > 0; ++round) {
    std::vector<std::vector<Rank>> ready(ports);
    for (Rank v = 1; v < n_; ++v) {
      const Rank a = parent[static_cast<std::size_t>(v)];
      if (sent[static_cast<std::size_t>(v)] < 0 && sent[static_cast<std::size_t>(a)] >= 0 && sent[static_cast<std::size_t>(a)] < round)
        ready[static_cast<std::size_t>(via[static_cast<std::size_t>(v)])].push_back(v);
    }
    edges_in_round.emplace_back();
    for (auto& list : ready) {
      std::stable_sort(list.begin(), list.end(), [&](Rank a, Rank b) { return height[static_cast<std::size_t>(a)] > height[static_cast<std::size_t>(b)]; });
      if (packets > 0 && static_cast<long long>(list.size()) > packets) list.resize(static_cast<std::size_t>(packets));
      link_blocks_ = std::max<long long>(link_blocks_, static_cast<long long>(list.size()));
      for (Rank v : list) {
        sent[static_cast<std::size_t>(v)] = round;
        edges_in_round.back().push_back(v);
        --left;
      }
    }
  }
  // The claim: D* rounds with D packets per link (Proposition 8); with p
  // packets on N = 2D^2 + 2D + 1, Proposition 9's count; other p-gossips
  // have no formula in the paper and claim the rounds scheduled.
  const long long dstar = diameter(n_);
  if (packets <= 0)
    rounds_ = dstar;
  else if (n_ == 2 * dstar * dstar + 2 * dstar + 1)
    rounds_ = prop9_rounds(dstar, packets);
  else
    rounds_ = static_cast<long long>(edges_in_round.size());
  // Rank x sends, in round t on port p, block x - a for every edge a -> a+g_p
  // of round t (the edge of tree x at x): the offsets a are all a rank
  // needs, O(N) for all rounds, and each program makes its own blocks.
  offsets_.assign(edges_in_round.size(), {});
  for (std::size_t t = 0; t < edges_in_round.size(); ++t)
    for (Rank v : edges_in_round[t])
      offsets_[t][static_cast<std::size_t>(via[static_cast<std::size_t>(v)])].push_back(parent[static_cast<std::size_t>(v)]);
  construction_ = "G(" + std::to_string(n_) + "; " + std::to_string(s_) + ", " + std::to_string(s_ + 1) + "), D* = " +
                  std::to_string(diameter(n_)) + ", " +
                  (packets > 0 ? "at most " + std::to_string(packets) + " blocks" : "up to " + std::to_string(link_blocks_) + " blocks") +
                  " per link per round";
}

/// A rank's rounds: on each port of a round, the blocks x - a of the
/// round's offsets a, sent by x and received from the rank whose port leads
/// to x, in the order the calls were listed (senders ascending, ports).
/// A rank's rounds made once (every call of a communicator runs the same
/// rank's program), where they fit in kKeptRanges ranges.
struct CirculantSchedule::RankRounds {
  Rank rank = -1;
  std::vector<RoundOps> rounds;
  std::deque<BlockRanges> ranges;  ///< what the rounds' transfers point to
  std::vector<Port> routes[4];
};

class CirculantSchedule::Program final : public RankProgram {
 public:
  Program(const CirculantSchedule& s, Rank self, bool kept = true)
      : s_(s), self_(self), kept_(kept ? s.rounds_of(self) : nullptr) {
    for (Port p = 0; p < 4; ++p) routes_[static_cast<std::size_t>(p)] = {p};
  }

  void next_round(RoundOps& ops) override {
    ops.clear();
    const std::size_t t = static_cast<std::size_t>(round_++);
    if (t >= s_.offsets_.size()) return;
    if (kept_) {
      ops = kept_->rounds[t];
      return;
    }
    const auto& offsets = s_.offsets_[t];
    std::size_t used = 0;
    auto blocks_of = [&](Rank x, const std::vector<Rank>& of) -> const BlockRanges* {
      std::vector<Rank> blocks;
      blocks.reserve(of.size());
      for (Rank a : of) blocks.push_back(((x - a) % s_.n_ + s_.n_) % s_.n_);
      std::sort(blocks.begin(), blocks.end());
      if (ranges_.size() <= used) ranges_.resize(used + 1);
      ranges_[used] = to_ranges(blocks);
      return &ranges_[used++];
    };
    std::vector<std::pair<Rank, Transfer>> recvs;
    for (Port p = 0; p < 4; ++p) {
      const auto& of = offsets[static_cast<std::size_t>(p)];
      if (of.empty()) continue;
      Transfer x;
      x.port = p;
      x.route = &routes_[static_cast<std::size_t>(p)];
      x.peer = s_.link_target(self_, p);
      ops.sends.push_back(x);
      x.peer = s_.link_target(self_, p ^ 1);
      recvs.emplace_back(x.peer, x);
    }
    std::stable_sort(recvs.begin(), recvs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    // Pointers into ranges_ only once it stops growing.
    ranges_.reserve(ops.sends.size() + recvs.size());
    for (Transfer& x : ops.sends) x.ranges = blocks_of(self_, offsets[static_cast<std::size_t>(x.port)]);
    for (auto& [from, x] : recvs) {
      x.ranges = blocks_of(from, offsets[static_cast<std::size_t>(x.port)]);
      ops.recvs.push_back(x);
    }
  }

 private:
  const CirculantSchedule& s_;
  Rank self_;
  std::shared_ptr<const RankRounds> kept_;
  std::vector<Port> routes_[4];
  std::vector<BlockRanges> ranges_;
  long long round_ = 0;
};

std::shared_ptr<const CirculantSchedule::RankRounds> CirculantSchedule::rounds_of(Rank self) const {
  {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    if (cached_ && cached_->rank == self) return cached_;
  }
  auto out = std::make_shared<RankRounds>();
  out->rank = self;
  for (Port p = 0; p < 4; ++p) out->routes[static_cast<std::size_t>(p)] = {p};
  Program made(*this, self, false);
  std::size_t kept = 0;
  out->rounds.resize(offsets_.size());
  for (RoundOps& ops : out->rounds) {
    made.next_round(ops);
    for (auto* list : {&ops.sends, &ops.recvs})
      for (Transfer& x : *list) {
        out->ranges.push_back(*x.ranges);
        kept += x.ranges->size();
        x.ranges = &out->ranges.back();
        x.route = &out->routes[static_cast<std::size_t>(x.port)];
      }
    if (kept > kKeptRanges) return nullptr;  // too many to keep: each call makes its rounds
  }
  std::lock_guard<std::mutex> lock(cache_mutex_);
  cached_ = out;
  return out;
}

std::unique_ptr<RankProgram> CirculantSchedule::program(Rank r) const { return std::make_unique<Program>(*this, r); }

}  // namespace torusgather
