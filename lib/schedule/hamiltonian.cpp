// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/hamiltonian.hpp"

#include <stdexcept>

namespace torusgather {
namespace {

// Meyer & Sibeyn's right on rank (i, j): row i on axis 0, column j on axis
// 1, PU (0,0) in the upper-left corner.
constexpr Port kRight = make_port(1, true);

class Section31 final : public LinkColouring {
 public:
  using LinkColouring::LinkColouring;
  std::string construction() const override { return "forwarding rules of Meyer & Sibeyn §3.1"; }
  int colour(Rank r, int k) const override { return port_colour(r, make_port(k, true)); }

 private:
  // Following a strand from (i, j) to the right alternates columns and rows
  // so that the strand through the right port of (i, j) belongs to cycle
  // (i + j) mod 2; the special column n2-1 keeps this because n2 is even.
  // is_hamiltonian_decomposition() checks it for every rank and link.
  int port_colour(Rank r, Port p) const {
    const Torus& t = torus();
    const int right = (t.coord(r, 0) + t.coord(r, 1)) % 2;
    return (p == kRight || p == section31_partner(t, 0, 1, r, kRight)) ? right : 1 - right;
  }
};

}  // namespace

Port section31_partner(const Torus& t, int row_axis, int column_axis, Rank r, Port in) {
  const int n2 = t.dim(column_axis);
  const int j = t.coord(r, column_axis);
  const bool straight = (j % 2 == 0) || j == n2 - 1;
  const Port top = make_port(row_axis, false), bottom = make_port(row_axis, true);
  const Port left = make_port(column_axis, false), right = make_port(column_axis, true);
  if (in == top) return straight ? right : left;
  if (in == right) return straight ? top : bottom;
  if (in == bottom) return straight ? left : right;
  if (in == left) return straight ? bottom : top;
  return -1;
}

std::unique_ptr<LinkColouring> section31_decomposition(const Torus& t) {
  if (t.ndims() != 2 || t.dim(0) % 2 != 0 || t.dim(1) % 2 != 0) return nullptr;
  return std::make_unique<Section31>(t);
}

HamiltonianSchedule::HamiltonianSchedule(const Torus& torus) : CycleSchedule(torus) {
  // The colouring refers to this schedule's own copy of the torus, or to
  // decomposition_without_search's equal one, which it keeps alive.
  colouring_ = section31_decomposition(this->torus());
  if (!colouring_) colouring_ = decomposition_without_search(this->torus());
  if (!colouring_) colouring_ = switch_search_decomposition(this->torus());
  if (!colouring_)
    throw std::invalid_argument("hamiltonian: no decomposition into Hamiltonian cycles found for " +
                                this->torus().to_string());
  axis_index_.assign(this->torus().ndims(), -1);
  for (int k = 0; k < colouring_->count(); ++k) axis_index_[colouring_->axes()[k]] = k;
}

std::string HamiltonianSchedule::not_applicable(const Torus&) { return {}; }

int HamiltonianSchedule::colour(Rank r, Port p) const {
  const int k = axis_index_[port_axis(p)];
  // The link behind a minus port is the plus link of the neighbour.
  return port_plus(p) ? colouring_->colour(r, k) : colouring_->colour(torus().neighbor(r, p), k);
}

Port HamiltonianSchedule::partner(Rank r, Port in) const {
  const int c = colour(r, in);
  for (const Port q : ports())
    if (q != in && colour(r, q) == c) return q;
  return in;  // not a decomposition: prove() reports it
}

}  // namespace torusgather
