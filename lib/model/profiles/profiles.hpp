// SPDX-License-Identifier: BSD-3-Clause
// The closed-form cost profiles, one file per algorithm (and the vendor's
// algorithms in vendor.cpp): what profile() measures by stepping through
// every rank's rounds, from the construction. model/closed_form.hpp chooses
// among them; tests/unit/test_closed_form.cpp checks each round by round.
#pragma once

#include "model/cost.hpp"
#include "schedule/bridgehead.hpp"
#include "schedule/circulant.hpp"
#include "schedule/cubgos.hpp"
#include "schedule/dim_rings.hpp"
#include "schedule/partial_cycles.hpp"
#include "schedule/three_phase.hpp"
#include "schedule/torus_bruck.hpp"

namespace torusgather {
namespace profiles {

/// dim-rings' colours, phase by phase (Juurlink, Rao & Sibeyn, approach 1).
CostProfile dim_rings(const DimRingsSchedule& s, int node_ranks);
/// hamiltonian's floor(P/2) rounds (Meyer & Sibeyn §3), one rank per node.
CostProfile hamiltonian(const Torus& t);
/// torus-bruck's rounds from its parts (Bruck et al. 1997).
CostProfile torus_bruck(const TorusBruckSchedule& s, int node_ranks);
/// The bridgehead family's rounds from one ring per side (Juurlink, Rao &
/// Sibeyn §4.2-4.3, §6.2), one rank per node.
CostProfile bridgehead(const BridgeheadSchedule& s);

/// circulant's D* rounds routed over `net` in dimension order (Monakhova &
/// Monakhov §5: every rank's tree is rank 0's, translated).
CostProfile circulant(const CirculantSchedule& s, const Torus& net, int node_ranks);

/// cubgos' rounds from one line per round (Juurlink, Rao & Sibeyn §6.2).
CostProfile cubgos(const CubgosSchedule& s, int node_ranks);

/// partial-cycles' rounds, every rank's sends without its program (Meyer &
/// Sibeyn §4); O(P d) per round.
CostProfile partial_cycles(const PartialCyclesSchedule& s, int node_ranks);

/// three-phase with one rank per node: the gossip's rounds routed over `net`
/// in dimension order (Barriere, Cohen & Mitjana §4.1, Algorithms 2 and 3),
/// every rank's messages without its program; false (nothing done) where a
/// node has several ranks.
bool three_phase(const ThreePhaseSchedule& s, const Torus& net, int node_ranks, CostProfile* out);

/// The torus's last axis where it is each node's node_ranks ranks (shared
/// memory; axis -1 where there is none), and how many ranks share each of a
/// node's network links.
struct NodeAxis {
  int axis = -1;
  double share = 1;
};
inline NodeAxis node_axis_of(const Torus& t, int node_ranks) {
  if (node_ranks > 1 && t.ndims() > 1 && t.dim(t.ndims() - 1) == node_ranks)
    return {t.ndims() - 1, static_cast<double>(node_ranks)};
  return {};
}

/// A node's k ranks share its links: a closed form that ignores the node
/// axis charges each network link k times its one rank's load.
void shared_by_node(CostProfile* p, int node_ranks);

}  // namespace profiles
}  // namespace torusgather
