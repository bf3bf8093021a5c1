// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/bridgehead.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <memory>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "schedule/bridgehead_ring.hpp"
#include "schedule/least_first.hpp"
#include "schedule/process_memo.hpp"
#include "schedule/ring_gossip.hpp"

namespace torusgather {

using namespace ring_gossip;

namespace {

/// BridgeheadSchedule::ring_steps without the memo.
std::vector<long long> ring_steps_of(int n, const RingParams& p);

}  // namespace

namespace {

/// A ring's steps and their sum, remembered: the parameter searches (best,
/// best_coloured) ask for the same rings again and again, per axis, per
/// colour and per r bucket.
struct RingSteps {
  std::vector<long long> steps;
  long long sum = 0;
};

std::shared_ptr<const RingSteps> remembered_steps(int n, const RingParams& p) {
  static ProcessMemo<std::tuple<int, int, int, int>, RingSteps> known;  // rings of a few shapes fill it
  return known.get(std::make_tuple(n, p.a, p.b, p.k), [&] {
    auto entry = std::make_shared<RingSteps>();
    entry->steps = ring_steps_of(n, p);
    for (long long size : entry->steps) entry->sum += size;
    return entry;
  });
}

}  // namespace

std::vector<long long> BridgeheadSchedule::ring_steps(int n, const RingParams& p) {
  return remembered_steps(n, p)->steps;
}

namespace {

/// Phases 1 and 2 of circgos(n, a, ·) on a ring: each step's largest call.
std::vector<long long> gather_steps(int n, int a) {
  std::vector<long long> out;
  if (n <= 1) return out;
  // Phase 1: the segments concentrate side by side; step j costs the
  // largest group merged in it.
  std::vector<long long> phase1;
  long long longest = 0;
  for (const auto& seg : segments(n, a)) {
    int leader = 0;
    const auto& steps = concentration(seg.length, &leader);
    if (phase1.size() < steps.size()) phase1.resize(steps.size(), 0);
    for (std::size_t j = 0; j < steps.size(); ++j)
      for (const auto& m : steps[j]) phase1[j] = std::max(phase1[j], m.size);
    longest = std::max<long long>(longest, seg.length);
  }
  out = phase1;
  // Phase 2: ⌊a/2⌋ steps of approach 1 among the bridgeheads, a segment each.
  if (a >= 2) out.insert(out.end(), static_cast<std::size_t>(a / 2), longest);
  return out;
}

std::vector<long long> ring_steps_of(int n, const RingParams& p) {
  std::vector<long long> out = gather_steps(n, p.a);
  if (n <= 1) return out;
  // Phase 3: rounds until every rank is a bridgehead; each step moves
  // packets of n/k ranks' data less what the receiver holds from phase 1.
  for (const auto& round : chain_round_largest(n, p.a, p.b, p.k)) out.insert(out.end(), round.begin(), round.end());
  return out;
}

}  // namespace

namespace {

/// Phases 1 and 2 of circgos(n, a, ·), exactly.
const StepCost& gathered(int n, int a) {
  thread_local std::map<std::pair<int, int>, StepCost> known;
  auto [it, fresh] = known.try_emplace(std::make_pair(n, a));
  if (fresh)
    for (long long size : gather_steps(n, a)) it->second = StepCost{it->second.steps + 1, it->second.blocks + size};
  return it->second;
}

}  // namespace

StepCost BridgeheadSchedule::ring_floor(int n, const RingParams& p, bool pipelines) {
  const StepCost& g = gathered(n, p.a);
  const auto [steps, blocks] = pipelines ? pipelines_floor(n, p.a, p.b, p.k) : chain_floor(n, p.a, p.b, p.k);
  return StepCost{g.steps + steps, g.blocks + blocks};
}

StepCost BridgeheadSchedule::ring_cost(int n, const RingParams& p, long long unit) {
  const auto ring = remembered_steps(n, p);
  return StepCost{static_cast<long long>(ring->steps.size()), ring->sum * unit};
}

StepCost BridgeheadSchedule::cost(const Torus& torus, const std::vector<RingParams>& params) {
  StepCost c;
  long long unit = 1;
  const auto axes = torus.active_axes();
  for (std::size_t i = 0; i < axes.size() && i < params.size(); ++i) {
    const StepCost ring = ring_cost(torus.dim(axes[i]), params[i], unit);
    c.steps += ring.steps;
    c.blocks += ring.blocks;
    unit *= torus.dim(axes[i]);
  }
  return c;
}

std::vector<RingParams> BridgeheadSchedule::concentrate(const Torus& torus) {
  return std::vector<RingParams>(torus.active_axes().size(), RingParams{1, 3, 1});
}

std::vector<RingParams> BridgeheadSchedule::best(const Torus& torus, double r) {
  const SearchMemo memo;
  std::vector<RingParams> out;
  long long unit = 1;
  for (int axis : torus.active_axes()) {
    const int n = torus.dim(axis);
    // a up to 32 and every divisor of n; b up to 8 and k up to 32, k | n
    // (equal packets): the paper's Table 1 optima stay well inside.
    std::vector<Option<RingParams>> options;
    for (int a = 1; a < n; ++a) {
      if (a > 32 && n % a) continue;
      for (int b = 2; b <= std::min(n, 8); ++b)
        for (int k = 1; k <= std::min(n, 32); ++k) {
          if (n % k) continue;
          const RingParams p{a, b, k};
          const StepCost floor = ring_floor(n, p);
          options.push_back({p, StepCost{floor.steps, floor.blocks * unit}.at(r)});
        }
    }
    const RingParams approach1{n, 2, 1};
    // Before a candidate's cost is worked out, its pipelines' floor: where
    // that is already past the best found, so is the cost, and the floor
    // stands in for it (it cannot win or tie).
    double best_found = std::numeric_limits<double>::infinity();
    out.push_back(least_first(approach1, options, [&](const RingParams& p) {
      const StepCost floor = ring_floor(n, p, true);
      if (const double at = StepCost{floor.steps, floor.blocks * unit}.at(r); at > best_found)
        return std::make_pair(at, floor.steps);
      const StepCost c = ring_cost(n, p, unit);
      best_found = std::min(best_found, c.at(r));
      return std::make_pair(c.at(r), c.steps);
    }));
    unit *= n;
  }
  return out;
}

std::string BridgeheadSchedule::to_string(const std::vector<RingParams>& params) {
  std::string s;
  for (const auto& p : params)
    s += (s.empty() ? "" : ";") + std::to_string(p.a) + "," + std::to_string(p.b) + "," + std::to_string(p.k);
  return s;
}

bool BridgeheadSchedule::parse(const std::string& text, const Torus& torus, std::vector<RingParams>* params,
                               std::string* why) {
  std::vector<RingParams> out;
  std::stringstream all(text);
  std::string item;
  while (std::getline(all, item, ';')) {
    RingParams p;
    char c1 = 0, c2 = 0;
    std::stringstream one(item);
    if (!(one >> p.a >> c1 >> p.b >> c2 >> p.k) || c1 != ',' || c2 != ',' || !(one >> std::ws).eof()) {
      *why = "bridgehead parameters must be a,b,k (per axis, separated by ';'), not '" + text + "'";
      return false;
    }
    out.push_back(p);
  }
  if (out.size() == 1) out.resize(torus.active_axes().size(), out.front());
  if (std::string bad = check(torus, out); !bad.empty()) {
    *why = bad;
    return false;
  }
  *params = std::move(out);
  return true;
}

std::string BridgeheadSchedule::not_applicable(const Torus&) {
  return {};  // any torus, a single rank (no axis, no round) included
}

std::string BridgeheadSchedule::check(const Torus& torus, const std::vector<RingParams>& params) {
  const auto axes = torus.active_axes();
  if (params.size() != axes.size())
    return "needs one a,b,k per side > 1 (" + std::to_string(axes.size()) + "), got " + std::to_string(params.size());
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const int n = torus.dim(axes[i]);
    const RingParams& p = params[i];
    if (p.a < 1 || p.a > n || p.b < 2 || p.k < 1 || n % p.k)
      return "a,b,k = " + to_string({p}) + " does not fit a ring of " + std::to_string(n) +
             " (needs 1 <= a <= n, b >= 2, k dividing n)";
  }
  return {};
}

std::string BridgeheadSchedule::construction() const {
  std::string s = colours_ > 1 ? std::to_string(colours_) +
                                     " colours, colour c taking the axes from the c-th on (highdimgos'); circgos(n, a, b) with k packets per axis:"
                               : "circgos(n, a, b) with k packets, axis by axis:";
  const auto axes = torus().active_axes();
  for (std::size_t i = 0; i < axes.size(); ++i)
    s += std::string(i ? ";" : "") + " n=" + std::to_string(torus().dim(axes[i])) + " a=" +
         std::to_string(params_[i].a) + " b=" + std::to_string(params_[i].b) + " k=" + std::to_string(params_[i].k);
  return s;
}

/// One rank's calls, derived from the rings it is on (n x n bits per ring,
/// dropped once derived), sorted by round.
struct BridgeheadSchedule::RankCalls {
  struct Mine {
    long long round;
    bool send;
    int peer;
    Port port;
    int dist;
    BlockRanges positions;  ///< ring positions whose data the call carries
    int colour;
    std::uint32_t done;
    int axis;
  };
  Rank rank = -1;
  std::vector<Mine> calls;
  std::map<std::pair<Port, int>, std::vector<Port>> routes;
  /// Each call's blocks as ranks, where they fit in kKeptRanges ranges in
  /// all; else (sides whose blocks the row-major order scatters, at 10^5
  /// ranks and more) each round expands its calls again.
  std::vector<BlockRanges> expanded;
};

namespace {

/// The blocks of the ranks whose coordinates are any on the axes done,
/// in `positions` on the call's axis, and this rank's elsewhere: sorted
/// ranges in the row-major receive buffer, built slowest axis first.
void expand(const Torus& t, Rank self, int axis, std::uint32_t done, const BlockRanges& positions, BlockRanges& out) {
  out.clear();
  const int D = t.ndims();
  int m = D;  // axes m.. are all free: each value of the axes before is one chunk
  while (m > 0 && ((done >> (m - 1)) & 1u || t.dim(m - 1) == 1)) --m;
  Rank chunk = 1;
  for (int k = m; k < D; ++k) chunk *= t.dim(k);
  auto emit = [&out](Rank lo, Rank hi) {
    if (!out.empty() && out.back().second == lo) out.back().second = hi;
    else out.emplace_back(lo, hi);
  };
  // Odometer over axes 0 .. m-2; axis m-1 (the call's axis or a fixed
  // one) gives the ranges of each prefix.
  std::function<void(int, Rank)> walk = [&](int k, Rank base) {
    if (k == m - 1) {
      if (k == axis) {
        for (const auto& run : positions)
          emit(base + static_cast<Rank>(run.first) * chunk, base + static_cast<Rank>(run.second) * chunk);
      } else {
        const Rank at = base + static_cast<Rank>(t.coord(self, k)) * chunk;
        emit(at, at + chunk);
      }
      return;
    }
    const Rank stride = t.stride(k);
    if (k == axis) {
      for (const auto& run : positions)
        for (Rank v = run.first; v < run.second; ++v) walk(k + 1, base + v * stride);
    } else if ((done >> k) & 1u) {
      for (Rank v = 0; v < t.dim(k); ++v) walk(k + 1, base + v * stride);
    } else {
      walk(k + 1, base + static_cast<Rank>(t.coord(self, k)) * stride);
    }
  };
  walk(0, 0);
}

}  // namespace

std::shared_ptr<const BridgeheadSchedule::RankCalls> BridgeheadSchedule::calls_of(Rank self) const {
  // Every call of a communicator runs a program of the same rank: derive its
  // calls once (the simulators, which step through every rank, miss).
  {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    if (cached_ && cached_->rank == self) return cached_;
  }
  auto out = std::make_shared<RankCalls>();
  out->rank = self;
  const Torus& t = torus();
  for (const auto& ph : phases_) {
    const int n = t.dim(ph.axis);
    const int mine = t.coord(self, ph.axis);
    GossipBuilder builder = bridgehead_ring::ring_builder(n);
    builder.stream_to([&](long long round, const Call& c) {
      if (c.from != mine && c.to != mine) return;
      const Port first = make_port(ph.axis, port_plus(c.route.front()));
      const int dist = static_cast<int>(c.route.size());
      out->routes.try_emplace(std::make_pair(first, dist), static_cast<std::size_t>(dist), first);
      // A call to itself around a ring of 2 cannot happen: dist < n.
      if (c.from == mine)
        out->calls.push_back({ph.start + round, true, static_cast<int>(c.to), first, dist, c.ranges, ph.colour, ph.done, ph.axis});
      if (c.to == mine)
        out->calls.push_back({ph.start + round, false, static_cast<int>(c.from), first, dist, c.ranges, ph.colour, ph.done, ph.axis});
    });
    bridgehead_ring::ring_generate(builder, n, params_[static_cast<std::size_t>(ph.param)]);
  }
  std::stable_sort(out->calls.begin(), out->calls.end(),
                   [](const RankCalls::Mine& x, const RankCalls::Mine& y) { return x.round < y.round; });
  std::size_t kept = 0;
  out->expanded.resize(out->calls.size());
  for (std::size_t i = 0; i < out->calls.size() && kept <= kKeptRanges; ++i) {
    const auto& c = out->calls[i];
    expand(t, self, c.axis, c.done, c.positions, out->expanded[i]);
    kept += out->expanded[i].size();
  }
  if (kept > kKeptRanges) out->expanded.clear();
  std::lock_guard<std::mutex> lock(cache_mutex_);
  cached_ = out;
  return out;
}

/// A rank's program: its calls (calls_of), the blocks of each expanded from
/// ring positions to ranks as its round is made.
class BridgeheadSchedule::Program final : public RankProgram {
 public:
  Program(const BridgeheadSchedule& s, Rank self) : s_(s), self_(self), mine_(s.calls_of(self)) {}

  void next_round(RoundOps& ops) override {
    ops.clear();
    ++round_;
    const std::size_t first = next_;
    const auto& calls = mine_->calls;
    while (next_ < calls.size() && calls[next_].round == round_) ++next_;
    if (mine_->expanded.empty()) ranges_.resize(next_ - first);
    const Torus& t = s_.torus();
    for (std::size_t i = first; i < next_; ++i) {
      const RankCalls::Mine& c = calls[i];
      const BlockRanges* blocks = nullptr;
      if (mine_->expanded.empty()) {
        expand(t, self_, c.axis, c.done, c.positions, ranges_[i - first]);
        blocks = &ranges_[i - first];
      } else {
        blocks = &mine_->expanded[i];
      }
      Transfer x;
      x.port = c.port;
      x.peer = t.shift(self_, c.axis, c.peer - t.coord(self_, c.axis));
      x.route = &mine_->routes.at(std::make_pair(c.port, c.dist));
      x.ranges = blocks;
      x.piece.colour = static_cast<std::uint16_t>(c.colour);
      x.piece.colours = static_cast<std::uint16_t>(s_.colours_);
      (c.send ? ops.sends : ops.recvs).push_back(x);
    }
  }

 private:
  const BridgeheadSchedule& s_;
  Rank self_;
  std::shared_ptr<const RankCalls> mine_;
  std::vector<BlockRanges> ranges_;
  std::size_t next_ = 0;
  long long round_ = 0;
};

std::unique_ptr<RankProgram> BridgeheadSchedule::program(Rank r) const { return std::make_unique<Program>(*this, r); }

std::vector<BridgeheadSchedule::RoundLoad> BridgeheadSchedule::round_loads() const {
  const Torus& t = torus();
  std::vector<RoundLoad> out(static_cast<std::size_t>(rounds()));
  for (const auto& ph : phases_) {
    const auto loads = bridgehead_ring::ring_loads(t.dim(ph.axis), params_[static_cast<std::size_t>(ph.param)]);
    long long unit = 1;
    for (int a = 0; a < t.ndims(); ++a)
      if ((ph.done >> a) & 1u) unit *= t.dim(a);
    const double scale = static_cast<double>(unit) / colours_;
    for (std::size_t j = 0; j < loads->size(); ++j) {
      const RoundLoad& l = (*loads)[j];
      RoundLoad& o = out.at(static_cast<std::size_t>(ph.start) + j);
      o.link_blocks = std::max(o.link_blocks, l.link_blocks * scale);
      o.recv_blocks += l.recv_blocks * scale;
      o.sends += l.sends;
      o.recvs += l.recvs;
      o.hops = std::max(o.hops, l.hops);
    }
  }
  return out;
}

BridgeheadSchedule::BridgeheadSchedule(const Torus& torus, std::vector<RingParams> params, const char* name)
    : Schedule(torus), name_(name), params_(std::move(params)) {
  if (std::string why = not_applicable(torus); !why.empty()) throw std::invalid_argument(std::string(name) + ": " + why);
  if (std::string why = check(torus, params_); !why.empty()) throw std::invalid_argument(std::string(name) + ": " + why);
  cost_ = cost(torus, params_);
  const auto axes = torus.active_axes();
  long long start = 0;
  std::uint32_t done = 0;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    phases_.push_back({axes[i], static_cast<int>(i), 0, start, done});
    start += static_cast<long long>(ring_steps(torus.dim(axes[i]), params_[i]).size());
    done |= 1u << axes[i];
  }
}

}  // namespace torusgather
