// SPDX-License-Identifier: BSD-3-Clause
#include <algorithm>
#include <array>
#include <vector>

#include "model/profiles/profiles.hpp"
#include "model/route.hpp"

namespace torusgather {
namespace profiles {

/// Every rank sends on port p the same blocks_on(t, p) blocks to rank + its
/// chord, so a link's load in round t is sum over p of blocks_on(t, p) times
/// the routes of chord p that cross it: four route counts, made once in
/// O(P * hops), then O(links) per round instead of every rank's blocks.
CostProfile circulant(const CirculantSchedule& s, const Torus& net, int node_ranks) {
  const Rank P = net.size();
  const int ports = net.ports();
  const NodeAxis node = node_axis_of(net, node_ranks);
  const int k = node.axis >= 0 ? node_ranks : 1;
  // Per chord port: how many routes cross each directed link, charged as
  // profile() does (a node's network links to its first rank), and the
  // longest route.
  std::array<std::vector<double>, 4> crossing;
  std::array<int, 4> hops{};
  for (Port c = 0; c < 4; ++c) {
    auto& count = crossing[static_cast<std::size_t>(c)];
    count.assign(static_cast<std::size_t>(P * ports), 0.0);
    for (Rank r = 0; r < P; ++r) {
      const int h = walk_route(net, r, s.link_target(r, c), [&](Rank at, Port p) {
        const Rank owner = k > 1 && port_axis(p) != node.axis ? at - at % k : at;
        count[static_cast<std::size_t>(owner * ports + p)] += 1;
      });
      hops[static_cast<std::size_t>(c)] = std::max(hops[static_cast<std::size_t>(c)], h);
    }
  }
  CostProfile out;
  for (long long t = 1; t <= s.rounds(); ++t) {
    RoundCost cost;
    std::array<double, 4> blocks{};
    for (Port c = 0; c < 4; ++c) {
      blocks[static_cast<std::size_t>(c)] = static_cast<double>(s.blocks_on(t, c));
      if (blocks[static_cast<std::size_t>(c)] == 0) continue;
      ++cost.sends;
      cost.recv_blocks += blocks[static_cast<std::size_t>(c)];
      cost.hops = std::max(cost.hops, hops[static_cast<std::size_t>(c)]);
    }
    cost.recvs = cost.sends;
    if (cost.sends > 0)
      for (std::size_t l = 0; l < crossing[0].size(); ++l) {
        double load = 0;
        for (std::size_t c = 0; c < 4; ++c) load += blocks[c] * crossing[c][l];
        double& most = port_axis(static_cast<Port>(l % static_cast<std::size_t>(ports))) == node.axis
                           ? cost.node_blocks
                           : cost.link_blocks;
        most = std::max(most, load);
      }
    out.add(cost);
  }
  return out;
}

}  // namespace profiles
}  // namespace torusgather
