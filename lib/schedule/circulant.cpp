// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/circulant.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <set>
#include <stdexcept>
#include <tuple>

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

/// The step of port p on G(N; s, s+1): ports 0/1 are -s/+s, 2/3 -(s+1)/+(s+1).
long long chord_step(long long s, Port p) { return (p < 2 ? s : s + 1) * ((p & 1) ? 1 : -1); }

constexpr Port g_port[4] = {1, 3, 0, 2};  // per quadrant: +s, +(s+1), -s, -(s+1)
constexpr Port h_port[4] = {3, 0, 2, 1};  // per quadrant: +(s+1), -s, -(s+1), +s

/// The broadcast tree from rank 0: per node its depth, parent and lattice
/// point (q, i, j) = i·g_q + j·h_q, its children and its subtree's height.
struct BroadcastTree {
  std::vector<std::int32_t> depth, parent, lat_i, lat_j, height;
  std::vector<std::int8_t> quadrant;
  std::vector<std::int32_t> child_at, children;  ///< node a's children: children[child_at[a] .. child_at[a + 1])
  /// The port of the edge into v.
  Port via(std::size_t v) const { return lat_j[v] > 0 ? h_port[quadrant[v]] : g_port[quadrant[v]]; }
  /// The difference h - g of v's quadrant, mod n: the step between the
  /// sources of consecutive h-edges on one anti-diagonal.
  long long run_step(std::size_t v, long long n, long long s) const {
    const int q = quadrant[v];
    return ((chord_step(s, h_port[q]) - chord_step(s, g_port[q])) % n + n) % n;
  }
};

BroadcastTree broadcast_tree(long long n_ranks, long long s) {
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
  const auto mod = [n_ranks](long long x) { return (x % n_ranks + n_ranks) % n_ranks; };
  const auto n = static_cast<std::size_t>(n_ranks);
  BroadcastTree t;
  t.depth.assign(n, -1);
  t.parent.assign(n, -1);
  t.lat_i.assign(n, 0);
  t.lat_j.assign(n, 0);
  t.quadrant.assign(n, -1);
  t.depth[0] = 0;
  long long reached = 1;
  std::vector<std::vector<Rank>> straight(4, std::vector<Rank>{0});  // [q][i]: the residue of i·g
  for (long long R = 1; reached < n_ranks; ++R) {
    if (R > n_ranks) throw std::invalid_argument("circulant: the spanning tree of G(" + std::to_string(n_ranks) + "; " +
                                                 std::to_string(s) + ", " + std::to_string(s + 1) + ") did not close");
    for (int q = 0; q < 4; ++q) {
      auto& line = straight[static_cast<std::size_t>(q)];
      line.push_back(mod(line.back() + chord_step(s, g_port[q])));
    }
    for (long long j = 0; j < R && reached < n_ranks; ++j)
      for (int q = 0; q < 4 && reached < n_ranks; ++q) {
        // Point (R - j, j) of quadrant q; its parent is (R - j, j - 1), or (R - 1, 0).
        const auto& line = straight[static_cast<std::size_t>(q)];
        const long long h = chord_step(s, h_port[q]);
        const Rank from = j > 0 ? mod(line[static_cast<std::size_t>(R - j)] + (j - 1) * h) : line[static_cast<std::size_t>(R - 1)];
        const Rank to = j > 0 ? mod(from + h) : line[static_cast<std::size_t>(R)];
        const auto v = static_cast<std::size_t>(to);
        if (t.depth[v] >= 0 || t.depth[static_cast<std::size_t>(from)] != R - 1) continue;
        t.depth[v] = static_cast<std::int32_t>(R);
        t.quadrant[v] = static_cast<std::int8_t>(q);
        t.lat_i[v] = static_cast<std::int32_t>(R - j);
        t.lat_j[v] = static_cast<std::int32_t>(j);
        t.parent[v] = static_cast<std::int32_t>(from);
        ++reached;
      }
  }
  t.child_at.assign(n + 1, 0);
  t.children.resize(n - 1);
  for (std::size_t v = 1; v < n; ++v) ++t.child_at[static_cast<std::size_t>(t.parent[v]) + 1];
  for (std::size_t v = 0; v < n; ++v) t.child_at[v + 1] += t.child_at[v];
  std::vector<std::int32_t> fill(t.child_at.begin(), t.child_at.end() - 1);
  for (std::size_t v = 1; v < n; ++v)
    t.children[static_cast<std::size_t>(fill[static_cast<std::size_t>(t.parent[v])]++)] = static_cast<std::int32_t>(v);
  // Heights, the deepest nodes first.
  std::vector<std::vector<std::int32_t>> at_depth;
  for (std::size_t v = 0; v < n; ++v) {
    const auto d = static_cast<std::size_t>(t.depth[v]);
    if (d >= at_depth.size()) at_depth.resize(d + 1);
    at_depth[d].push_back(static_cast<std::int32_t>(v));
  }
  t.height.assign(n, 0);
  for (std::size_t d = at_depth.size(); d-- > 1;)
    for (std::int32_t v : at_depth[d]) {
      auto& h = t.height[static_cast<std::size_t>(t.parent[static_cast<std::size_t>(v)])];
      h = std::max(h, t.height[static_cast<std::size_t>(v)] + 1);
    }
  return t;
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

Rank CirculantSchedule::link_target(Rank r, Port p) const { return ((r + chord_step(s_, p)) % n_ + n_) % n_; }

CirculantSchedule::CirculantSchedule(const Torus& torus, int packets)
    : Schedule(Torus({static_cast<int>(torus.size())})),
      n_(torus.size()),
      s_(chord(torus.size())),
      packets_(packets > 0 ? packets : 0) {
  if (std::string why = not_applicable(torus); !why.empty()) throw std::invalid_argument("circulant: " + why);
  const BroadcastTree tree = broadcast_tree(n_, s_);
  // Schedule the tree's edges: edge (parent(b) -> b) may go once the edge
  // into parent(b) has gone; each (port, round) takes at most `packets`
  // edges (all with packets = 0), the deepest subtrees first, then the
  // lower rank. The edges waiting on each port, in that order:
  std::array<std::set<std::pair<std::int32_t, std::int32_t>>, 4> ready;  // (-height, v)
  const auto release = [&](std::size_t a) {
    for (auto c = tree.child_at[a]; c < tree.child_at[a + 1]; ++c) {
      const auto v = static_cast<std::size_t>(tree.children[static_cast<std::size_t>(c)]);
      ready[static_cast<std::size_t>(tree.via(v))].emplace(-tree.height[v], static_cast<std::int32_t>(v));
    }
  };
  // Runs: h-edges of one quadrant on one anti-diagonal i + j with
  // consecutive j have sources h - g apart.
  const auto run_order = [&tree](std::int32_t x, std::int32_t y) {
    const auto key = [&tree](std::int32_t v) {
      const auto u = static_cast<std::size_t>(v);
      return std::make_tuple(tree.quadrant[u], tree.lat_j[u] > 0, tree.lat_i[u] + tree.lat_j[u], tree.lat_j[u]);
    };
    return key(x) < key(y);
  };
  const auto extends = [&tree](std::size_t u, std::size_t v) {
    return tree.lat_j[v] > 1 && tree.quadrant[u] == tree.quadrant[v] && tree.lat_j[u] + 1 == tree.lat_j[v] &&
           tree.lat_i[u] == tree.lat_i[v] + 1;
  };
  release(0);
  std::vector<std::int32_t> sent, edges;
  while (!(ready[0].empty() && ready[1].empty() && ready[2].empty() && ready[3].empty())) {
    sent.clear();
    for (Port p = 0; p < 4; ++p) {
      auto& queue = ready[static_cast<std::size_t>(p)];
      edges.clear();
      while (!queue.empty() && (packets <= 0 || static_cast<long long>(edges.size()) < packets)) {
        edges.push_back(queue.begin()->second);
        queue.erase(queue.begin());
      }
      link_blocks_ = std::max<long long>(link_blocks_, static_cast<long long>(edges.size()));
      std::sort(edges.begin(), edges.end(), run_order);
      run_at_.push_back(static_cast<std::uint32_t>(runs_.size()));
      blocks_.push_back(static_cast<std::int32_t>(edges.size()));
      for (std::size_t e = 0; e < edges.size(); ++e) {
        const auto v = static_cast<std::size_t>(edges[e]);
        if (e > 0 && extends(static_cast<std::size_t>(edges[e - 1]), v))
          ++runs_.back().count;
        else
          runs_.push_back({tree.parent[v], static_cast<std::int32_t>(tree.run_step(v, n_, s_)), 1});
        sent.push_back(edges[e]);
      }
    }
    for (std::int32_t v : sent) release(static_cast<std::size_t>(v));
  }
  run_at_.push_back(static_cast<std::uint32_t>(runs_.size()));
  runs_.shrink_to_fit();
  run_at_.shrink_to_fit();
  blocks_.shrink_to_fit();
  // The claim: D* rounds with D packets per link (Proposition 8); with p
  // packets on N = 2D^2 + 2D + 1, Proposition 9's count; other p-gossips
  // have no formula in the paper and claim the rounds scheduled.
  const long long dstar = diameter(n_);
  if (packets <= 0)
    rounds_ = dstar;
  else if (n_ == 2 * dstar * dstar + 2 * dstar + 1)
    rounds_ = prop9_rounds(dstar, packets);
  else
    rounds_ = scheduled_rounds();
  construction_ = "G(" + std::to_string(n_) + "; " + std::to_string(s_) + ", " + std::to_string(s_ + 1) + "), D* = " +
                  std::to_string(diameter(n_)) + ", " +
                  (packets > 0 ? "at most " + std::to_string(packets) + " blocks" : "up to " + std::to_string(link_blocks_) + " blocks") +
                  " per link per round";
}

void CirculantSchedule::offsets_of(long long t, Port p, std::vector<Rank>& out) const {
  out.clear();
  const auto at = static_cast<std::size_t>(t * 4 + p);
  for (auto r = run_at_[at]; r < run_at_[at + 1]; ++r) {
    const Run& run = runs_[r];
    Rank a = run.first;
    for (std::int32_t k = 0; k < run.count; ++k, a = (a + run.step) % n_) out.push_back(a);
  }
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
    if (static_cast<long long>(t) >= s_.scheduled_rounds()) return;
    if (kept_) {
      ops = kept_->rounds[t];
      return;
    }
    std::size_t used = 0;
    auto blocks_of = [&](Rank x, Port p) -> const BlockRanges* {
      s_.offsets_of(static_cast<long long>(t), p, offsets_);
      std::vector<Rank> blocks;
      blocks.reserve(offsets_.size());
      for (Rank a : offsets_) blocks.push_back(((x - a) % s_.n_ + s_.n_) % s_.n_);
      std::sort(blocks.begin(), blocks.end());
      if (ranges_.size() <= used) ranges_.resize(used + 1);
      ranges_[used] = to_ranges(blocks);
      return &ranges_[used++];
    };
    std::vector<std::pair<Rank, Transfer>> recvs;
    for (Port p = 0; p < 4; ++p) {
      if (s_.blocks_on(static_cast<long long>(t) + 1, p) == 0) continue;
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
    for (Transfer& x : ops.sends) x.ranges = blocks_of(self_, x.port);
    for (auto& [from, x] : recvs) {
      x.ranges = blocks_of(from, x.port);
      ops.recvs.push_back(x);
    }
  }

 private:
  const CirculantSchedule& s_;
  Rank self_;
  std::shared_ptr<const RankRounds> kept_;
  std::vector<Port> routes_[4];
  std::vector<BlockRanges> ranges_;
  std::vector<Rank> offsets_;
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
  out->rounds.resize(static_cast<std::size_t>(scheduled_rounds()));
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
