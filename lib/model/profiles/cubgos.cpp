// SPDX-License-Identifier: BSD-3-Clause
#include <algorithm>
#include <vector>

#include "model/profiles/profiles.hpp"
#include "model/route.hpp"

namespace torusgather {
namespace profiles {

/// Each round of cubgos runs the same calls on every line of one axis,
/// translated, and lines share no link: one line's loads, routed by
/// walk_route as profile() routes every call, are the round's.
/// With k ranks per node on the last axis, a node's k lines along another
/// axis share its links (their loads add, at the k translations of the
/// node's ranks), and the node axis's lines are shared memory.
/// O(distinct rounds * (calls * hops + n * k)).
CostProfile cubgos(const CubgosSchedule& s, int node_ranks) {
  const Torus& t = s.torus();
  const NodeAxis node = node_axis_of(t, node_ranks);
  const int k = node.axis >= 0 ? node_ranks : 1;
  CostProfile out;
  const CubgosSchedule::LineRound* last = nullptr;
  RoundCost last_cost;
  for (const auto& round : s.line_rounds()) {
    // Approach 1's rounds repeat the same calls: charged as the one before.
    if (last && round.axis == last->axis && round.spacing == last->spacing && round.calls == last->calls) {
      out.add(last_cost, round.times);
      continue;
    }
    const int n = t.dim(round.axis);
    const Torus line({n});
    std::vector<double> plus(static_cast<std::size_t>(n), 0), minus(plus), recv(plus);
    std::vector<int> sends(static_cast<std::size_t>(n), 0), recvs(sends);
    RoundCost c;
    for (const auto& call : round.calls) {
      if (call.blocks <= 0) continue;
      const Rank from = ((call.from % n) + n) % n;
      const Rank to = ((from + call.dist) % n + n) % n;
      const auto blocks = static_cast<double>(call.blocks);
      const int hops = walk_route(line, from, to, [&](Rank at, Port p) {
        (port_plus(p) ? plus : minus)[static_cast<std::size_t>(at)] += blocks;
      });
      c.sends = std::max(c.sends, ++sends[static_cast<std::size_t>(from)]);
      c.recvs = std::max(c.recvs, ++recvs[static_cast<std::size_t>(to)]);
      c.recv_blocks = std::max(c.recv_blocks, recv[static_cast<std::size_t>(to)] += blocks);
      c.hops = std::max(c.hops, hops);
    }
    double most = 0;
    if (k == 1 || round.axis == node.axis) {
      for (int x = 0; x < n; ++x)
        most = std::max({most, plus[static_cast<std::size_t>(x)], minus[static_cast<std::size_t>(x)]});
      (round.axis == node.axis ? c.node_blocks : c.link_blocks) = most;
    } else {
      // The node's rank with node coordinate j runs the line translated by
      // j (mod the round's spacing g) from its rank 0; g divides every side,
      // the node's k among them, so a node's lines start at every residue.
      const int g = round.spacing;
      for (int x = 0; x < n; ++x) {
        double p = 0, m = 0;
        for (int j = 0; j < k; ++j) {
          const auto at = static_cast<std::size_t>(((x - j % g) % n + n) % n);
          p += plus[at];
          m += minus[at];
        }
        most = std::max({most, p, m});
      }
      c.link_blocks = most;
    }
    out.add(c, round.times);
    last = &round;
    last_cost = c;
  }
  return out;
}

}  // namespace profiles
}  // namespace torusgather
