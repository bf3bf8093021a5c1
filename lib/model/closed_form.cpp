// SPDX-License-Identifier: BSD-3-Clause
// Which closed-form profile applies (the registry's ProfileTraits), and the
// dispatch to the one of each algorithm in model/profiles/.
#include "model/closed_form.hpp"

#include "model/profiles/profiles.hpp"
#include "schedule/bridgehead.hpp"
#include "schedule/circulant.hpp"
#include "schedule/cubgos.hpp"
#include "schedule/dim_rings.hpp"
#include "schedule/hamiltonian.hpp"
#include "schedule/partial_cycles.hpp"
#include "schedule/torus_bruck.hpp"

namespace torusgather {

namespace profiles {

void shared_by_node(CostProfile* p, int node_ranks) {
  if (node_ranks > 1)
    for (auto& run : p->runs) run.second.link_blocks *= node_ranks;
}

}  // namespace profiles

bool profile_from_schedule(const AlgorithmInfo& info, const Torus& torus) {
  if (!info.profile.from_schedule) return false;
  for (int axis : torus.active_axes())
    if (info.profile.side_limit > 0 && torus.dim(axis) > info.profile.side_limit) return false;
  return true;
}

bool has_profile_at_scale(const AlgorithmInfo& info, const Torus& torus) {
  return info.profile.from_torus || profile_from_schedule(info, torus);
}

std::string no_profile_at_scale(const AlgorithmInfo& info) {
  if (!info.profile.from_schedule) return kNoClosedForm;
  return "above " + std::to_string(kSteppedProfileLimit) + " ranks auto considers it only on sides up to " +
         std::to_string(info.profile.side_limit) + ": " + info.profile.side_limit_why + " (name it, or TORUSGATHER_TUNE)";
}

bool closed_form_profile(const Schedule& schedule, CostProfile* out, int node_ranks, const Torus* physical) {
  if (const auto* c = dynamic_cast<const CirculantSchedule*>(&schedule)) {
    const Torus& net = physical && physical->size() == c->torus().size() ? *physical : c->torus();
    *out = profiles::circulant(*c, net, node_ranks);
    return true;
  }
  if (const auto* d = dynamic_cast<const DimRingsSchedule*>(&schedule)) {
    *out = profiles::dim_rings(*d, node_ranks);
    return true;
  }
  if (const auto* k = dynamic_cast<const TorusBruckSchedule*>(&schedule)) {
    *out = profiles::torus_bruck(*k, node_ranks);
    return true;
  }
  if (const auto* g = dynamic_cast<const CubgosSchedule*>(&schedule)) {
    *out = profiles::cubgos(*g, node_ranks);
    return true;
  }
  if (dynamic_cast<const HamiltonianSchedule*>(&schedule)) {
    *out = profiles::hamiltonian(schedule.torus());
    profiles::shared_by_node(out, node_ranks);
    return true;
  }
  if (const auto* pc = dynamic_cast<const PartialCyclesSchedule*>(&schedule)) {
    *out = profiles::partial_cycles(*pc, node_ranks);
    return true;
  }
  if (const auto* tp = dynamic_cast<const ThreePhaseSchedule*>(&schedule)) {
    const Torus& net = physical && physical->size() == tp->torus().size() ? *physical : tp->torus();
    return profiles::three_phase(*tp, net, node_ranks, out);
  }
  if (const auto* b = dynamic_cast<const BridgeheadSchedule*>(&schedule)) {
    *out = profiles::bridgehead(*b);
    profiles::shared_by_node(out, node_ranks);
    return true;
  }
  return false;
}

bool closed_form_profile(AlgorithmId algorithm, const Torus& torus, CostProfile* out, int node_ranks) {
  switch (algorithm) {
    case AlgorithmId::dim_rings:  // the paper's variant: d colours, halves
      *out = profiles::dim_rings(DimRingsSchedule(torus), node_ranks);
      return true;
    case AlgorithmId::hamiltonian:
      *out = profiles::hamiltonian(torus);
      profiles::shared_by_node(out, node_ranks);
      return true;
    default:
      return false;
  }
}

}  // namespace torusgather
