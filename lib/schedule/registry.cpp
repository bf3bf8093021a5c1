// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/registry.hpp"

#include <functional>
#include <stdexcept>

#include "schedule/bridgehead.hpp"
#include "schedule/cubgos.hpp"
#include "schedule/chordal_ring.hpp"
#include "schedule/circulant.hpp"
#include "schedule/dim_rings.hpp"
#include "schedule/hamiltonian.hpp"
#include "schedule/hamiltonian_partial.hpp"
#include "schedule/lee_code.hpp"
#include "schedule/node_sliced.hpp"
#include "schedule/partial_cycles.hpp"
#include "schedule/three_phase.hpp"
#include "schedule/torus_bruck.hpp"

namespace torusgather {

namespace {

bool parse_ring_params(const std::string& text, const Torus& t, std::string* why) {
  std::vector<RingParams> p;
  return BridgeheadSchedule::parse(text, t, &p, why);
}
std::string ring_params_of(const Schedule& s) {
  return BridgeheadSchedule::to_string(static_cast<const BridgeheadSchedule&>(s).params());
}

// bridgehead and bridgehead-coloured (highdimgos') share their a, b, k per
// axis, their text form and TORUSGATHER_BRIDGEHEAD.
const TunedParams kBridgehead = {
    "TORUSGATHER_BRIDGEHEAD",
    [](const Torus& t, const BuildContext& c) { return BridgeheadSchedule::to_string(BridgeheadSchedule::best(t, c.r)); },
    &parse_ring_params, &ring_params_of};
const TunedParams kBridgeheadColoured = {
    "TORUSGATHER_BRIDGEHEAD",
    [](const Torus& t, const BuildContext& c) {
      return BridgeheadSchedule::to_string(BridgeheadSchedule::best_coloured(t, c.r));
    },
    &parse_ring_params, &ring_params_of};
const TunedParams kCubgos = {
    "TORUSGATHER_CUBGOS",
    [](const Torus& t, const BuildContext& c) { return CubgosSchedule::to_string(CubgosSchedule::best(t, c.r)); },
    [](const std::string& text, const Torus& t, std::string* why) {
      DiagonalParams p;
      return CubgosSchedule::parse(text, t, &p, why);
    },
    [](const Schedule& s) { return CubgosSchedule::to_string(static_cast<const CubgosSchedule&>(s).params()); }};

const TunedParams kTorusBruck = {
    "TORUSGATHER_BRUCK_RADIX",
    [](const Torus& t, const BuildContext& c) {
      return TorusBruckSchedule::to_string(
          TorusBruckSchedule::best(t, c.r, c.overhead_ratio, c.round_ratio, c.node_ranks, c.cost));
    },
    [](const std::string& text, const Torus& t, std::string* why) {
      TorusBruckSchedule::Params p;
      return TorusBruckSchedule::parse(text, t, &p, why);
    },
    [](const Schedule& s) {
      return TorusBruckSchedule::to_string(static_cast<const TorusBruckSchedule&>(s).params());
    }};

const TunedParams kDimRings = {
    "TORUSGATHER_DIM_RINGS",
    [](const Torus& t, const BuildContext& c) {
      return DimRingsSchedule::best(t, c.r, c.overhead_ratio, c.node_ranks == 1, true, c.inject_ratio);
    },
    [](const std::string& text, const Torus& t, std::string* why) {
      DimRingsParams p;
      return DimRingsSchedule::parse(text, t, &p, why);
    },
    [](const Schedule& s) { return DimRingsSchedule::to_string(static_cast<const DimRingsSchedule&>(s).params()); }};

/// node-dim-rings' parameters: dim-rings' for the node torus, then
/// ",overlap" where the node ring overlaps the inner rounds. Strips it.
constexpr const char* kOverlap = ",overlap";
bool strip_overlap(std::string* text) {
  const std::string suffix = kOverlap;
  if (text->size() < suffix.size() || text->compare(text->size() - suffix.size(), suffix.size(), suffix) != 0)
    return false;
  text->resize(text->size() - suffix.size());
  return true;
}

/// How much cheaper balanced streams must be where the node has an
/// injection limit: the fluid model prices them too low there (tofud's
/// nodes x 4, docs/algorithms.md).
constexpr double kBalancedMarginLimited = 1.10;

/// node-dim-rings: the node torus's variant as dim-rings' best() picks it
/// without balanced, a round's link carrying the k slices (r / k), or
/// balanced streams (with snakes where the injection limit makes them
/// cheaper) where the cost model, with the node's injection limit, puts
/// them 5 % cheaper at that r / k (kBalancedMarginLimited with a limit).
/// The node
/// ring overlaps the inner rounds where the cost model (the context's
/// cost) finds that 5 % cheaper: it hides the ring's transfers behind the
/// network's and adds messages to every round, both of which the model
/// counts.
std::string node_dim_rings_best(const Torus& t, const BuildContext& c) {
  const Torus n = NodeSlicedSchedule::node_torus(t);
  const double q = c.overhead_ratio, r = c.r / std::max(1, c.node_ranks);
  std::string picked = DimRingsSchedule::best(n, r, q, true, false, c.inject_ratio);
  DimRingsParams p;
  std::string why;
  if (n.active_axes().size() >= 2) {
    DimRingsSchedule::parse(picked, n, &p, &why);
    const double picked_cost = DimRingsSchedule::model_cost(n, p, r, q, c.inject_ratio);
    const double margin = c.inject_ratio > 0 ? kBalancedMarginLimited : 1.05;
    if (DimRingsSchedule::balanced_floor(n, r) < picked_cost / margin) {
      const DimRingsParams v = DimRingsSchedule::streams_variant(n, r, q, c.inject_ratio);
      if (DimRingsSchedule::model_cost(n, v, r, q, c.inject_ratio) < picked_cost / margin)
        picked = DimRingsSchedule::to_string(v);
    }
  }
  if (!c.cost || !NodeSlicedSchedule::overlap_not_applicable(t).empty()) return picked;
  DimRingsSchedule::parse(picked, n, &p, &why);
  try {
    const NodeSlicedSchedule after(t, std::make_unique<DimRingsSchedule>(n, p));
    const NodeSlicedSchedule overlapped(t, std::make_unique<DimRingsSchedule>(n, p), true);
    return c.cost(overlapped) < c.cost(after) / 1.05 ? picked + kOverlap : picked;
  } catch (const std::invalid_argument&) {
    return picked;  // more messages of a colour on a node link than the tag can number
  }
}

const TunedParams kNodeDimRings = {
    "TORUSGATHER_NODE_DIM_RINGS", &node_dim_rings_best,
    [](const std::string& params, const Torus& t, std::string* why) {
      std::string text = params;
      if (strip_overlap(&text))
        if (std::string no = NodeSlicedSchedule::overlap_not_applicable(t); !no.empty()) {
          *why = "overlap: " + no;
          return false;
        }
      DimRingsParams p;
      return DimRingsSchedule::parse(text, NodeSlicedSchedule::node_torus(t), &p, why);
    },
    [](const Schedule& s) {
      const auto& sliced = static_cast<const NodeSlicedSchedule&>(s);
      return DimRingsSchedule::to_string(static_cast<const DimRingsSchedule&>(sliced.inner()).params()) +
             (sliced.overlap() ? kOverlap : "");
    }};

/// The context's parameters as text, or the best for its r.
std::string params_text(const Torus& t, const BuildContext& c, const TunedParams& tuned) {
  return c.params.empty() ? tuned.best(t, c) : c.params;
}
std::vector<RingParams> ring_params(const Torus& t, const BuildContext& c, const TunedParams& tuned) {
  std::vector<RingParams> p;
  std::string why;
  if (!BridgeheadSchedule::parse(params_text(t, c, tuned), t, &p, &why)) throw std::invalid_argument(why);
  return p;
}

/// A node-sliced schedule over `inner` built on the node torus; throws
/// where the context has no node axis.
std::unique_ptr<Schedule> node_sliced(const Torus& t, const BuildContext& c,
                                      const std::function<std::unique_ptr<Schedule>(const Torus&)>& inner,
                                      bool overlap = false) {
  if (c.node_ranks < 2 || t.dim(t.ndims() - 1) != c.node_ranks)
    throw std::invalid_argument(
        "no node axis: one rank per node (TORUSGATHER_NODE_SIZE, a topology file or MPI_COMM_TYPE_SHARED gives "
        "the ranks per node)");
  return std::make_unique<NodeSlicedSchedule>(t, inner(NodeSlicedSchedule::node_torus(t)), overlap);
}

/// The facts besides the build that other layers ask the registry for.
std::vector<AlgorithmInfo> with_traits(std::vector<AlgorithmInfo> table) {
  for (AlgorithmInfo& a : table) {
    switch (a.id) {
      case AlgorithmId::hamiltonian:
        a.profile.from_torus = true;
        a.cycles_by_rule_only = true;
        // Its floor(P/2) rounds: where they alone put it behind three others,
        // its cycles (a search on some shapes) are not built for the decision.
        a.profile.rounds_at_least = [](const Torus& t) -> long long { return t.size() / 2; };
        break;
      case AlgorithmId::hamiltonian_partial:
        a.fallback = AlgorithmId::hamiltonian;
        break;
      case AlgorithmId::dim_rings:
        a.profile.from_torus = a.profile.from_schedule = true;
        a.open_axes = true;
        break;
      case AlgorithmId::node_dim_rings:
        a.open_axes = true;
        break;
      case AlgorithmId::lee_code:
        a.profile.listing_ns_per_block = 160;
        break;
      case AlgorithmId::lee_code_large:
        a.fallback = AlgorithmId::lee_code;
        a.profile.listing_ns_per_block = 380;
        break;
      case AlgorithmId::circulant:
        a.profile.listing_ns_per_block = 55;
        a.open_axes = true;  // its calls are MPI messages, routed by the network
        a.describe = [](const Schedule& s) {
          const auto& c = static_cast<const CirculantSchedule&>(s);
          return c.packets() > 0 ? "p-gossip, p = " + std::to_string(c.packets()) + ", " +
                                       std::to_string(s.rounds()) + " rounds"
                                 : std::string();
        };
        break;
      case AlgorithmId::chordal_ring:
        a.open_axes = true;  // its calls are MPI messages, routed by the network
        break;
      case AlgorithmId::three_phase:
        a.open_axes = true;  // its calls are MPI messages, routed by the network
        a.needs_node_map = true;
        a.describe = [](const Schedule& s) { return s.construction() + ": " + std::to_string(s.rounds()) + " rounds"; };
        break;
      case AlgorithmId::bridgehead:
      case AlgorithmId::bridgehead_coloured:
        a.profile.from_schedule = true;
        a.profile.side_limit = 16;
        a.profile.side_limit_why = "its a, b, k search grows with the side";
        a.profile.listing_ns_per_block = a.id == AlgorithmId::bridgehead ? 30 : 35;
        if (a.id == AlgorithmId::bridgehead_coloured) a.fallback = AlgorithmId::bridgehead;
        break;
      case AlgorithmId::cubgos:
        a.profile.listing_ns_per_block = 110;
        a.fallback = AlgorithmId::bridgehead;
        break;
      case AlgorithmId::partial_cycles:
        a.profile.rounds_at_least = &PartialCyclesSchedule::rounds_at_least;
        break;
      case AlgorithmId::torus_bruck:
        a.profile.from_schedule = true;
        a.open_axes = true;
        break;
      case AlgorithmId::concentrate:
        a.profile.from_schedule = true;
        a.profile.side_limit = 4096;
        a.profile.side_limit_why = "its profile's ring takes n^2 bits";
        a.profile.listing_ns_per_block = 10;
        break;
      case AlgorithmId::node_hamiltonian:
        a.cycles_by_rule_only = true;
        a.fallback = AlgorithmId::node_dim_rings;
        break;
      default:
        break;
    }
    if (a.tuned) a.describe = a.tuned->of;
  }
  return table;
}

}  // namespace

const std::vector<AlgorithmInfo>& algorithms() {
  static const std::vector<AlgorithmInfo> table = with_traits({
      {AlgorithmId::hamiltonian, "hamiltonian",
       "d edge-disjoint Hamiltonian cycles, block in d parts, each both ways round (Meyer & Sibeyn §3)",
       &HamiltonianSchedule::not_applicable,
       [](const Torus& t, const BuildContext&) -> std::unique_ptr<Schedule> { return std::make_unique<HamiltonianSchedule>(t); }},
      {AlgorithmId::hamiltonian_partial, "hamiltonian-partial",
       "2D with an odd side: two partial Hamiltonian cycles, ranks on one fed the other's packets by two neighbours with switching; one side even: column n-2 passing L<->R only (Meyer & Sibeyn §3.2, Theorem 3); both odd: our rules for the last two rows, two ranks fed at distance two (§3.3, Theorem 4)",
       &HamiltonianPartialSchedule::not_applicable,
       [](const Torus& t, const BuildContext&) -> std::unique_ptr<Schedule> { return std::make_unique<HamiltonianPartialSchedule>(t); },
       "auto skips it: hamiltonian's full cycles take floor(P/2) rounds with the same parts, its ceil(P/2) at best; it runs when named"},
      {AlgorithmId::partial_cycles, "partial-cycles",
       "one packet on d partial cycles, off-cycle ranks fed by neighbours with switching (Meyer & Sibeyn §4, Theorems 5-7); 2D with both sides odd: our two helices in place of §4.1's special column",
       &PartialCyclesSchedule::not_applicable,
       [](const Torus& t, const BuildContext&) -> std::unique_ptr<Schedule> { return std::make_unique<PartialCyclesSchedule>(t); }},
      {AlgorithmId::partial_cycles_ti, "partial-cycles-ti",
       "partial-cycles without switching: fixed port-to-port rules for the whole run, copies passed on (Meyer & Sibeyn §4.1, Theorem 7's time-independent algorithm)",
       &PartialCyclesSchedule::not_applicable,
       [](const Torus& t, const BuildContext&) -> std::unique_ptr<Schedule> { return std::make_unique<PartialCyclesSchedule>(t, true); },
       "auto skips it (rounds like partial-cycles', more of them); it runs when named"},
      {AlgorithmId::dim_rings, "dim-rings",
       "bidirectional rings along each dimension in turn, d colours (Juurlink, Rao & Sibeyn, approach 1); for small blocks fewer colours and the antipode's group whole, fewer messages per round",
       [](const Torus&) { return std::string(); },
       [](const Torus& t, const BuildContext& c) -> std::unique_ptr<Schedule> {
         DimRingsParams p;
         std::string why;
         if (!DimRingsSchedule::parse(params_text(t, c, kDimRings), t, &p, &why)) throw std::invalid_argument(why);
         return std::make_unique<DimRingsSchedule>(t, p);
       },
       nullptr, &kDimRings},
      {AlgorithmId::lee_code, "lee-code",
       "concentrate on a perfect Lee code, gossip among code nodes on arc-disjoint dipaths, broadcast (Delmas & Perennes §5)",
       [](const Torus& t) { return LeeCodeSchedule::not_applicable(t); },
       [](const Torus& t, const BuildContext&) -> std::unique_ptr<Schedule> { return std::make_unique<LeeCodeSchedule>(t); }},
      {AlgorithmId::lee_code_large, "lee-code-large",
       "lee-code with each broadcast split into two rounds of coloured pieces, 1/(2d+1) of the data per link: 5 rounds on 7x7x7 (Delmas & Perennes §6)",
       [](const Torus& t) { return LeeCodeSchedule::not_applicable(t, true); },
       [](const Torus& t, const BuildContext&) -> std::unique_ptr<Schedule> { return std::make_unique<LeeCodeSchedule>(t, true); }},
      {AlgorithmId::circulant, "circulant",
       "superposed broadcast trees on the optimal circulant G(P; s, s+1), D* rounds (Monakhova & Monakhov §5)",
       &CirculantSchedule::not_applicable,
       [](const Torus& t, const BuildContext& c) -> std::unique_ptr<Schedule> {
         return std::make_unique<CirculantSchedule>(t, c.packets);
       }},
      {AlgorithmId::chordal_ring, "chordal-ring",
       "three-phase gossip on the chordal ring C(P, c): accumulate per component of (c+1)-cycles (or type-A subgraphs), gossip on edge-disjoint chord paths, broadcast (Barriere, Cohen & Mitjana §4.1, §4.3)",
       [](const Torus& t) { return ChordalRingSchedule::not_applicable(t); },
       [](const Torus& t, const BuildContext& c) -> std::unique_ptr<Schedule> {
         if (std::string why = ChordalRingSchedule::not_applicable(t, c.chord); !why.empty())
           throw std::invalid_argument(why);
         return std::make_unique<ChordalRingSchedule>(t, c.chord);
       }},
      {AlgorithmId::three_phase, "three-phase",
       "hierarchical: accumulate into one rank per node, gossip among those leaders as in a complete graph, broadcast inside each node (Barriere, Cohen & Mitjana §4.1's three phases; nodes from MPI_COMM_TYPE_SHARED or TORUSGATHER_NODE_SIZE, here one rank per node)",
       [](const Torus& t) { return ThreePhaseSchedule::not_applicable(t); },
       [](const Torus& t, const BuildContext& c) -> std::unique_ptr<Schedule> {
         const std::vector<int> one_per_node;
         const std::vector<int>& node_of = c.node_of ? *c.node_of : one_per_node;
         if (std::string why = ThreePhaseSchedule::not_applicable(t, node_of); !why.empty())
           throw std::invalid_argument(why);
         return std::make_unique<ThreePhaseSchedule>(t, node_of);
       }},
      {AlgorithmId::bridgehead, "bridgehead",
       "circgos(n, a, b) on the rings of each axis in turn: concentrate into bridgeheads, exchange, multiply them (Juurlink, Rao & Sibeyn §4.2)",
       &BridgeheadSchedule::not_applicable,
       [](const Torus& t, const BuildContext& c) -> std::unique_ptr<Schedule> {
         return std::make_unique<BridgeheadSchedule>(t, ring_params(t, c, kBridgehead));
       },
       nullptr, &kBridgehead},
      {AlgorithmId::bridgehead_coloured, "bridgehead-coloured",
       "bridgehead with the block in d colours, colour c taking the axes from the c-th on, so all 2d links work in every phase (Juurlink, Rao & Sibeyn §6.2's colouring, highdimgos')",
       &BridgeheadSchedule::not_applicable_coloured,
       [](const Torus& t, const BuildContext& c) -> std::unique_ptr<Schedule> {
         return std::make_unique<BridgeheadSchedule>(t, ring_params(t, c, kBridgeheadColoured),
                                                     BridgeheadSchedule::Coloured{});
       },
       nullptr, &kBridgeheadColoured},
      {AlgorithmId::cubgos, "cubgos",
       "bridgeheads on generalised diagonals (x_0 = x_1 + ... mod g): concentrate per row, exchange along each axis, multiply them; torgos in 2D (Juurlink, Rao & Sibeyn §5.2, §6)",
       &CubgosSchedule::not_applicable,
       [](const Torus& t, const BuildContext& c) -> std::unique_ptr<Schedule> {
         DiagonalParams p;
         std::string why;
         if (!CubgosSchedule::parse(params_text(t, c, kCubgos), t, &p, &why)) throw std::invalid_argument(why);
         return std::make_unique<CubgosSchedule>(t, p);
       },
       nullptr, &kCubgos},
      {AlgorithmId::torus_bruck, "torus-bruck",
       "Bruck's dissemination with radix k, each round on one axis, growing both ways round each ring, near partners first or (k,far) the long calls first: sum of ceil(log_k n_i) rounds, k - 1 calls per rank and round (Bruck et al., IEEE TPDS 1997)",
       &TorusBruckSchedule::not_applicable,
       [](const Torus& t, const BuildContext& c) -> std::unique_ptr<Schedule> {
         TorusBruckSchedule::Params p;
         std::string why;
         if (!TorusBruckSchedule::parse(params_text(t, c, kTorusBruck), t, &p, &why)) throw std::invalid_argument(why);
         return std::make_unique<TorusBruckSchedule>(t, p, c.node_ranks);
       },
       nullptr, &kTorusBruck},
      {AlgorithmId::concentrate, "concentrate",
       "recursive concentration into one rank per ring and back, 2 ceil(log3 n) steps per axis (Juurlink, Rao & Sibeyn §4.1, approach 2)",
       &BridgeheadSchedule::not_applicable,
       [](const Torus& t, const BuildContext&) -> std::unique_ptr<Schedule> {
         return std::make_unique<BridgeheadSchedule>(t, BridgeheadSchedule::concentrate(t), "concentrate");
       }},
      {AlgorithmId::node_dim_rings, "node-dim-rings",
       "node-aware: rank j of every node runs dim-rings over the node torus with the blocks of every node's rank j (the node's links shared by its k ranks, no block sent twice over the network), then a ring of k inside each node (Juurlink, Rao & Sibeyn approach 1; Barriere, Cohen & Mitjana §4.1's phases)",
       &NodeSlicedSchedule::not_applicable,
       [](const Torus& t, const BuildContext& c) {
         std::string text = params_text(t, c, kNodeDimRings);
         const bool overlap = strip_overlap(&text);
         return node_sliced(
             t, c,
             [&text](const Torus& n) -> std::unique_ptr<Schedule> {
               DimRingsParams p;
               std::string why;
               if (!DimRingsSchedule::parse(text, n, &p, &why)) throw std::invalid_argument(why);
               return std::make_unique<DimRingsSchedule>(n, p);
             },
             overlap);
       },
       nullptr, &kNodeDimRings, true},
      {AlgorithmId::node_hamiltonian, "node-hamiltonian",
       "node-aware: hamiltonian's edge-disjoint cycles over the node torus per slice, then a ring of k inside each node (Meyer & Sibeyn §3)",
       [](const Torus& t) {
         std::string why = NodeSlicedSchedule::not_applicable(t);
         return why.empty() ? HamiltonianSchedule::not_applicable(NodeSlicedSchedule::node_torus(t)) : why;
       },
       [](const Torus& t, const BuildContext& c) {
         return node_sliced(t, c, [](const Torus& n) -> std::unique_ptr<Schedule> {
           return std::make_unique<HamiltonianSchedule>(n);
         });
       },
       nullptr, nullptr, true},
  });
  return table;
}

const AlgorithmInfo& algorithm(AlgorithmId id) {
  const AlgorithmInfo& info = algorithms()[static_cast<std::size_t>(id)];
  if (info.id != id) throw std::logic_error("registry: the table is not in AlgorithmId order");
  return info;
}

const AlgorithmInfo* find_algorithm(const std::string& name) {
  for (const auto& a : algorithms())
    if (name == a.name) return &a;
  return nullptr;
}

std::string declines(const AlgorithmInfo& info, const Torus& torus) {
  if (torus.open_axes() && !info.open_axes)
    return "needs a wraparound link on every axis, and " + torus.to_string() + " has open axes (marked m)";
  return info.not_applicable(torus);
}

std::unique_ptr<Schedule> try_build(const AlgorithmInfo& info, const Torus& torus, std::string* why,
                                    const BuildContext& context) {
  if (std::string reason = declines(info, torus); !reason.empty()) {
    *why = std::move(reason);
    return nullptr;
  }
  try {
    return info.build(torus, context);
  } catch (const std::invalid_argument& e) {
    // Constructors name themselves ("hamiltonian: ..."); the caller already does.
    *why = e.what();
    const std::string prefix = std::string(info.name) + ": ";
    if (why->compare(0, prefix.size(), prefix) == 0) why->erase(0, prefix.size());
    return nullptr;
  }
}

bool tuned_params(const AlgorithmInfo& info, const Torus& torus, const BuildContext& context, std::string* params,
                  std::string* why) {
  if (!info.tuned) return false;
  if (context.params.empty()) {
    *params = info.tuned->best(torus, context);
    return true;
  }
  if (!info.tuned->parse(context.params, torus, why)) return false;
  *params = context.params;
  return true;
}

std::string algorithm_names(const char* sep) {
  std::string s;
  for (const auto& a : algorithms()) {
    if (!s.empty()) s += sep;
    s += a.name;
  }
  return s;
}

}  // namespace torusgather
