// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/lanes.hpp"

namespace torusgather {

// Lane 0 visits (x, e) = (0,0), (1,0), (1,1), (2,1), (2,0), (3,0), ...: at
// position p, x = ceil(p/2) mod n and e = floor(p/2) mod 2, so it takes the
// axis's link from x to x+1 where e = x mod 2 and the pair's link that
// leaves e = 0 towards +. Lane 1 is its mirror image in x: the other links.
namespace {
long long lane_position(int n, int x, int e, int lane) {
  if (lane) x = (n - x) % n;
  return e == x % 2 ? 2LL * x : (2LL * x - 1 + 2LL * n) % (2LL * n);
}
}  // namespace

Rank lane_shift(const Torus& t, const Ring& ring, Rank r, long long delta) {
  const int n = t.dim(ring.axis);
  const int x = t.coord(r, ring.axis), e = t.coord(r, ring.pair);
  const long long len = 2LL * n;
  const long long p = ((lane_position(n, x, e, ring.lane) + delta) % len + len) % len;
  int nx = static_cast<int>((p + 1) / 2 % n);
  const int ne = static_cast<int>(p / 2 % 2);
  if (ring.lane) nx = (n - nx) % n;
  return r + static_cast<Rank>(nx - x) * t.stride(ring.axis) + static_cast<Rank>(ne - e) * t.stride(ring.pair);
}

std::pair<Port, Port> lane_ports(const Torus& t, const Ring& ring, Rank r) {
  const int n = t.dim(ring.axis);
  const int x = t.coord(r, ring.axis), e = t.coord(r, ring.pair);
  const bool even = lane_position(n, x, e, ring.lane) % 2 == 0;
  // The pair's link of this lane: + from e = 0 on lane 0, - on lane 1.
  const Port pair = make_port(ring.pair, (e == 0) == (ring.lane == 0));
  // Along the axis: towards +x on lane 0, its mirror on lane 1.
  const Port ahead = make_port(ring.axis, ring.lane == 0), back = make_port(ring.axis, ring.lane != 0);
  return even ? std::pair<Port, Port>{ahead, pair} : std::pair<Port, Port>{pair, back};
}

}  // namespace torusgather
