// SPDX-License-Identifier: BSD-3-Clause
#include "model/profiles/profiles.hpp"

#include <algorithm>

namespace torusgather {
namespace profiles {

/// torus-bruck: every rank makes the same calls, translated, each on one
/// axis; a call of h hops is one of h messages on each link it crosses.
/// With k ranks per node on the last axis, as profile() charges them: that
/// axis's rounds are shared memory, and a network link carries what the
/// node's k ranks, all in the same round, send over it.
CostProfile torus_bruck(const TorusBruckSchedule& s, int node_ranks) {
  const Torus& t = s.torus();
  const auto [node_axis, share] = node_axis_of(t, node_ranks);
  CostProfile out;
  for (const auto& round : s.round_list()) {
    double per_direction[2] = {0, 0};
    RoundCost c;
    for (const auto& p : round.parts) {
      const double blocks = round.blocks(p);
      per_direction[port_plus(p.route.front()) ? 1 : 0] += blocks * static_cast<double>(p.route.size());
      c.recv_blocks += blocks;
      c.hops = std::max(c.hops, static_cast<int>(p.route.size()));
    }
    c.sends = c.recvs = static_cast<int>(round.parts.size());
    const double load = t.dim(round.axis) == 2 ? per_direction[0] + per_direction[1]
                                               : std::max(per_direction[0], per_direction[1]);
    if (round.axis == node_axis)
      c.node_blocks = load;
    else
      c.link_blocks = share * load;
    out.add(c);
  }
  return out;
}

}  // namespace profiles
}  // namespace torusgather
