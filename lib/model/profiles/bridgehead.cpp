// SPDX-License-Identifier: BSD-3-Clause
#include "model/profiles/profiles.hpp"

namespace torusgather {
namespace profiles {

CostProfile bridgehead(const BridgeheadSchedule& s) {
  CostProfile out;
  for (const auto& l : s.round_loads()) {
    RoundCost c;
    c.link_blocks = l.link_blocks;
    c.recv_blocks = l.recv_blocks;
    c.sends = l.sends;
    c.recvs = l.recvs;
    c.hops = l.hops;
    out.add(c);
  }
  return out;
}

}  // namespace profiles
}  // namespace torusgather
