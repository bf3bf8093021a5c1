// SPDX-License-Identifier: BSD-3-Clause
// partial-cycles' places in closed form: where a rank lies on each cycle
// (from its coordinates), which rank is at a position, the ports along a
// cycle, a rank's feeders (local()), and the construction's check of all of
// it on every rank.
#include <algorithm>
#include <vector>

#include "schedule/partial_cycles.hpp"

namespace torusgather {
namespace {

long long mod(long long x, long long n) {
  if (x >= 0) return x < n ? x : x % n;
  return x >= -n ? x + n : ((x % n) + n) % n;
}

}  // namespace

int PartialCyclesSchedule::lap_J(long long i) const {
  int J = 1;
  for (int j = 2; j <= d_ - 1; ++j)
    if (i % M_[static_cast<std::size_t>(j)] == 0) J = j;
  return J;
}

long long PartialCyclesSchedule::lap_of(const long long* z, int* c) const {
  // l = a_1 + (n_1/d)(a_2 + n_2(a_3 + ...)): S_l's x_j = floor(l/M_j) mod
  // n_j = a_j (j >= 2), and x_1 = c + d l - sum_j floor(l/M_j) with
  // d | n_1 gives c = x_1 + sum_j floor(l/M_j) mod d, then a_1. The
  // floor(l/M_j) = a_j + n_j(a_{j+1} + ...) come out of Horner's rule.
  const int d = d_;
  long long V = 0, Q = 0;
  for (int j = d - 1; j >= 2; --j) {
    V = V * n_[static_cast<std::size_t>(j - 1)] + mod(z[j - 1], n_[static_cast<std::size_t>(j - 1)]);
    Q += V;
  }
  const long long x = mod(z[0] + Q, n_[0]);
  *c = static_cast<int>(x % d);
  return (x - *c) / d + n_[0] / d * V;
}

long long PartialCyclesSchedule::run(int c, long long row) const {
  const long long C = n_[0];
  if (row < helix_defects_) return (C + 1) / 2;
  const long long a = (row - helix_defects_) % 2 == 0 ? (C - 1) / 2 : (C + 1) / 2;
  return c == 0 ? a : C - a;
}

long long PartialCyclesSchedule::row_start(int c, long long row) const {
  const long long C = n_[0], k = helix_defects_;
  if (row <= k) return row * ((C + 1) / 2);
  return k * ((C + 1) / 2) + (row - k) / 2 * C + (row - k) % 2 * run(c, k);
}

long long PartialCyclesSchedule::row_column(int c, long long row) const {
  const long long C = n_[0];
  return mod((c == 0 ? 0 : (C + 1) / 2 - 1) + row_start(c, row) - row, C);
}

void PartialCyclesSchedule::place(int c, long long p, long long* x, int* move_axis) const {
  p = wrap(p);
  if (helix_defects_ > 0) {
    const long long C = n_[0], k = helix_defects_, K = (C + 1) / 2;
    long long row = 0;
    if (p < k * K) {
      row = p / K;
    } else {
      const long long q = p - k * K;
      row = k + 2 * (q / C) + (q % C < run(c, k) ? 0 : 1);
    }
    const long long j = p - row_start(c, row);
    x[0] = mod(row_column(c, row) + j, C);
    x[1] = row;
    *move_axis = j < run(c, row) - 1 ? 0 : 1;
    return;
  }
  const int d = d_;
  const long long l = p / lap_, o = p % lap_;
  const int J = lap_J(l + 1);
  long long Q = 0;
  for (int j = 2; j <= d - 1; ++j) {
    const long long f = l / M_[static_cast<std::size_t>(j)];
    Q += f;
    x[j - 1] = f;
  }
  x[0] = c + d * l - Q;
  const long long moves = o <= 2 * d - 1 ? (o + 1) / 2 : d;
  for (int k = 1; k <= moves; ++k) ++x[zigzag_axis(J, k)];
  x[d - 1] = o <= 2 * d - 1 ? o / 2 : o - d;
  for (int j = 0; j < d; ++j) x[j] = mod(x[j], n_[static_cast<std::size_t>(j)]);
  *move_axis = o % 2 == 0 && o <= 2 * d - 2 ? zigzag_axis(J, static_cast<int>(o / 2) + 1) : d - 1;
}

Rank PartialCyclesSchedule::rank_of(const long long* x) const {
  Rank r = 0;
  for (int k = 0; k < d_; ++k) r += static_cast<Rank>(x[k]) * stride_[static_cast<std::size_t>(k)];
  return r;
}

void PartialCyclesSchedule::coords_of(Rank r, long long* y) const {
  for (int k = 0; k < d_; ++k) y[k] = torus().coord(r, order_[static_cast<std::size_t>(k)]);
}

Rank PartialCyclesSchedule::at(int c, long long p) const {
  long long x[kMaxCycles] = {};
  int axis = 0;
  place(c, p, x, &axis);
  return rank_of(x);
}

Rank PartialCyclesSchedule::at(int c, long long p, bool* injects) const {
  long long x[kMaxCycles] = {};
  int axis = 0;
  place(c, p, x, &axis);
  // Past a lap's zigzag (x_d >= d), or in a helix's row below the defect
  // rows, a rank lies on one cycle only, and injects there.
  const bool one_cycle = helix_defects_ > 0 ? x[1] >= helix_defects_ : x[d_ - 1] >= d_;
  *injects = one_cycle || inject_at(x) == c;
  return rank_of(x);
}

bool PartialCyclesSchedule::injects(Rank r, int c) const {
  long long y[kMaxCycles] = {};
  coords_of(r, y);
  return inject_at(y) == c;
}

long long PartialCyclesSchedule::position(Rank r, int c) const {
  long long y[kMaxCycles] = {};
  coords_of(r, y);
  return position_at(y, c);
}

long long PartialCyclesSchedule::position_at(const long long* y, int c) const {
  long long pos[kMaxCycles];
  positions_at(y, pos);
  return pos[c];
}

void PartialCyclesSchedule::positions_at(const long long* y, long long* pos) const {
  const int d = d_;
  for (int c = 0; c < d; ++c) pos[c] = -1;
  if (helix_defects_ > 0) {
    const long long row = y[1];
    for (int c = 0; c < 2; ++c) {
      const long long j = mod(y[0] - row_column(c, row), n_[0]);
      if (j < run(c, row)) pos[c] = row_start(c, row) + j;
    }
    return;
  }
  const long long h = y[d - 1];
  int c = 0;
  if (h >= d) {  // after the lap's zigzag: S_{l+1}, offset d + h; one cycle only
    const long long next = lap_of(y, &c);
    pos[c] = ((next + laps_ - 1) % laps_) * lap_ + d + h;
    return;
  }
  // Within the zigzag: offset 2h (h moves made) or 2h + 1 (h + 1 moves),
  // for each J whose first moves differ (J >= moves - 1 make the same ones).
  long long z[kMaxCycles];
  const int Jmax = std::max(1, d - 1);
  for (long long moves = h; moves <= h + 1; ++moves)
    for (int J = 1; J <= Jmax; ++J) {
      const bool group = J >= moves - 1;  // this J and all above it
      for (int k = 0; k < d - 1; ++k) z[k] = y[k];
      for (int k = 1; k <= moves; ++k) --z[zigzag_axis(J, k)];
      const long long l = lap_of(z, &c);
      const int Jl = lap_J(l + 1);
      if (group ? Jl >= J : Jl == J) pos[c] = l * lap_ + h + moves;
      if (group) break;
    }
}

Port PartialCyclesSchedule::cycle_port(Rank r, int c, int dir) const {
  const long long p = position(r, c);
  return p < 0 ? -1 : port_at(c, p, dir);
}

Port PartialCyclesSchedule::port_at(int c, long long p, int dir) const {
  const Port q = make_port(order_[static_cast<std::size_t>(move_axis(c, dir > 0 ? p : p - 1))], true);
  return dir > 0 ? q : opposite(q);
}

int PartialCyclesSchedule::move_axis(int c, long long p) const {
  p = wrap(p);
  if (helix_defects_ > 0) {
    long long x[kMaxCycles] = {};
    int axis = 0;
    place(c, p, x, &axis);
    return axis;
  }
  const long long o = p % lap_;
  return o % 2 == 0 && o <= 2 * d_ - 2 ? zigzag_axis(lap_J(p / lap_ + 1), static_cast<int>(o / 2) + 1) : d_ - 1;
}

int PartialCyclesSchedule::inject_at(const long long* y) const {
  long long pos[kMaxCycles];
  positions_at(y, pos);
  return inject_of(y, pos);
}

int PartialCyclesSchedule::inject_of(const long long* y, const long long* pos) const {
  // Every rank injects on one cycle it lies on (rows on several alternate).
  int on[kMaxCycles], count = 0;
  for (int c = 0; c < d_; ++c)
    if (pos[c] >= 0) on[count++] = c;
  if (count == 0) return -1;
  long long sum = 0;
  for (int k = 0; k < d_; ++k) sum += y[k];
  return on[sum % count];
}

PartialCyclesSchedule::Local PartialCyclesSchedule::local(Rank r) const { return local(r, nullptr); }

PartialCyclesSchedule::Local PartialCyclesSchedule::local(Rank r, const std::vector<long long>& table) const {
  return local(r, table.data());
}

std::vector<long long> PartialCyclesSchedule::positions_table() const {
  std::vector<long long> table(static_cast<std::size_t>(torus().size() * d_), -1);
  long long x[kMaxCycles] = {};
  int axis = 0;
  for (int c = 0; c < d_; ++c)
    for (long long p = 0; p < m_; ++p) {
      place(c, p, x, &axis);
      table[static_cast<std::size_t>(rank_of(x) * d_ + c)] = p;
    }
  return table;
}

PartialCyclesSchedule::Local PartialCyclesSchedule::local(Rank r, const long long* table) const {
  const Torus& t = torus();
  const int d = d_, ports = t.ports();
  // A rank's positions on every cycle: from its coordinates, or the table.
  const auto positions = [&](const long long* coords, long long* pos) {
    if (!table) return positions_at(coords, pos);
    const Rank q = rank_of(coords);
    for (int c = 0; c < d; ++c) pos[c] = table[static_cast<std::size_t>(q * d + c)];
  };
  Local out;
  long long y[kMaxCycles] = {};
  coords_of(r, y);
  long long pos[kMaxCycles];
  positions(y, pos);
  for (int c = 0; c < d; ++c) {
    const long long p = pos[c];
    out.pos[static_cast<std::size_t>(c)] = p;
    out.port[static_cast<std::size_t>(c)] = {p < 0 ? -1 : port_at(c, p, +1), p < 0 ? -1 : port_at(c, p, -1)};
    out.feed[static_cast<std::size_t>(c)] = {-1, -1};
  }
  out.inject = inject_of(y, pos);
  // Two feeders per off-cycle rank and cycle, over links no cycle uses, each
  // of r's links feeding once: a small depth-first search over its ports.
  int off[kMaxCycles], offs = 0;
  for (int c = 0; c < d; ++c)
    if (out.pos[static_cast<std::size_t>(c)] < 0) off[offs++] = c;
  out.fed = true;
  if (offs == 0) return out;
  // Per port: the neighbour's positions, and whether a cycle uses its link back.
  constexpr int kMaxPorts = 2 * kMaxCycles;
  long long nb_pos[kMaxPorts][kMaxCycles];
  bool nb_free[kMaxPorts];
  long long z[kMaxCycles];
  for (Port p = 0; p < ports; ++p) {
    const int k = paper_of_[static_cast<std::size_t>(port_axis(p))];
    for (int j = 0; j < d; ++j) z[j] = y[j];
    z[k] = mod(z[k] + (port_plus(p) ? 1 : -1), n_[static_cast<std::size_t>(k)]);
    bool free = true;
    positions(z, nb_pos[p]);
    for (int c = 0; c < d; ++c) {
      const long long q = nb_pos[p][c];
      if (q >= 0 && (port_at(c, q, +1) == opposite(p) || port_at(c, q, -1) == opposite(p))) free = false;
    }
    nb_free[p] = free;
  }
  bool taken[kMaxPorts] = {};
  Port pick[kMaxPorts], next[kMaxPorts];
  const std::size_t slots = static_cast<std::size_t>(offs) * 2;
  next[0] = 0;
  auto usable = [&](Port p, int c) { return nb_free[p] && nb_pos[p][c] >= 0; };
  std::size_t slot = 0;
  while (slot < slots) {
    const int c = off[slot / 2];
    Port p = next[slot];
    while (p < ports && (taken[p] || !usable(p, c) ||
                         (slot % 2 == 1 && t.neighbor(r, p) == t.neighbor(r, pick[slot - 1]))))
      ++p;
    if (p < ports) {
      pick[slot] = p;
      taken[p] = true;
      next[slot] = p + 1;
      ++slot;
      if (slot < slots) next[slot] = 0;
    } else {
      if (slot == 0) {
        out.fed = false;
        return out;
      }
      next[slot] = 0;
      --slot;
      taken[pick[slot]] = false;
    }
  }
  for (int k = 0; k < offs; ++k) {
    const int c = off[k];
    out.feed[static_cast<std::size_t>(c)] = {pick[k * 2], pick[k * 2 + 1]};
    out.feed_pos[static_cast<std::size_t>(c)] = {nb_pos[pick[k * 2]][c], nb_pos[pick[k * 2 + 1]][c]};
  }
  return out;
}

std::string PartialCyclesSchedule::check() const {
  // Each cycle simple and closed, the cycles link-disjoint (a link counted
  // per port, as the walk takes it), every rank on one and fed on the others.
  const Torus& t = torus();
  long long x[kMaxCycles] = {};
  int axis = 0;
  for (int c = 0; c < d_; ++c) {
    place(c, 0, x, &axis);
    Rank r = rank_of(x);
    for (long long p = 0; p < m_; ++p) {
      const Port q = make_port(order_[static_cast<std::size_t>(axis)], true);
      long long pos[kMaxCycles];
      positions_at(x, pos);
      for (int c2 = 0; c2 < d_; ++c2) {
        const long long p2 = pos[c2];
        if (c2 == c && p2 != p) return "cycle " + std::to_string(c) + " revisits a rank";
        if (p2 >= 0 && ((c2 != c && port_at(c2, p2, +1) == q) || port_at(c2, p2, -1) == q))
          return "two cycles share a link";
      }
      place(c, p + 1, x, &axis);
      const Rank s = rank_of(x);
      if (t.neighbor(r, q) != s) return "cycle " + std::to_string(c) + " does not close after its laps";
      r = s;
    }
  }
  for (Rank r = 0; r < t.size(); ++r) {
    const Local own = local(r);
    if (own.inject < 0) return "rank " + std::to_string(r) + " lies on no cycle";
    if (!own.fed) return "rank " + std::to_string(r) + " cannot be fed by two neighbours on every cycle";
  }
  return {};
}

}  // namespace torusgather
