// SPDX-License-Identifier: BSD-3-Clause
// The rings dim-rings' colours run on: a line along one axis, or a lane of
// a plane whose side of 2 has two links (a Hamiltonian cycle of C_n x C_2).
#pragma once

#include <tuple>
#include <utility>

#include "topology/torus.hpp"

namespace torusgather {

/// The ring a colour's phase runs on: the line along `axis`, or, where
/// `pair` >= 0, a Hamiltonian cycle of the plane axis × pair:
/// - a lane (lane 0 or 1) where `pair` is a side of 2 with two links: such a
///   plane C_n × C_2 (n even, no shared link) is the union of two
///   edge-disjoint Hamiltonian cycles of length 2n, each taking one of the
///   two links of every node pair on `pair` and half of the links along
///   `axis`;
/// - the snake where an axis is open (a grid m × n, m = the side of
///   `axis`, even): every node sends what it receives, on two of its links,
///   where lines would have a line's inner nodes pass on more than they take
///   in and its ends less.
/// lane_shift and lane_ports walk both.
struct Ring {
  int axis = 0;
  int pair = -1;
  int lane = 0;
  Ring() = default;
  Ring(int a) : axis(a) {}  // NOLINT: a line along an axis is a ring
  Ring(int a, int p, int l) : axis(a), pair(p), lane(l) {}
  /// The cycle of a grid with an open axis.
  bool snake(const Torus& t) const { return pair >= 0 && (t.open(axis) || t.open(pair)); }
  int length(const Torus& t) const {
    return pair < 0 ? t.dim(axis) : snake(t) ? t.dim(axis) * t.dim(pair) : 2 * t.dim(axis);
  }
  /// A line along an open axis: its ends have no link between them.
  bool open(const Torus& t) const { return pair < 0 && t.open(axis); }
  /// Bidirectional steps that deliver everything: floor(n/2) on a ring of
  /// n, n − 1 on an open line (the ends' blocks cross it one way).
  long long steps(const Torus& t) const { return open(t) ? length(t) - 1 : length(t) / 2; }
  friend bool operator==(const Ring& x, const Ring& y) {
    return std::tie(x.axis, x.pair, x.lane) == std::tie(y.axis, y.pair, y.lane);
  }
  friend bool operator<(const Ring& x, const Ring& y) {
    return std::tie(x.axis, x.pair, x.lane) < std::tie(y.axis, y.pair, y.lane);
  }
};

/// What the rank at x does in step k (1..n−1) of an open axis's line of n:
/// it receives from − the group of x − k and from + that of x + k, and
/// passes on towards + the group of x − k + 1 and towards − that of
/// x + k − 1, where those ranks and the next one exist.
struct LineStep {
  bool from_minus, from_plus, to_plus, to_minus;
};
constexpr LineStep line_step(long long n, long long k, long long x) {
  return {x - k >= 0, x + k <= n - 1, x - (k - 1) >= 0 && x + 1 <= n - 1, x + (k - 1) <= n - 1 && x - 1 >= 0};
}

/// The rank `delta` steps along lane `ring` from r.
Rank lane_shift(const Torus& t, const Ring& ring, Rank r, long long delta);
/// r's ports towards the next and the previous rank of its lane.
std::pair<Port, Port> lane_ports(const Torus& t, const Ring& ring, Rank r);

}  // namespace torusgather
