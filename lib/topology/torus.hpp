// SPDX-License-Identifier: BSD-3-Clause
// Torus shape and rank <-> coordinate arithmetic. No MPI in this layer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace torusgather {

/// A rank of the torus (0..P-1). 64-bit so that the verifier can reason about
/// tori far larger than any communicator.
using Rank = std::int64_t;

/// A port is one of the 2d links of a rank: towards -x_axis or +x_axis.
/// Ids are 2*axis + (plus ? 1 : 0), so opposite(p) == p ^ 1 and a rank has
/// ports 0..2d-1. On a side of length 2 both ports of an axis lead to the
/// same rank but remain distinct links. On an open axis (a mesh axis) the
/// end ranks lack the port that would wrap around (Torus::has_link).
using Port = int;
constexpr Port make_port(int axis, bool plus) { return 2 * axis + (plus ? 1 : 0); }
constexpr int port_axis(Port p) { return p >> 1; }
constexpr bool port_plus(Port p) { return (p & 1) != 0; }
constexpr Port opposite(Port p) { return p ^ 1; }

/// An n_0 x n_1 x ... x n_{d-1} torus with ranks numbered row-major (last
/// axis fastest), exactly as MPI_Cart_create numbers a Cartesian communicator.
/// An axis may be open (a mesh axis, MPI_Cart_create's period 0): no link
/// joins its last rank to its first.
class Torus {
 public:
  /// Throws std::invalid_argument for an empty shape or a side < 1.
  /// `two_link_axes`: a bit per axis whose side of 2 has two links (below);
  /// `open_axes`: a bit per open axis. An open side of 2 is one link both
  /// ways, as a closed one that shares its link, and is kept as that.
  explicit Torus(std::vector<int> dims, std::uint32_t two_link_axes = 0, std::uint32_t open_axes = 0);

  int ndims() const { return static_cast<int>(dims_.size()); }
  int ports() const { return 2 * ndims(); }
  const std::vector<int>& dims() const { return dims_; }
  int dim(int axis) const { return dims_[axis]; }
  Rank size() const { return size_; }
  /// Distance in ranks between neighbours along `axis` (row-major stride).
  Rank stride(int axis) const { return strides_[axis]; }

  int coord(Rank r, int axis) const { return static_cast<int>((r / strides_[axis]) % dims_[axis]); }
  std::vector<int> coords(Rank r) const;
  Rank rank(const std::vector<int>& coords) const;
  /// The rank `delta` hops from r along `axis`, wrapping around (the
  /// arithmetic of every axis; on an open axis a schedule must not cross
  /// the end: has_link).
  Rank shift(Rank r, int axis, long long delta) const;
  Rank neighbor(Rank r, Port p) const { return shift(r, port_axis(p), port_plus(p) ? 1 : -1); }
  /// r with the coordinates of every axis in `axes_mask` set to zero.
  Rank clear_axes(Rank r, std::uint32_t axes_mask) const;

  /// The axes with side > 1 (a side of 1 has no links to anyone else).
  std::vector<int> active_axes() const;
  /// Whether both ports of `axis` share one link: a side of 2 whose two
  /// nodes one link joins (SimGrid's torus routes every message to the
  /// neighbour one way; Tofu-D's a and c axes). Where the machine has a +
  /// and a - link on the axis (Blue Gene/Q), the side has two links.
  bool shared_link(int axis) const { return dims_[axis] == 2 && !(two_link_axes_ >> axis & 1u); }
  /// The axes (a bit each) whose side of 2 has two links.
  std::uint32_t two_link_axes() const { return two_link_axes_; }
  /// Whether `axis` is open: a side > 2 without the link from its last rank
  /// to its first.
  bool open(int axis) const { return (open_axes_ >> axis & 1u) != 0; }
  /// The open axes, a bit each.
  std::uint32_t open_axes() const { return open_axes_; }
  /// Whether port p of rank r has a link: not where it would wrap around an open axis.
  bool has_link(Rank r, Port p) const {
    const int a = port_axis(p);
    return !open(a) || coord(r, a) != (port_plus(p) ? dims_[a] - 1 : 0);
  }
  /// The links that bring the worst-placed node data: two per closed side
  /// > 2, one per side of 2 that shares one link, one per open axis (its
  /// end nodes have one neighbour there).
  int incoming_links() const;

  /// "6x8", "4x4x4"; an open axis's side with an 'm' (mesh): "4x4mx3".
  std::string to_string() const;

 private:
  std::vector<int> dims_;
  std::uint32_t two_link_axes_ = 0;
  std::uint32_t open_axes_ = 0;
  std::vector<Rank> strides_;
  Rank size_ = 1;
};

/// The bits of axes 0..axes-1: the network axes where the last is a node's ranks.
constexpr std::uint32_t network_axes(int axes) { return axes >= 32 ? ~0u : (1u << axes) - 1; }

/// Parses "8x8" or "4x4x4" (also accepts ',' as separator). A side written
/// with an 'm' ("8x8mx4m") is an open axis (a mesh axis): its bit is set in
/// *open_axes, and without open_axes it is an error. Throws
/// std::invalid_argument with a readable message on malformed input.
std::vector<int> parse_dims(const std::string& text, std::uint32_t* open_axes = nullptr);

}  // namespace torusgather
