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
    const int n = t.dim(a);
    const int ahead = ((t.coord(to, a) - t.coord(at, a)) % n + n) % n;
    const bool plus = t.open(a) ? t.coord(to, a) >= t.coord(at, a) : ahead <= n - ahead;
    const Port p = make_port(a, plus);
    for (int k = plus ? ahead : n - ahead; k > 0; --k, ++hops) {
      link(at, p);
      at = t.neighbor(at, p);
    }
  }
  return hops;
}

}  // namespace torusgather
