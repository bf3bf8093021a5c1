// SPDX-License-Identifier: BSD-3-Clause
#include <algorithm>
#include <vector>

#include "model/profiles/profiles.hpp"
#include "model/route.hpp"
#include "schedule/phases.hpp"

namespace torusgather {
namespace profiles {

/// One rank per node: the gossip's rounds alone. Each round every rank's
/// holding is worked out once, and each pair's two messages are routed as
/// profile() routes them, without the ranks' programs.
bool three_phase(const ThreePhaseSchedule& s, const Torus& net, int node_ranks, CostProfile* out) {
  const Rank P = net.size();
  if (s.nodes() != P) return false;  // nodes of several ranks: their trees are stepped through
  const int r = s.nodes(), ports = net.ports();
  const NodeAxis node = node_axis_of(net, node_ranks);
  const int k = node.axis >= 0 ? node_ranks : 1;
  std::vector<double> link(static_cast<std::size_t>(P * ports)), recv(static_cast<std::size_t>(P));
  std::vector<int> sends(static_cast<std::size_t>(P)), recvs(static_cast<std::size_t>(P));
  std::vector<NodeIntervals> held(static_cast<std::size_t>(r));
  *out = CostProfile{};
  for (long long t = 0; t < s.rounds(); ++t) {
    std::fill(link.begin(), link.end(), 0.0);
    std::fill(recv.begin(), recv.end(), 0.0);
    std::fill(sends.begin(), sends.end(), 0);
    std::fill(recvs.begin(), recvs.end(), 0);
    for (int i = 0; i < r; ++i) held[static_cast<std::size_t>(i)] = gossip_holding(r, static_cast<int>(t), i);
    RoundCost cost;
    for (int i = 0; i < r; ++i) {
      const auto [first, second] = gossip_pair(r, static_cast<int>(t), i);
      if (first < 0) continue;
      const int other = first == i ? second : first;
      // Rank i sends what its partner lacks.
      double blocks = 0;
      for (const auto& [a, b] : minus(held[static_cast<std::size_t>(i)], held[static_cast<std::size_t>(other)]))
        blocks += b - a;
      if (blocks == 0) continue;
      const int hops = walk_route(net, i, other, [&](Rank at, Port p) {
        const bool on_node = k > 1 && port_axis(p) == node.axis;
        const Rank owner = k > 1 && !on_node ? at - at % k : at;
        double& l = link[static_cast<std::size_t>(owner * ports + p)];
        l += blocks;
        double& most = on_node ? cost.node_blocks : cost.link_blocks;
        most = std::max(most, l);
      });
      cost.sends = std::max(cost.sends, ++sends[static_cast<std::size_t>(i)]);
      cost.recvs = std::max(cost.recvs, ++recvs[static_cast<std::size_t>(other)]);
      cost.recv_blocks = std::max(cost.recv_blocks, recv[static_cast<std::size_t>(other)] += blocks);
      cost.hops = std::max(cost.hops, hops);
    }
    cost.streams = s.independent_colours();
    out->add(cost);
  }
  return true;
}

}  // namespace profiles
}  // namespace torusgather
