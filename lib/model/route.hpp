// SPDX-License-Identifier: BSD-3-Clause
// The dimension-order route a vendor's point-to-point message takes on a
// torus network: shared by the stepped profiles (cost.cpp) and the closed
// forms that count routes once per offset or per line (profiles/).
#pragma once

#include "topology/torus.hpp"

namespace torusgather {

/// Calls run(at, port, hops) for each axis the route from `from` to `to`
/// moves along (axes in order, the shorter way round, + on a tie; straight
/// along an open axis): `hops` links from `at` through `port`. Returns the
/// route's hops.
template <class Run>
int route_runs(const Torus& t, Rank from, Rank to, Run&& run) {
  int hops = 0;
  Rank at = from;
  for (int a = 0; a < t.ndims(); ++a) {
    const int n = t.dim(a), here = t.coord(at, a), there = t.coord(to, a);
    const int ahead = ((there - here) % n + n) % n;
    const bool plus = t.open(a) ? there >= here : ahead <= n - ahead;
    const int k = plus ? ahead : n - ahead;
    if (k == 0) continue;
    run(at, make_port(a, plus), k);
    hops += k;
    at += static_cast<Rank>(there - here) * t.stride(a);
  }
  return hops;
}

/// Calls link(at, port) for each of `k` links from `at` through `port`:
/// the coordinate kept, the wrap by hand (no division per hop).
template <class Link>
void walk_run(const Torus& t, Rank at, Port p, int k, Link&& link) {
  const int a = port_axis(p), n = t.dim(a);
  const Rank stride = t.stride(a), wrap = static_cast<Rank>(n - 1) * stride;
  for (int c = t.coord(at, a); k > 0; --k) {
    link(at, p);
    if (port_plus(p)) {
      at += ++c == n ? -wrap : stride;
      if (c == n) c = 0;
    } else {
      at += c-- == 0 ? wrap : -stride;
      if (c < 0) c = n - 1;
    }
  }
}

/// Calls link(at, port) for every hop of that route; returns the hops.
template <class Link>
int walk_route(const Torus& t, Rank from, Rank to, Link&& link) {
  return route_runs(t, from, to, [&t, &link](Rank at, Port p, int k) { walk_run(t, at, p, k, link); });
}

}  // namespace torusgather
