// SPDX-License-Identifier: BSD-3-Clause
// The dimension-order route a vendor's point-to-point message takes on a
// torus network: shared by the stepped profiles (cost.cpp) and the closed
// forms that count routes once per offset or per line (profiles/).
#pragma once

#include "topology/torus.hpp"

namespace torusgather {

/// Calls link(at, port) for every hop of the route from `from` to `to`
/// (axes in order, the shorter way round, + on a tie; straight along an
/// open axis); returns the hops.
template <class Link>
int walk_route(const Torus& t, Rank from, Rank to, Link&& link) {
  int hops = 0;
  Rank at = from;
  for (int a = 0; a < t.ndims(); ++a) {
    const int n = t.dim(a), here = t.coord(at, a), there = t.coord(to, a);
    const int ahead = ((there - here) % n + n) % n;
    const bool plus = t.open(a) ? there >= here : ahead <= n - ahead;
    const Port p = make_port(a, plus);
    // Hop by hop along the axis: its coordinate kept, the wrap by hand (no division per hop).
    const Rank stride = t.stride(a), wrap = static_cast<Rank>(n - 1) * stride;
    int c = here;
    for (int k = plus ? ahead : n - ahead; k > 0; --k, ++hops) {
      link(at, p);
      if (plus) {
        at += ++c == n ? -wrap : stride;
        if (c == n) c = 0;
      } else {
        at += c-- == 0 ? wrap : -stride;
        if (c < 0) c = n - 1;
      }
    }
  }
  return hops;
}

}  // namespace torusgather
