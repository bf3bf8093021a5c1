#include "schedule/chordal_ring.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>
#include <vector>

#include "schedule/phases.hpp"

namespace torusgather {
namespace {

constexpr Port kMinus = 0, kPlus = 1, kChord = 2;

/// §4.1: the components as runs of consecutive (c+1)-cycles: a single
/// cycle each if a = N/(c+1) < c+1; else c-1 runs, the first β of α+1
/// cycles and the rest of α (a = α(c-1) + β).
std::vector<int> component_cycles(long long n, int c) {
  const long long a = n / (c + 1);
  if (a < c + 1) return std::vector<int>(static_cast<std::size_t>(a), 1);
  const long long alpha = a / (c - 1), beta = a % (c - 1);
  std::vector<int> out;
  for (long long k = 0; k < c - 1; ++k) out.push_back(static_cast<int>(alpha + (k < beta ? 1 : 0)));
  return out;
}

}  // namespace

std::string ChordalRingSchedule::not_applicable(const Torus& torus, int chord) {
  const long long n = torus.size();
  if (n > kMaxRanks) return "builds its calls with P x P bits: at most " + std::to_string(kMaxRanks) + " ranks";
  if (n % 2) return "needs an even number of ranks (C(N, c) is bipartite, §3)";
  if (chord == 0) {
    if (best_chord(n) == 0)
      return "no chord c fits " + std::to_string(n) + " ranks (needs c odd, 3 <= c <= N/2, (c+1) | N: §4.1)";
    return {};
  }
  if (chord % 2 == 0 || chord < 3 || chord > n / 2) return "the chord must be odd with 3 <= c <= N/2";
  if (n % (chord + 1))
    return "N = " + std::to_string(n) + " is not a multiple of c+1 = " + std::to_string(chord + 1) +
           " (§4.3's decomposition with type-A subgraphs is not built)";
  return {};
}

long long ChordalRingSchedule::formula_rounds(long long n, int c) {
  const auto comps = component_cycles(n, c);
  const int most = *std::max_element(comps.begin(), comps.end());
  const int r = static_cast<int>(comps.size());
  return 2 * ceil_log2(static_cast<long long>(most) * (c + 1)) + static_cast<long long>(complete_gossip(r).size());
}

int ChordalRingSchedule::best_chord(long long n) {
  int best = 0;
  long long rounds = 0;
  for (long long c = 3; c <= n / 2; c += 2) {
    if (n % (c + 1)) continue;
    const long long k = formula_rounds(n, static_cast<int>(c));
    if (best == 0 || k < rounds) {
      best = static_cast<int>(c);
      rounds = k;
    }
  }
  return best;
}

Rank ChordalRingSchedule::link_target(Rank r, Port p) const {
  const long long step = p == kMinus ? -1 : p == kPlus ? 1 : (r % 2 == 0 ? c_ : -c_);
  return ((r + step) % n_ + n_) % n_;
}

ChordalRingSchedule::ChordalRingSchedule(const Torus& torus, int chord)
    : ExplicitSchedule(Torus({static_cast<int>(torus.size())})), n_(torus.size()), c_(chord) {
  if (std::string why = not_applicable(torus, chord); !why.empty()) throw std::invalid_argument("chordal-ring: " + why);
  if (c_ == 0) c_ = best_chord(n_);
  const int c = c_, R = c - 1;
  const auto cycles = component_cycles(n_, c);
  const int r = static_cast<int>(cycles.size());
  std::vector<int> first(static_cast<std::size_t>(r) + 1, 0);  // first cycle of each component
  for (int k = 0; k < r; ++k) first[static_cast<std::size_t>(k) + 1] = first[static_cast<std::size_t>(k)] + cycles[static_cast<std::size_t>(k)];
  auto label = [&](int cycle, int j) { return static_cast<Rank>(cycle) * (c + 1) + j; };

  GossipBuilder b(n_, [this](Rank x, Port p) { return link_target(x, p); });
  // Phases 1 and 3 (Lemma 1, Farley): a component is a run of consecutive
  // labels, a path along the ring; broadcast from its accumulation node by
  // halving the run, the informed node calling the nearest node of the
  // other half, so each round's paths lie in disjoint runs: ⌈log2 s⌉
  // rounds. Accumulation is that broadcast reversed.
  std::vector<std::vector<std::pair<Rank, Rank>>> tree;  // rounds of (caller, callee)
  for (int k = 0; k < r; ++k) {
    const auto rounds = halving_broadcast(label(first[static_cast<std::size_t>(k)], 0),
                                          label(first[static_cast<std::size_t>(k) + 1], 0),
                                          label(first[static_cast<std::size_t>(k)], R));
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
  // Phase 2 (§4.1): the path from the accumulation node of component i to
  // that of i+l (l <= (c-1)/2): through component i+k (k < l) from vertex
  // R-2k of its first cycle, [chord, +1] into each next cycle of it, then
  // [chord, -1] to vertex R-2k-2 of the next component's first cycle
  // (vertex j of cycle t is joined to vertex j-1 of cycle t+1 for j even);
  // in component i+l down to vertex 0, the cycle's closing chord to vertex
  // c, and -1 to R. The call back walks it in reverse.
  for (const auto& round : complete_gossip(r)) {
    b.next_round();
    const int groups = round.groups;
    // Merged rounds: pseudo-component groups-1 spans components groups-1 .. r-1.
    auto cycles_of = [&](int g) {
      return g == groups - 1 ? first[static_cast<std::size_t>(r)] - first[static_cast<std::size_t>(g)]
                             : cycles[static_cast<std::size_t>(g)];
    };
    for (const auto& pr : round.pairs) {
      int from = pr.first, l = ((pr.second - pr.first) % groups + groups) % groups;
      if (l > R / 2) {
        from = pr.second;
        l = groups - l;
      }
      if (l > R / 2) throw std::logic_error("chordal-ring: a gossip call spans more than (c-1)/2 components");
      std::vector<Port> route;
      for (int k = 0; k < l; ++k) {
        for (int t = 1; t < cycles_of((from + k) % groups); ++t) route.insert(route.end(), {kChord, kPlus});
        route.insert(route.end(), {kChord, kMinus});
      }
      route.insert(route.end(), static_cast<std::size_t>(R - 2 * l), kMinus);
      route.insert(route.end(), {kChord, kMinus});
      std::vector<Port> back(route.rbegin(), route.rend());
      for (Port& p : back) p = p == kChord ? kChord : (p == kPlus ? kMinus : kPlus);
      const Rank x = label(first[static_cast<std::size_t>(from)], R);
      b.call(x, route);
      b.call(b.target(x, route), back);
    }
  }
  for (const auto& round : tree) {
    b.next_round();
    for (const auto& call : round) b.call(call.first, along(call.first, call.second));
  }
  set_calls(b.finish());
  rounds_ = formula_rounds(n_, c);
  const int most = *std::max_element(cycles.begin(), cycles.end());
  construction_ = "C(" + std::to_string(n_) + ", " + std::to_string(c) + "): " + std::to_string(r) +
                  " components of at most " + std::to_string(most * (c + 1)) + " nodes";
}

}  // namespace torusgather
