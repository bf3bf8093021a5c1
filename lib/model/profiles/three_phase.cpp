// SPDX-License-Identifier: BSD-3-Clause
#include <algorithm>
#include <vector>

#include "model/profiles/profiles.hpp"
#include "model/round_load.hpp"
#include "model/route.hpp"
#include "schedule/phases.hpp"

namespace torusgather {
namespace profiles {

/// One rank per node: the gossip's rounds alone. Each round every rank's
/// holding is worked out once, and each pair's two messages are routed as
/// profile() routes them, without the ranks' programs, a run of links
/// along an axis at once.
bool three_phase(const ThreePhaseSchedule& s, const Torus& net, int node_ranks, CostProfile* out) {
  const Rank P = net.size();
  if (s.nodes() != P) return false;  // nodes of several ranks: their trees are stepped through
  const int r = s.nodes();
  const NodeAxis node = node_axis_of(net, node_ranks);
  RoundLoad load(net, node.axis >= 0 ? node_ranks : 1, node.axis);
  std::vector<NodeIntervals> held(static_cast<std::size_t>(r));
  *out = CostProfile{};
  for (long long t = 0; t < s.rounds(); ++t) {
    for (int i = 0; i < r; ++i) held[static_cast<std::size_t>(i)] = gossip_holding(r, static_cast<int>(t), i);
    for (int i = 0; i < r; ++i) {
      const auto [first, second] = gossip_pair(r, static_cast<int>(t), i);
      if (first < 0) continue;
      const int other = first == i ? second : first;
      // Rank i sends what its partner lacks.
      double blocks = 0;
      for (const auto& [a, b] : minus(held[static_cast<std::size_t>(i)], held[static_cast<std::size_t>(other)]))
        blocks += b - a;
      if (blocks == 0) continue;
      const int hops = route_runs(net, i, other, [&](Rank at, Port p, int k) { load.run(at, p, k, blocks); });
      load.message(i, other, blocks, hops);
    }
    RoundCost cost = load.finish();
    cost.streams = s.independent_colours();
    out->add(cost);
  }
  return true;
}

}  // namespace profiles
}  // namespace torusgather
