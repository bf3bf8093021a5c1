// SPDX-License-Identifier: BSD-3-Clause
#include "model/profiles/profiles.hpp"

#include <algorithm>
#include <vector>

namespace torusgather {
namespace profiles {

/// dim-rings (Juurlink, Rao & Sibeyn, approach 1): in each round every
/// colour sends one message each way along its phase's axis (one, towards
/// +axis, where its antipode goes whole), fewer near an open axis's ends;
/// colours on the same axis share its links.
CostProfile dim_rings(const DimRingsSchedule& s, int node_ranks) {
  const Torus& t = s.torus();
  // With k ranks per node on the last axis, as profile() charges them: that
  // axis's links are shared memory, and a network link carries what the
  // node's k ranks, all in the same phase, send over it.
  const auto [node_axis, share] = node_axis_of(t, node_ranks);
  CostProfile out;
  s.for_each_run([&](long long times, const std::vector<DimRingsSchedule::ColourStep>& steps,
                     const std::vector<double> (&dir)[2]) {
    const DimRingsSchedule::RankMost most = DimRingsSchedule::most_per_rank(steps);
    RoundCost c;
    c.hops = 1;
    c.streams = s.independent_colours();
    c.sends = most.sends;
    c.recvs = most.recvs;
    c.recv_blocks = most.recv_blocks;
    for (std::size_t a = 0; a < dir[0].size(); ++a) {
      const double load = DimRingsSchedule::ColourStep::busiest(t, dir, a);  // as profile() charges it
      if (static_cast<int>(a) == node_axis)
        c.node_blocks = std::max(c.node_blocks, load);
      else
        c.link_blocks = std::max(c.link_blocks, share * load);
    }
    if (c.sends > 0) out.add(c, times);
  });
  // Streams do not wait for each other's rounds: the links' time is the
  // fluid model's, spread over the rounds as what they receive.
  spread_streams(&out, s.streams_link_blocks(), share);
  return out;
}

}  // namespace profiles
}  // namespace torusgather
