// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/chordal_ring.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <queue>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

#include "schedule/phases.hpp"

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
  if (n > kMaxRanks) return "builds its calls with P x P bits: at most " + std::to_string(kMaxRanks) + " ranks";
  if (n % 2) return "needs an even number of ranks (C(N, c) is bipartite, §3)";
  if (chord == 0) {
    if (best_chord(n) == 0)
      return "no chord c fits " + std::to_string(n) + " ranks (needs c odd, 3 <= c <= N/2)";
    return {};
  }
  if (chord % 2 == 0 || chord < 3 || chord > n / 2) return "the chord must be odd with 3 <= c <= N/2";
  if (!gossip_routes(n, chord))
    return "no edge-disjoint paths found for the gossip among the accumulation nodes of C(" + std::to_string(n) + ", " +
           std::to_string(chord) + ")";
  return {};
}

long long ChordalRingSchedule::formula_rounds(long long n, int c) {
  const auto comps = components(n, c);
  long long most = 0;
  for (const auto& k : comps) most = std::max(most, k.hi - k.lo);
  return 2 * ceil_log2(most) + static_cast<long long>(complete_gossip(static_cast<int>(comps.size())).size());
}

int ChordalRingSchedule::best_chord(long long n) {
  if (n % 2) return 0;
  // By rounds, then §4.1's chords, §4.3.1's and §4.3.2's, then the
  // smallest; the first whose paths exist. The formula is O(c) per chord,
  // the paper's paths O(N log r). The search is tried for at most
  // kSearchedChords chords of at most kSearchedComponents components: with
  // more it has not found paths in our tests, and each failure costs up to
  // a second at 16384 ranks.
  std::vector<std::tuple<long long, int, int>> order;
  for (long long c = 3; c <= n / 2; c += 2) {
    const long long a = n / (c + 1), b = n % (c + 1);
    order.emplace_back(formula_rounds(n, static_cast<int>(c)), b == 0 ? 0 : a >= b / 2 ? 1 : 2, static_cast<int>(c));
  }
  std::sort(order.begin(), order.end());
  int searched = 0;
  for (const auto& [rounds, section, c] : order) {
    if (section < 2 && paper_routes(n, c)) return c;
    if (searched >= kSearchedChords || static_cast<int>(components(n, c).size()) > kSearchedComponents) continue;
    ++searched;
    if (gossip_routes(n, c)) return c;
  }
  return 0;
}

std::optional<ChordalRingSchedule::Routes> ChordalRingSchedule::gossip_routes(long long n, int c) {
  // not_applicable(), best_chord() and the constructor all ask, for every
  // communicator of this size: derive once per (N, c).
  static std::mutex mutex;
  static std::map<std::pair<long long, int>, std::optional<Routes>> known;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (auto it = known.find({n, c}); it != known.end()) return it->second;
  }
  std::optional<Routes> routes = paper_routes(n, c);
  if (!routes) routes = search_routes(n, c);
  const std::lock_guard<std::mutex> lock(mutex);
  return known.emplace(std::pair{n, c}, std::move(routes)).first->second;
}

std::optional<ChordalRingSchedule::Routes> ChordalRingSchedule::paper_routes(long long n, int c) {
  const long long a = n / (c + 1), b = n % (c + 1);
  // §4.3.2 (a < b/2) says only "define an algorithm as in Section 4.1":
  // its path component's chords leave it out of step with the lanes below.
  if (b != 0 && a < b / 2) return std::nullopt;
  const auto comps = components(n, c);
  const int r = static_cast<int>(comps.size()), R = c - 1;
  // The subgraphs (first label, size) of component k: a type-A subgraph of
  // c+3 vertices first if it accumulates in vertex c+1, then (c+1)-cycles.
  std::vector<std::vector<std::pair<Rank, long long>>> subgraphs(static_cast<std::size_t>(r));
  for (int k = 0; k < r; ++k) {
    const auto& comp = comps[static_cast<std::size_t>(k)];
    long long size = comp.acc - comp.lo == c + 1 ? c + 3 : c + 1;
    for (Rank lo = comp.lo; lo < comp.hi; lo += size, size = c + 1) subgraphs[static_cast<std::size_t>(k)].emplace_back(lo, size);
  }
  Routes out{{}, true};
  std::vector<char> used(static_cast<std::size_t>(n + n / 2));
  for (const auto& round : complete_gossip(r)) {
    const int groups = round.groups;
    // In Algorithm 3's middle rounds pseudo-component groups-1 is the run
    // of components groups-1 .. r-1.
    auto pseudo = [&](int g) {
      std::vector<std::pair<Rank, long long>> subs = subgraphs[static_cast<std::size_t>(g)];
      if (g == groups - 1)
        for (int k = g + 1; k < r; ++k) subs.insert(subs.end(), subgraphs[static_cast<std::size_t>(k)].begin(), subgraphs[static_cast<std::size_t>(k)].end());
      return subs;
    };
    std::fill(used.begin(), used.end(), 0);
    std::vector<Route> routes;
    for (const auto& pr : round.pairs) {
      int from = pr.first, l = ((pr.second - pr.first) % groups + groups) % groups;
      if (l > R / 2) {  // called from the other end (§4.1, Algorithm 2's rounds)
        from = pr.second;
        l = groups - l;
      }
      if (l > R / 2) return std::nullopt;
      Route route{comps[static_cast<std::size_t>(from)].acc, {}};
      Rank u = route.from;
      bool ok = true;
      auto step = [&](Port p) {
        ok = ok && !used[edge_of(n, c, u, p)]++;
        route.ports.push_back(p);
        u = chord_ring_hop(n, c, u, p);
      };
      auto walk_to = [&](Rank target) {  // within one subgraph: no wrap
        while (u != target) step(target > u ? kPlus : kMinus);
      };
      // Lane k of a subgraph is its vertex R-2k, R-2k+2 in a type-A one
      // (its accumulation node c+1 is lane 0). A path in lane k takes the
      // chord of that vertex (even, so +c), lands on vertex R-2k-1 of the
      // next subgraph and steps to the lane it continues in there: k inside
      // a component, k+1 in the next component.
      auto enter = [&](std::pair<Rank, long long> sub, int lane, bool last) {
        step(kChord);
        if (u < sub.first || u >= sub.first + sub.second) return false;
        if (!last) walk_to(sub.first + R - 2 * lane + (sub.second == c + 3 ? 2 : 0));
        return true;
      };
      for (int k = 0; k < l && ok; ++k) {
        const auto subs = pseudo((from + k) % groups);
        for (std::size_t t = 1; t < subs.size() && ok; ++t) ok = enter(subs[t], k, false);
        ok = ok && enter(pseudo((from + k + 1) % groups).front(), k + 1, k + 1 == l);
      }
      if (!ok) return std::nullopt;
      // In component i+l, from vertex R-2l+1 where it lands: down to vertex
      // 0 of its first subgraph, the subgraph's closing chord to vertex c,
      // then one step to the accumulation node (c-1 of a cycle, c+1 of a
      // type-A subgraph).
      const auto last = pseudo((from + l) % groups).front();
      walk_to(last.first);
      step(kChord);
      if (u != last.first + c) return std::nullopt;
      walk_to(comps[static_cast<std::size_t>((from + l) % groups)].acc);
      if (!ok) return std::nullopt;
      routes.push_back(std::move(route));
    }
    out.rounds.push_back(std::move(routes));
  }
  return out;
}

std::optional<ChordalRingSchedule::Routes> ChordalRingSchedule::search_routes(long long n, int c) {
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

ChordalRingSchedule::ChordalRingSchedule(const Torus& torus, int chord)
    : ExplicitSchedule(Torus({static_cast<int>(torus.size())})), n_(torus.size()), c_(chord) {
  if (std::string why = not_applicable(torus, chord); !why.empty()) throw std::invalid_argument("chordal-ring: " + why);
  if (c_ == 0) c_ = best_chord(n_);
  const int c = c_;
  const auto comps = components(n_, c);
  const int r = static_cast<int>(comps.size());

  GossipBuilder b(n_, [this](Rank x, Port p) { return link_target(x, p); });
  // Phases 1 and 3 (Lemma 1, Farley): a component is a run of consecutive
  // labels, a path along the ring; broadcast from its accumulation node by
  // halving the run, the informed node calling the nearest node of the
  // other half, so each round's paths lie in disjoint runs: ⌈log2 s⌉
  // rounds. Accumulation is that broadcast reversed.
  std::vector<std::vector<std::pair<Rank, Rank>>> tree;  // rounds of (caller, callee)
  for (const auto& k : comps) {
    const auto rounds = halving_broadcast(k.lo, k.hi, k.acc);
    if (tree.size() < rounds.size()) tree.resize(rounds.size());
    for (std::size_t i = 0; i < rounds.size(); ++i) tree[i].insert(tree[i].end(), rounds[i].begin(), rounds[i].end());
  }
  auto along = [](Rank from, Rank to) {
    return std::vector<Port>(static_cast<std::size_t>(to > from ? to - from : from - to), to > from ? kPlus : kMinus);
  };
  for (auto it = tree.rbegin(); it != tree.rend(); ++it) {
    b.next_round();
    for (const auto& call : *it) b.call(call.second, along(call.second, call.first));
  }
  // Phase 2: each pair of accumulation nodes calls along a path and back
  // along the same path reversed; the paths of a round are edge-disjoint.
  auto exchange = [&b](Rank x, const std::vector<Port>& route) {
    std::vector<Port> back(route.rbegin(), route.rend());
    for (Port& p : back) p = p == kChord ? kChord : (p == kPlus ? kMinus : kPlus);
    b.call(x, route);
    b.call(b.target(x, route), back);
  };
  // The paths of §4.1 and §4.3.1 (paper_routes), or searched ones.
  const auto routes = gossip_routes(n_, c);
  if (!routes) throw std::logic_error("chordal-ring: no edge-disjoint gossip paths");
  for (const auto& round : routes->rounds) {
    b.next_round();
    for (const Route& route : round) exchange(route.from, route.ports);
  }
  for (const auto& round : tree) {
    b.next_round();
    for (const auto& call : round) b.call(call.first, along(call.first, call.second));
  }
  set_calls(b.finish());
  rounds_ = formula_rounds(n_, c);
  long long most = 0;
  for (const auto& k : comps) most = std::max(most, k.hi - k.lo);
  const long long a = n_ / (c + 1), b_rest = n_ % (c + 1);
  const std::string section =
      b_rest == 0   ? "§4.1"
      : a < b_rest / 2 ? "§4.3.2: cycles and a path of " + std::to_string(b_rest) + " vertices"
                       : "§4.3.1: " + std::to_string(b_rest / 2) + " type-A subgraph" + (b_rest == 2 ? "" : "s");
  construction_ = "C(" + std::to_string(n_) + ", " + std::to_string(c) + "): " + std::to_string(r) +
                  " components of at most " + std::to_string(most) + " nodes (" + section + ", " +
                  (routes->papers ? "the paper's paths" : "searched paths") + ")";
}

}  // namespace torusgather
