// SPDX-License-Identifier: BSD-3-Clause
#include "model/profiles/profiles.hpp"

namespace torusgather {
namespace profiles {

/// hamiltonian (Meyer & Sibeyn §3): floor(P/2) rounds in which every rank
/// sends a 1/d part of a block on each of its 2d links, halves of it in the
/// last round when P is even, whatever the decomposition.
CostProfile hamiltonian(const Torus& t) {
  CostProfile out;
  const Rank P = t.size();
  const int d = static_cast<int>(t.active_axes().size());
  if (P < 2) return out;
  RoundCost c;
  // A side of 2 with one link: the messages of both its ports share it (profile()).
  bool shared = false;
  for (int a : t.active_axes()) shared = shared || t.shared_link(a);
  c.link_blocks = (shared ? 2.0 : 1.0) / d;
  c.recv_blocks = 2;
  c.sends = c.recvs = 2 * d;
  c.hops = 1;
  out.add(c, P / 2 - (P % 2 == 0 ? 1 : 0));
  if (P % 2 == 0) {
    c.link_blocks /= 2;
    c.recv_blocks /= 2;
    out.add(c);
  }
  return out;
}

}  // namespace profiles
}  // namespace torusgather
