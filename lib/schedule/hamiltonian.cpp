#include "schedule/hamiltonian.hpp"

#include <stdexcept>

namespace torusgather {
namespace {
// Meyer & Sibeyn's directions on rank (i, j): row i on axis 0, column j on
// axis 1, PU (0,0) in the upper-left corner.
constexpr Port kTop = make_port(0, false);
constexpr Port kBottom = make_port(0, true);
constexpr Port kLeft = make_port(1, false);
constexpr Port kRight = make_port(1, true);
}  // namespace

HamiltonianSchedule::HamiltonianSchedule(const Torus& torus) : CycleSchedule(torus) {
  const std::string why = not_applicable(torus);
  if (!why.empty()) throw std::invalid_argument("hamiltonian: " + why);
}

std::string HamiltonianSchedule::not_applicable(const Torus& torus) {
  if (torus.ndims() != 2) return "needs a 2D torus (the d-dimensional cycles are not built yet)";
  if (torus.dim(0) % 2 != 0 || torus.dim(1) % 2 != 0)
    return "needs both sides even (odd sides use partial cycles, not built yet)";
  return {};
}

Port HamiltonianSchedule::partner(Rank r, Port in) const {
  const int n2 = torus().dim(1);
  const int j = torus().coord(r, 1);
  // §3.1: j even or j = n2-1: T<->R, B<->L; j odd and j < n2-1: T<->L, B<->R.
  const bool straight = (j % 2 == 0) || j == n2 - 1;
  switch (in) {
    case kTop: return straight ? kRight : kLeft;
    case kRight: return straight ? kTop : kBottom;
    case kBottom: return straight ? kLeft : kRight;
    default: return straight ? kBottom : kTop;  // kLeft
  }
}

int HamiltonianSchedule::colour(Rank r, Port p) const {
  // Following a strand from (i, j) to the right alternates columns and rows
  // so that the strand through the right port of (i, j) belongs to cycle
  // (i + j) mod 2; the special column n2-1 preserves this because n2 is even.
  // prove() checks it for every rank and link.
  const int i = torus().coord(r, 0);
  const int j = torus().coord(r, 1);
  const int right_colour = (i + j) % 2;
  const bool on_right_strand = p == kRight || p == partner(r, kRight);
  return on_right_strand ? right_colour : 1 - right_colour;
}

}  // namespace torusgather
