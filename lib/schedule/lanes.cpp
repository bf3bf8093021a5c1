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

// The snake of an m × n grid (m even; i along the axis, j along the pair):
// (0,0), then rows 0..m-1 over columns 1..n-1, even rows towards +j and odd
// rows back, then column 0 from row m-1 back to row 1.
long long snake_position(int m, int n, int i, int j) {
  if (j > 0) return 1 + static_cast<long long>(i) * (n - 1) + (i % 2 == 0 ? j - 1 : n - 1 - j);
  return i == 0 ? 0 : 1 + static_cast<long long>(m) * (n - 1) + (m - 1 - i);
}
std::pair<int, int> snake_cell(int m, int n, long long p) {
  if (p == 0) return {0, 0};
  const long long rows = static_cast<long long>(m) * (n - 1);
  if (p <= rows) {
    const int i = static_cast<int>((p - 1) / (n - 1)), t = static_cast<int>((p - 1) % (n - 1));
    return {i, i % 2 == 0 ? 1 + t : n - 1 - t};
  }
  return {m - 1 - static_cast<int>(p - 1 - rows), 0};
}
Rank snake_shift(const Torus& t, const Ring& ring, Rank r, long long delta) {
  const int m = t.dim(ring.axis), n = t.dim(ring.pair);
  const int i = t.coord(r, ring.axis), j = t.coord(r, ring.pair);
  const long long len = static_cast<long long>(m) * n;
  const auto [ni, nj] = snake_cell(m, n, ((snake_position(m, n, i, j) + delta) % len + len) % len);
  return r + static_cast<Rank>(ni - i) * t.stride(ring.axis) + static_cast<Rank>(nj - j) * t.stride(ring.pair);
}
/// The port from r to its grid neighbour q.
Port port_to(const Torus& t, const Ring& ring, Rank r, Rank q) {
  const int di = t.coord(q, ring.axis) - t.coord(r, ring.axis);
  return di != 0 ? make_port(ring.axis, di > 0) : make_port(ring.pair, t.coord(q, ring.pair) > t.coord(r, ring.pair));
}
}  // namespace

Rank lane_shift(const Torus& t, const Ring& ring, Rank r, long long delta) {
  if (ring.snake(t)) return snake_shift(t, ring, r, delta);
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
  if (ring.snake(t))
    return {port_to(t, ring, r, snake_shift(t, ring, r, 1)), port_to(t, ring, r, snake_shift(t, ring, r, -1))};
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
