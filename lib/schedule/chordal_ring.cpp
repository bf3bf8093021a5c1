// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/chordal_ring.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

#include "schedule/phases.hpp"
#include "schedule/round_calls.hpp"

namespace torusgather {
namespace {

constexpr Port kMinus = 0, kPlus = 1, kChord = 2;
/// Rounds of rerouting searched_routes() tries before it gives up.
constexpr int kRerouteIterations = 60;
/// best_chord(): how many chords, and of how many components at most, it
/// searches paths for.
constexpr int kSearchedChords = 8;
constexpr int kSearchedComponents = 32;

/// Where port p of rank u leads in C(n, c): u-1, u+1, or the chord (u+c
/// for even u, u-c for odd u).
Rank chord_ring_hop(long long n, int c, Rank u, Port p) {
  const long long step = p == kMinus ? -1 : p == kPlus ? 1 : (u % 2 == 0 ? c : -c);
  return ((u + step) % n + n) % n;
}

/// The edges of C(n, c): (u, u+1) is edge u, the chord of even u is edge
/// n + u/2; the edge port p of u lies on.
std::size_t edge_of(long long n, int c, Rank u, Port p) {
  if (p == kPlus) return static_cast<std::size_t>(u);
  if (p == kMinus) return static_cast<std::size_t>((u + n - 1) % n);
  const Rank even = u % 2 == 0 ? u : ((u - c) % n + n) % n;
  return static_cast<std::size_t>(n + even / 2);
}

/// §4.1: the components as runs of consecutive (c+1)-cycles: a single
/// cycle each if a = N/(c+1) < c+1; else c-1 runs, the first β of α+1
/// cycles and the rest of α (a = α(c-1) + β). Only for (c+1) | N.
std::vector<int> component_cycles(long long n, int c) {
  const long long a = n / (c + 1);
  if (a < c + 1) return std::vector<int>(static_cast<std::size_t>(a), 1);
  const long long alpha = a / (c - 1), beta = a % (c - 1);
  std::vector<int> out;
  for (long long k = 0; k < c - 1; ++k) out.push_back(static_cast<int>(alpha + (k < beta ? 1 : 0)));
  return out;
}

}  // namespace

std::vector<ChordalRingSchedule::Component> ChordalRingSchedule::components(long long n, int c) {
  const long long a = n / (c + 1), b = n % (c + 1);
  std::vector<Component> out;
  if (b == 0) {
    // §4.1: each component's accumulation node is vertex R = c-1 of its
    // first cycle.
    long long lo = 0;
    for (int cycles : component_cycles(n, c)) {
      out.push_back({lo, lo + static_cast<long long>(cycles) * (c + 1), lo + c - 1});
      lo = out.back().hi;
    }
    return out;
  }
  if (a < b / 2) {
    // §4.3.2: the a cycles of §3.1 one component each, then the path of the
    // b remaining vertices, accumulating in its vertex b-2.
    for (long long i = 0; i < a; ++i) out.push_back({i * (c + 1), (i + 1) * (c + 1), i * (c + 1) + c - 1});
    out.push_back({a * (c + 1), n, a * (c + 1) + b - 2});
    return out;
  }
  // §4.3.1: b/2 subgraphs of type A (c+3 consecutive vertices) and then
  // a - b/2 cycles of c+1, grouped into a components (a < c+1) or c-1 runs
  // of α+1 or α subgraphs (a = α(c-1) + β), so that each of the first b/2
  // components starts with one A. A component accumulates in vertex c+1 of
  // its A, or c-1 of its first cycle.
  std::vector<long long> sizes;  // subgraphs per component
  if (a < c + 1) {
    sizes.assign(static_cast<std::size_t>(a), 1);
  } else {
    const long long alpha = a / (c - 1), beta = a % (c - 1);
    for (long long k = 0; k < c - 1; ++k) sizes.push_back(alpha + (k < beta ? 1 : 0));
  }
  long long lo = 0;
  for (long long k = 0; k < static_cast<long long>(sizes.size()); ++k) {
    const bool starts_with_a = k < b / 2;
    long long hi = lo;
    for (long long t = 0; t < sizes[static_cast<std::size_t>(k)]; ++t) hi += t == 0 && starts_with_a ? c + 3 : c + 1;
    out.push_back({lo, hi, lo + (starts_with_a ? c + 1 : c - 1)});
    lo = hi;
  }
  return out;
}

std::string ChordalRingSchedule::not_applicable(const Torus& torus, int chord) {
  const long long n = torus.size();
  if (n % 2) return "needs an even number of ranks (C(N, c) is bipartite, §3)";
  if (chord == 0) {
    if (best_chord(n) == 0)
      return "no chord c fits " + std::to_string(n) + " ranks (needs c odd, 3 <= c <= N/2)";
    return {};
  }
  if (chord % 2 == 0 || chord < 3 || chord > n / 2) return "the chord must be odd with 3 <= c <= N/2";
  if (paths(n, chord) == Paths::none)
    return "no edge-disjoint paths found for the gossip among the accumulation nodes of C(" + std::to_string(n) + ", " +
           std::to_string(chord) + ") (the paper's fail; the search runs up to " + std::to_string(kMaxSearchedRanks) +
           " ranks)";
  return {};
}

ChordalRingSchedule::Shape ChordalRingSchedule::shape(long long n, int c) {
  const long long a = n / (c + 1), b = n % (c + 1);
  if (b != 0 && a < b / 2) return {a + 1, std::max<long long>(c + 1, b)};  // §4.3.2: cycles and a path
  // §4.1 and §4.3.1: a single subgraph each (a < c+1), or c-1 runs of α+1
  // or α subgraphs, the first starting with an A of c+3 where b > 0.
  const long long extra = b == 0 ? 0 : 2;
  if (a < c + 1) return {a, c + 1 + extra};
  const long long alpha = a / (c - 1), beta = a % (c - 1);
  return {c - 1, (alpha + (beta > 0 ? 1 : 0)) * (c + 1) + extra};
}

long long ChordalRingSchedule::formula_rounds(long long n, int c) {
  const Shape k = shape(n, c);
  return 2 * ceil_log2(k.largest) + gossip_round_count(static_cast<int>(k.count));
}

int ChordalRingSchedule::best_chord(long long n) {
  if (n % 2) return 0;
  // By rounds, then §4.1's chords, §4.3.1's and §4.3.2's, then the
  // smallest; the first whose paths exist. The formula is O(1) per chord,
  // the paper's paths O(N log r). The search is tried for at most
  // kSearchedChords chords of at most kSearchedComponents components: with
  // more it has not found paths in our tests, and each failure costs up to
  // a second at 16384 ranks. Chords go into buckets by (rounds, section) in
  // ascending order, so no sort is needed.
  std::vector<std::array<std::vector<int>, 3>> order;
  for (long long c = 3; c <= n / 2; c += 2) {
    const long long a = n / (c + 1), b = n % (c + 1);
    const auto rounds = static_cast<std::size_t>(formula_rounds(n, static_cast<int>(c)));
    if (order.size() <= rounds) order.resize(rounds + 1);
    order[rounds][b == 0 ? 0 : a >= b / 2 ? 1 : 2].push_back(static_cast<int>(c));
  }
  int searched = 0;
  for (const auto& by_section : order)
    for (std::size_t section = 0; section < 3; ++section)
      for (int c : by_section[section]) {
        if (section < 2 && paths(n, c) == Paths::papers) return c;
        if (n > kMaxSearchedRanks || searched >= kSearchedChords || shape(n, c).count > kSearchedComponents)
          continue;
        ++searched;
        if (paths(n, c) != Paths::none) return c;
      }
  return 0;
}

namespace {

/// What paths() decided for one (N, c), and the searched paths.
struct KnownPaths {
  ChordalRingSchedule::Paths source;
  std::shared_ptr<const ChordalRingSchedule::Routes> searched;
};

/// not_applicable(), best_chord() and the constructor all ask, for every
/// communicator of this size: derive once per (N, c).
KnownPaths known_paths(long long n, int c) {
  using Paths = ChordalRingSchedule::Paths;
  static std::mutex mutex;
  static std::map<std::pair<long long, int>, KnownPaths> known;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (auto it = known.find({n, c}); it != known.end()) return it->second;
  }
  KnownPaths found{Paths::none, nullptr};
  if (ChordalRingSchedule::walk_paper_paths(n, c, nullptr)) {
    found.source = Paths::papers;
  } else if (auto routes = ChordalRingSchedule::search_routes(n, c)) {
    found = {Paths::searched, std::make_shared<const ChordalRingSchedule::Routes>(std::move(*routes))};
  }
  const std::lock_guard<std::mutex> lock(mutex);
  return known.emplace(std::pair{n, c}, std::move(found)).first->second;
}

}  // namespace

ChordalRingSchedule::Paths ChordalRingSchedule::paths(long long n, int c) { return known_paths(n, c).source; }

std::shared_ptr<const ChordalRingSchedule::Routes> ChordalRingSchedule::searched(long long n, int c) {
  return known_paths(n, c).searched;
}

std::optional<ChordalRingSchedule::Routes> ChordalRingSchedule::gossip_routes(long long n, int c) {
  if (auto routes = paper_routes(n, c)) return routes;
  return search_routes(n, c);
}

std::optional<ChordalRingSchedule::Route> ChordalRingSchedule::paper_route(long long n, int c,
                                                                           const std::vector<Component>& comps,
                                                                           int groups, int first, int second) {
  const int r = static_cast<int>(comps.size()), R = c - 1;
  // The subgraphs (first label, size) of pseudo-component g: a type-A
  // subgraph of c+3 vertices first if it accumulates in vertex c+1, then
  // (c+1)-cycles. In Algorithm 3's middle rounds pseudo-component groups-1
  // is the run of components groups-1 .. r-1.
  auto pseudo = [&](int g) {
    std::vector<std::pair<Rank, long long>> subs;
    for (int k = g; k < (g == groups - 1 ? r : g + 1); ++k) {
      const auto& comp = comps[static_cast<std::size_t>(k)];
      long long size = comp.acc - comp.lo == c + 1 ? c + 3 : c + 1;
      for (Rank lo = comp.lo; lo < comp.hi; lo += size, size = c + 1) subs.emplace_back(lo, size);
    }
    return subs;
  };
  int from = first, l = ((second - first) % groups + groups) % groups;
  if (l > R / 2) {  // called from the other end (§4.1, Algorithm 2's rounds)
    from = second;
    l = groups - l;
  }
  if (l > R / 2) return std::nullopt;
  Route route{comps[static_cast<std::size_t>(from)].acc, {}};
  Rank u = route.from;
  auto step = [&](Port p) {
    route.ports.push_back(p);
    u = chord_ring_hop(n, c, u, p);
  };
  auto walk_to = [&](Rank target) {  // within one subgraph: no wrap
    while (u != target) step(target > u ? kPlus : kMinus);
  };
  // Lane k of a subgraph is its vertex R-2k, R-2k+2 in a type-A one (its
  // accumulation node c+1 is lane 0). A path in lane k takes the chord of
  // that vertex (even, so +c), lands on vertex R-2k-1 of the next subgraph
  // and steps to the lane it continues in there: k inside a component, k+1
  // in the next component.
  auto enter = [&](std::pair<Rank, long long> sub, int lane, bool last) {
    step(kChord);
    if (u < sub.first || u >= sub.first + sub.second) return false;
    if (!last) walk_to(sub.first + R - 2 * lane + (sub.second == c + 3 ? 2 : 0));
    return true;
  };
  for (int k = 0; k < l; ++k) {
    const auto subs = pseudo((from + k) % groups);
    for (std::size_t t = 1; t < subs.size(); ++t)
      if (!enter(subs[t], k, false)) return std::nullopt;
    if (!enter(pseudo((from + k + 1) % groups).front(), k + 1, k + 1 == l)) return std::nullopt;
  }
  // In component i+l, from vertex R-2l+1 where it lands: down to vertex 0
  // of its first subgraph, the subgraph's closing chord to vertex c, then
  // one step to the accumulation node (c-1 of a cycle, c+1 of a type-A
  // subgraph).
  const auto last = pseudo((from + l) % groups).front();
  walk_to(last.first);
  step(kChord);
  if (u != last.first + c) return std::nullopt;
  walk_to(comps[static_cast<std::size_t>((from + l) % groups)].acc);
  return route;
}

bool ChordalRingSchedule::walk_paper_paths(long long n, int c, Routes* out) {
  const long long a = n / (c + 1), b = n % (c + 1);
  // §4.3.2 (a < b/2) says only "define an algorithm as in Section 4.1":
  // its path component's chords leave it out of step with the lanes below.
  if (b != 0 && a < b / 2) return false;
  const auto comps = components(n, c);
  std::vector<char> used(static_cast<std::size_t>(n + n / 2));
  for (const auto& round : complete_gossip(static_cast<int>(comps.size()))) {
    std::fill(used.begin(), used.end(), 0);
    if (out) out->rounds.emplace_back();
    for (const auto& pr : round.pairs) {
      auto route = paper_route(n, c, comps, round.groups, pr.first, pr.second);
      if (!route) return false;
      Rank u = route->from;
      for (Port p : route->ports) {
        if (used[edge_of(n, c, u, p)]++) return false;
        u = chord_ring_hop(n, c, u, p);
      }
      if (out) out->rounds.back().push_back(std::move(*route));
    }
  }
  return true;
}

std::optional<ChordalRingSchedule::Routes> ChordalRingSchedule::paper_routes(long long n, int c) {
  Routes out{{}, true};
  if (!walk_paper_paths(n, c, &out)) return std::nullopt;
  return out;
}

std::optional<ChordalRingSchedule::Routes> ChordalRingSchedule::search_routes(long long n, int c) {
  if (n > kMaxSearchedRanks) return std::nullopt;
  auto hop = [n, c](Rank u, Port p) { return chord_ring_hop(n, c, u, p); };
  auto edge = [n, c](Rank u, Port p) { return edge_of(n, c, u, p); };
  const auto comps = components(n, c);
  const std::size_t edges = static_cast<std::size_t>(n + n / 2);
  Routes out{{}, false};
  std::vector<double> dist(static_cast<std::size_t>(n));
  std::vector<Rank> parent(static_cast<std::size_t>(n));
  std::vector<Port> via(static_cast<std::size_t>(n));
  for (const auto& round : complete_gossip(static_cast<int>(comps.size()))) {
    // Negotiated congestion (rip-up and reroute, as in FPGA routers): every
    // pair takes its cheapest path, where an edge costs more the more paths
    // use it now and the more often it was overused before; the pairs are
    // rerouted in turn until no edge carries two paths. Deterministic, so
    // every rank derives the same paths.
    const std::size_t m = round.pairs.size();
    std::vector<std::vector<Port>> routes(m);
    std::vector<int> load(edges, 0);
    std::vector<double> history(edges, 0.0);
    auto walk = [&](std::size_t k, int delta) {
      Rank u = comps[static_cast<std::size_t>(round.pairs[k].first)].acc;
      for (Port p : routes[k]) {
        load[edge(u, p)] += delta;
        u = hop(u, p);
      }
    };
    double present = 0.5;
    bool disjoint = false;
    for (int iteration = 0; iteration < kRerouteIterations && !disjoint; ++iteration) {
      for (std::size_t k = 0; k < m; ++k) {
        walk(k, -1);
        const Rank x = comps[static_cast<std::size_t>(round.pairs[k].first)].acc;
        const Rank y = comps[static_cast<std::size_t>(round.pairs[k].second)].acc;
        std::fill(dist.begin(), dist.end(), -1.0);
        using Item = std::pair<double, Rank>;
        std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
        dist[static_cast<std::size_t>(x)] = 0;
        queue.emplace(0.0, x);
        while (!queue.empty()) {
          const auto [d, u] = queue.top();
          queue.pop();
          if (u == y) break;
          if (d > dist[static_cast<std::size_t>(u)]) continue;
          for (Port p : {kChord, kPlus, kMinus}) {
            const std::size_t e = edge(u, p);
            const Rank v = hop(u, p);
            const double nd = d + (1.0 + history[e]) * (1.0 + present * load[e]);
            if (dist[static_cast<std::size_t>(v)] >= 0 && dist[static_cast<std::size_t>(v)] <= nd) continue;
            dist[static_cast<std::size_t>(v)] = nd;
            parent[static_cast<std::size_t>(v)] = u;
            via[static_cast<std::size_t>(v)] = p;
            queue.emplace(nd, v);
          }
        }
        routes[k].clear();
        for (Rank v = y; v != x; v = parent[static_cast<std::size_t>(v)]) routes[k].push_back(via[static_cast<std::size_t>(v)]);
        std::reverse(routes[k].begin(), routes[k].end());
        walk(k, +1);
      }
      disjoint = true;
      for (std::size_t e = 0; e < edges; ++e)
        if (load[e] > 1) {
          disjoint = false;
          history[e] += 1.0;
        }
      present *= 1.5;
    }
    if (!disjoint) return std::nullopt;
    std::vector<Route> calls;
    for (std::size_t k = 0; k < m; ++k)
      calls.push_back({comps[static_cast<std::size_t>(round.pairs[k].first)].acc, std::move(routes[k])});
    out.rounds.push_back(std::move(calls));
  }
  return out;
}

Rank ChordalRingSchedule::link_target(Rank r, Port p) const { return chord_ring_hop(n_, c_, r, p); }

namespace {

/// The ports from label `from` to label `to` along the ring.
std::vector<Port> along(Rank from, Rank to) {
  return std::vector<Port>(static_cast<std::size_t>(to > from ? to - from : from - to), to > from ? kPlus : kMinus);
}

/// A route walked back: the same edges from its other end.
std::vector<Port> reversed(const std::vector<Port>& route) {
  std::vector<Port> back(route.rbegin(), route.rend());
  for (Port& p : back) p = p == kChord ? kChord : (p == kPlus ? kMinus : kPlus);
  return back;
}

}  // namespace

/// One rank's rounds. Phases 1 and 3 (Lemma 1, Farley): a component is a
/// run of labels; the broadcast from its accumulation node halves the run
/// (halving_calls_of), the accumulation is that broadcast reversed, so a
/// callee sends up exactly the run it roots and gets back everything else.
/// Phase 2: the accumulation nodes exchange what the other lacks, from the
/// gossip's closed form, along the round's path and back along it reversed.
class ChordalRingSchedule::Program final : public RankProgram {
 public:
  Program(const ChordalRingSchedule& s, Rank self) : s_(s), self_(self) {
    const auto it = std::upper_bound(s.comps_.begin(), s.comps_.end(), self,
                                     [](Rank x, const Component& k) { return x < k.lo; });
    comp_ = static_cast<int>(it - s.comps_.begin()) - 1;
    const Component& k = s.comps_[static_cast<std::size_t>(comp_)];
    tree_ = halving_calls_of(k.lo, k.hi, k.acc, self);
  }

  void next_round(RoundOps& ops) override {
    calls_.clear();
    const long long t = round_++, D = s_.depth_, G = s_.gossip_rounds_;
    if (t < D) {
      for (const HalvingCall& call : tree_)
        if (call.depth == D - 1 - t) {
          const bool send = self_ == call.callee;
          calls_.add(send, send ? call.root : call.callee, along(call.callee, call.root), BlockRanges{{call.lo, call.hi}});
        }
    } else if (t < D + G) {
      gossip(static_cast<int>(t - D));
    } else if (t < 2 * D + G) {
      for (const HalvingCall& call : tree_)
        if (call.depth == t - D - G) {
          BlockRanges rest;
          if (call.lo > 0) rest.emplace_back(0, call.lo);
          if (call.hi < s_.n_) rest.emplace_back(call.hi, s_.n_);
          const bool send = self_ == call.root;
          calls_.add(send, send ? call.callee : call.root, along(call.root, call.callee), std::move(rest));
        }
    }
    calls_.emit(ops);
  }

 private:
  void gossip(int g) {
    const int r = static_cast<int>(s_.comps_.size());
    if (self_ != s_.comps_[static_cast<std::size_t>(comp_)].acc) return;
    const auto [first, second] = gossip_pair(r, g, comp_);
    if (first < 0) return;
    const int other = first == comp_ ? second : first;
    std::optional<Route> route;
    if (s_.searched_) {
      for (const Route& x : s_.searched_->rounds[static_cast<std::size_t>(g)])
        if (x.from == s_.comps_[static_cast<std::size_t>(first)].acc) route = x;
    } else {
      route = paper_route(s_.n_, s_.c_, s_.comps_, gossip_groups(r, g), first, second);
    }
    if (!route) throw std::logic_error("chordal-ring: no gossip path for a pair");
    const bool mine = route->from == self_;
    const Rank peer = s_.comps_[static_cast<std::size_t>(other)].acc;
    const NodeIntervals held = gossip_holding(r, g, comp_), theirs = gossip_holding(r, g, other);
    const BlockRanges out = labels(minus(held, theirs)), in = labels(minus(theirs, held));
    calls_.add(true, peer, mine ? route->ports : reversed(route->ports), out);
    calls_.add(false, peer, mine ? reversed(route->ports) : route->ports, in);
  }

  /// The labels of runs of components: consecutive components are
  /// consecutive runs of labels.
  BlockRanges labels(const NodeIntervals& comps) const {
    BlockRanges out;
    for (const auto& [a, b] : comps)
      out.emplace_back(s_.comps_[static_cast<std::size_t>(a)].lo, s_.comps_[static_cast<std::size_t>(b - 1)].hi);
    return out;
  }

  const ChordalRingSchedule& s_;
  Rank self_;
  int comp_ = 0;
  std::vector<HalvingCall> tree_;
  long long round_ = 0;
  RoundCalls calls_;
};

std::unique_ptr<RankProgram> ChordalRingSchedule::program(Rank r) const { return std::make_unique<Program>(*this, r); }

ChordalRingSchedule::ChordalRingSchedule(const Torus& torus, int chord)
    : Schedule(Torus({static_cast<int>(torus.size())})), n_(torus.size()), c_(chord) {
  if (std::string why = not_applicable(torus, chord); !why.empty()) throw std::invalid_argument("chordal-ring: " + why);
  if (c_ == 0) c_ = best_chord(n_);
  const int c = c_;
  comps_ = components(n_, c);
  const int r = static_cast<int>(comps_.size());
  long long most = 0;
  for (const auto& k : comps_) most = std::max(most, k.hi - k.lo);
  depth_ = static_cast<int>(ceil_log2(most));
  gossip_rounds_ = gossip_round_count(r);
  const Paths source = paths(n_, c);
  if (source == Paths::none) throw std::logic_error("chordal-ring: no edge-disjoint gossip paths");
  if (source == Paths::searched) searched_ = searched(n_, c);
  rounds_ = formula_rounds(n_, c);
  const long long a = n_ / (c + 1), b_rest = n_ % (c + 1);
  const std::string section =
      b_rest == 0   ? "§4.1"
      : a < b_rest / 2 ? "§4.3.2: cycles and a path of " + std::to_string(b_rest) + " vertices"
                       : "§4.3.1: " + std::to_string(b_rest / 2) + " type-A subgraph" + (b_rest == 2 ? "" : "s");
  construction_ = "C(" + std::to_string(n_) + ", " + std::to_string(c) + "): " + std::to_string(r) +
                  " components of at most " + std::to_string(most) + " nodes (" + section + ", " +
                  (source == Paths::papers ? "the paper's paths" : "searched paths") + ")";
}

}  // namespace torusgather
