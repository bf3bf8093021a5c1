// SPDX-License-Identifier: BSD-3-Clause
// Decompositions of a torus into edge-disjoint Hamiltonian cycles, one per
// dimension (Meyer & Sibeyn 1998, §3.4, which cites constructions without
// giving them; the ones used here are listed in docs/algorithms.md).
//
// A decomposition colours every link of the torus with one of D colours
// (D = number of sides > 1) so that every rank has exactly two links of each
// colour and the links of each colour form one cycle through all P ranks.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "topology/torus.hpp"

namespace torusgather {

class LinkColouring {
 public:
  explicit LinkColouring(const Torus& t);
  virtual ~LinkColouring() = default;
  /// Colour of the link from r towards +axes()[k].
  virtual int colour(Rank r, int k) const = 0;
  /// How it was built (for tg-plan and docs).
  virtual std::string construction() const = 0;

  const Torus& torus() const { return torus_; }
  /// The axes with side > 1, in order; k indexes into this list.
  const std::vector<int>& axes() const { return axes_; }
  int count() const { return static_cast<int>(axes_.size()); }

 private:
  const Torus& torus_;
  std::vector<int> axes_;
};

/// True if every colour class is one cycle through all P ranks and every rank
/// has two links of each colour. O(P*D).
bool is_hamiltonian_decomposition(const LinkColouring& c, std::string* why = nullptr);

/// k x k torus: cycle 0 steps +y0 except on the anti-diagonal y0 + y1 = k-1
/// (mod k), where it steps +y1; cycle 1 takes the other link.
std::unique_ptr<LinkColouring> square_decomposition(const Torus& t);

/// m x n torus with g = gcd(m, n) > 1 and a shift s in 1..g-1: with
/// S = {(y0 + y1) mod g < s}, cycle 0 steps +y0 outside S and +y1 inside.
/// nullptr if no s gives Hamiltonian cycles (never for g = 1). The first
/// s that does, from first_shift on (and in *shift_found).
std::unique_ptr<LinkColouring> gcd_decomposition(const Torus& t, int first_shift = 1, int* shift_found = nullptr);

/// Whether the gcd rule's shift s gives two Hamiltonian cycles on m x n
/// (both >= 3), in O(log): every step of cycle 0 moves one diagonal on, so
/// g steps bring it back to its diagonal moved by (g - s, s) (cycle 1:
/// (s, g - s)), and it is one cycle iff that move has order m n / g in
/// Z_m x Z_n.
bool gcd_rule_is_hamiltonian(int m, int n, int s);

/// m x n torus with m != n, both >= 3 (for gcd(m, n) = 1 the one rule
/// here; Kotzig 1973 shows a decomposition always exists). Start from the
/// rows (cycles along the shorter axis x, side m) and the columns, and
/// switch one unit square per row gap y < L: the square at x = s(y) trades
/// its two x-links for its two y-links. s runs 0, 1, 0, 1, ... and then
/// 2, 3, ..., t, with L = n - 1 or n and t = m - 1 or m - 2 such that the
/// lengths agree; the rows merge at every switch. The variants are tried
/// in order, each checked to close the columns into one cycle, O(P); for
/// gcd(m, n) = 1 the first that fits the parities (odd m: L = n - 1; even
/// m: L = n, t = m - 2) is the one. nullptr if none does.
std::unique_ptr<LinkColouring> gap_switch_decomposition(const Torus& t);

/// Odd m x m x m: D. E. Knuth's 2026 note "Claude's Cycles" decomposes the
/// directed torus (arcs v -> v + e_axis) into three directed Hamiltonian
/// cycles by a rule on s = (x + y + z) mod m; every undirected link is one
/// such arc, so the three are Hamiltonian cycles of the torus. O(1) per
/// lookup and no table; not verified at construction (the note proves it
/// for every odd m; the unit tests and tg-plan's structural proof check it).
std::unique_ptr<LinkColouring> odd_cube_decomposition(const Torus& t);

/// Any shape: start from "colour k = every link along axis k" and apply
/// 4-cycle switches (recolour the two pairs of opposite links of a unit
/// square) that merge cycles, in an order fixed by a seeded generator, so
/// every rank derives the same decomposition with no communication.
/// nullptr if the search gets stuck (then the caller declines), and at
/// once where has_no_decomposition.
std::unique_ptr<LinkColouring> switch_search_decomposition(const Torus& t);

/// Whether the torus provably has no decomposition, so that the search
/// need not run: 2 x n with n odd (every rung's two links split between
/// the two cycles, whose ring links would pair off a ring of odd length).
bool has_no_decomposition(const Torus& t);

/// 4D: split the axes into two pairs, decompose each 2D pair into H0 + H1 and
/// K0 + K1; H_c x K_c are 2D tori that decompose again (doubling).
/// nullptr if the shape has not 4 sides > 1 or a part does not decompose.
std::unique_ptr<LinkColouring> doubling_decomposition(const Torus& t);

/// 3 or more sides > 1: G x C_c, with G the torus without the layer
/// axis decomposed into H_0 .. H_{d-2} (a 2D G by each of its rules in
/// turn, where the first's switches do not fit). H_0 x C_c is a 2D torus N x c
/// (N = |G|) that the square, gcd, §3.1 or gap-switch rule splits into K_0 + K_1; each H_j
/// (j >= 1) has a copy in every layer, and c - 1 square switches with
/// K's layer links join the copies into one cycle. A switch keeps K_i
/// one cycle when its two layer links run the same way round K_i, and the
/// switches on K_i keep it when their pairs of links do not interleave
/// round it. Built, tabulated (one byte per link, as the executor looks
/// colours up every round) and verified in O(P · d), no search. nullptr
/// where no layer axis gives it.
std::unique_ptr<LinkColouring> layered_decomposition(const Torus& t);

/// A colouring as a table of one byte per link (link r * count() + k).
class TableColouring final : public LinkColouring {
 public:
  TableColouring(const Torus& t, std::string how, std::vector<std::uint8_t> table)
      : LinkColouring(t), how_(std::move(how)), table_(std::move(table)) {}
  int colour(Rank r, int k) const override { return table_[static_cast<std::size_t>(r * count() + k)]; }
  std::string construction() const override { return how_; }
  /// Recolours one link; a construction that changes the table says so.
  void set(Rank r, int k, int c) { table_[static_cast<std::size_t>(r * count() + k)] = static_cast<std::uint8_t>(c); }
  void describe(std::string how) { how_ = std::move(how); }

 private:
  std::string how_;
  std::vector<std::uint8_t> table_;
};

/// The colouring as a table of one byte per link: O(1) per lookup where
/// col's own lookup walks a construction.
std::unique_ptr<TableColouring> tabulate(const LinkColouring& col);

/// Position of every rank along the cycle of colour c, from rank 0
/// (-1 where the cycle does not reach). O(P * D).
std::vector<Rank> cycle_positions(const LinkColouring& col, int c);

/// Every rank's cycle of colour c (numbered in order of their least rank)
/// and its position round that cycle, and each cycle's length. O(P * D).
struct CyclePlaces {
  std::vector<int> cycle;
  std::vector<Rank> pos;
  std::vector<Rank> length;
  /// Whether the cycle through a and b runs their link from a to b.
  bool runs_up(Rank a, Rank b) const {
    const Rank len = length[static_cast<std::size_t>(cycle[static_cast<std::size_t>(a)])];
    return (pos[static_cast<std::size_t>(b)] - pos[static_cast<std::size_t>(a)] + len) % len == 1;
  }
};
CyclePlaces cycle_places(const LinkColouring& col, int c);
/// Whether the torus has a decomposition from a rule with O(1) state per
/// rank, no search and no table: 2D with both sides even (Meyer & Sibeyn
/// §3.1) or equal, or both >= 3 (gcd and gap-switch rules), and odd cubes. Other shapes need doubling's or the
/// layered lift's table (O(P · d) per rank to build) or the switch search.
bool decomposes_by_rule(const Torus& t);

/// The first construction that applies without a search: square, gcd,
/// gap switch, odd cube, doubling, then `lift` (the layered lift; a lift under way
/// passes its own, which reuses the G it has decomposed). nullptr if none does.
std::unique_ptr<LinkColouring> decomposition_by_rule(
    const Torus& t,
    const std::function<std::unique_ptr<LinkColouring>(const Torus&)>& lift = layered_decomposition);

/// decomposition_by_rule, built once per shape in the process up to 4096
/// ranks (O(P · d) then, shared after): what `auto` asks before it builds
/// `hamiltonian`, and what the schedule then runs.
std::shared_ptr<const LinkColouring> decomposition_without_search(const Torus& t);
/// Whether a rule or decomposition_without_search gives the cycles, so that
/// `auto` never runs the switch search.
bool decomposes_without_search(const Torus& t);

/// decomposition_by_rule, else the switch search.
std::unique_ptr<LinkColouring> hamiltonian_decomposition(const Torus& t);

}  // namespace torusgather
