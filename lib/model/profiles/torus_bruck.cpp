// SPDX-License-Identifier: BSD-3-Clause
#include "model/profiles/profiles.hpp"

#include <algorithm>

namespace torusgather {
namespace profiles {

/// torus-bruck: every rank makes the same calls, translated, each on one
/// axis; a call of h hops is one of h messages on each link it crosses
/// (on an open axis, straight along the line: TorusBruckSchedule::load).
/// With k ranks per node on the last axis, as profile() charges them: that
/// axis's rounds are shared memory, and a network link carries what the
/// node's k ranks, all in the same round, send over it.
CostProfile torus_bruck(const TorusBruckSchedule& s, int node_ranks) {
  const Torus& t = s.torus();
  const auto [node_axis, share] = node_axis_of(t, node_ranks);
  CostProfile out;
  for (const auto& round : s.round_list()) {
    const TorusBruckSchedule::Load load = s.load(round);
    RoundCost c;
    for (const auto& p : round.parts) c.recv_blocks += round.blocks(p);
    c.hops = load.hops;
    c.sends = c.recvs = static_cast<int>(round.parts.size());
    if (round.axis == node_axis)
      c.node_blocks = load.blocks;
    else
      c.link_blocks = share * load.blocks;
    out.add(c);
  }
  return out;
}

}  // namespace profiles
}  // namespace torusgather
