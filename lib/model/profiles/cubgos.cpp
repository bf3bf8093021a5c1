// SPDX-License-Identifier: BSD-3-Clause
#include <algorithm>
#include <vector>

#include "model/profiles/profiles.hpp"

namespace torusgather {
namespace profiles {

/// Each round of cubgos runs the same calls on every line of one axis, and
/// lines share no link: one line's loads, routed in dimension order as
/// profile() routes every call, are the round's. O(rounds * calls * hops).
CostProfile cubgos(const CubgosSchedule& s) {
  CostProfile out;
  for (const auto& round : s.line_rounds()) {
    const int n = s.torus().dim(round.axis);
    std::vector<double> plus(static_cast<std::size_t>(n), 0), minus(plus), recv(plus);
    std::vector<int> sends(static_cast<std::size_t>(n), 0), recvs(sends);
    RoundCost c;
    for (const auto& call : round.calls) {
      if (call.blocks <= 0) continue;
      const int from = ((call.from % n) + n) % n;
      const int ahead = ((call.dist % n) + n) % n;
      const bool right = ahead <= n - ahead;  // the shorter way, + on a tie
      const int hops = right ? ahead : n - ahead;
      const auto blocks = static_cast<double>(call.blocks);
      for (int h = 0, at = from; h < hops; ++h) {
        auto& link = (right ? plus : minus)[static_cast<std::size_t>(at)];
        c.link_blocks = std::max(c.link_blocks, link += blocks);
        at = right ? (at + 1) % n : (at + n - 1) % n;
      }
      const auto to = static_cast<std::size_t>((from + call.dist % n + n) % n);
      c.sends = std::max(c.sends, ++sends[static_cast<std::size_t>(from)]);
      c.recvs = std::max(c.recvs, ++recvs[to]);
      c.recv_blocks = std::max(c.recv_blocks, recv[to] += blocks);
      c.hops = std::max(c.hops, hops);
    }
    out.add(c);
  }
  return out;
}

}  // namespace profiles
}  // namespace torusgather
