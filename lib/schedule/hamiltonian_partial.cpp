// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/hamiltonian_partial.hpp"

#include <algorithm>
#include <stdexcept>
#include <tuple>

#include "schedule/process_memo.hpp"

namespace torusgather {

namespace {

long long wrap(long long p, long long m) { return ((p % m) + m) % m; }

/// Whether the arcs [lo0, lo0 + len0) and [lo1, lo1 + len1) of a cycle of m
/// positions cover it.
bool covers(long long lo0, long long len0, long long lo1, long long len1, long long m) {
  if (len0 >= m || len1 >= m) return true;
  // The gap arc0 leaves, [lo0 + len0, lo0 + m), must lie in arc1.
  return wrap(lo0 + len0 - lo1, m) + (m - len0) <= len1;
}

}  // namespace

std::string HamiltonianPartialSchedule::not_applicable(const Torus& t) {
  const auto active = t.active_axes();
  if (active.size() != 2) return "§3.2 and §3.3 are for 2D tori (two sides > 1)";
  const int a = t.dim(active[0]), b = t.dim(active[1]);
  if (a % 2 == 0 && b % 2 == 0) return "both sides even: §3.1's full cycles apply (hamiltonian)";
  if (a % 2 != b % 2 && (a % 2 == 0 ? a : b) < 4)
    return "the even side must be >= 4: with 2 rows a column rank's top and bottom feeder are one rank";
  return {};
}

Port HamiltonianPartialSchedule::rule(Place x, Port in) const {
  const long long R = R_, C = C_, i = x.i, j = x.j;
  const Port top = make_port(row_axis_, false), bottom = make_port(row_axis_, true);
  const Port left = make_port(column_axis_, false), right = make_port(column_axis_, true);
  // A rank that passes on one pair of ports only; its other two links are free.
  auto only = [in](Port a, Port b) { return in == a ? b : in == b ? a : -1; };
  if (both_odd_ && i == R - 2) {
    // §3.3 (our rule set, see the header): §3.1's rules but for the last two
    // ranks of the row.
    if (j == C - 2) return only(bottom, left);
    if (j == C - 1) return only(top, right);
  } else if (both_odd_ && i == R - 1) {
    if (j == C - 2) return only(top, left);
    if (j == C - 1) return only(bottom, right);
    return in == top ? bottom : in == bottom ? top : in == left ? right : in == right ? left : -1;
  }
  // §3.2: "In Column n1 - 2 we perform L <-> R"; its T and B stay free.
  if (j == C - 2) return only(left, right);
  // §3.1's rules elsewhere (j even or j = n2-1: T<->R, B<->L; else T<->L,
  // B<->R); C is odd, so column C-1 is even anyway.
  const bool straight = j % 2 == 0 || j == C - 1;
  if (in == top) return straight ? right : left;
  if (in == right) return straight ? top : bottom;
  if (in == bottom) return straight ? left : right;
  if (in == left) return straight ? bottom : top;
  return -1;
}

int HamiltonianPartialSchedule::off_cycle(Place x) const {
  // Column C-2 alternates between the cycles; §3.3's four ranks at the end
  // of the last two rows are off the cycle their one strand is not.
  const long long R = R_, C = C_, i = x.i, j = x.j;
  if (both_odd_ && i == R - 2 && j >= C - 2) return j == C - 2 ? 0 : 1;
  if (both_odd_ && i == R - 1 && j >= C - 2) return 0;
  if (j == C - 2) return i % 2 == 0 ? 1 : 0;
  return -1;
}

Port HamiltonianPartialSchedule::cycle_port(Place x, int c, int dir) const {
  const Port top = make_port(row_axis_, false), bottom = make_port(row_axis_, true);
  const Port left = make_port(column_axis_, false), right = make_port(column_axis_, true);
  // The strand of cycle c. As in §3.1, the strand through a rank's right
  // port alternates between the cycles along rows and columns ((i + j) mod
  // 2), shifted by one in column C-1 (C is odd); §3.3's last row passes
  // L<->R on cycle 1; a rank off a cycle has one strand, the other's.
  const int off = off_cycle(x);
  if (off == c) return -1;
  Port p = -1;
  if (off >= 0) {
    for (Port q : {top, bottom, left, right})
      if (rule(x, q) >= 0) {
        p = q;
        break;
      }
  } else {
    const int cr = both_odd_ && x.i == R_ - 1 ? 1 : static_cast<int>((x.i + x.j + (x.j == C_ - 1 ? 1 : 0)) % 2);
    if (cr == c) {
      p = right;
    } else {
      const Port partner = rule(x, right);
      for (Port q : {top, bottom, left})
        if (q != partner) {
          p = q;
          break;
        }
    }
  }
  const Port q = rule(x, p);
  // Forward is rightwards, or out of the vertical port where the strand
  // comes in from the left; §3.3's last row runs cycle 1 leftwards and
  // cycle 0 up and down.
  Port fwd;
  if (both_odd_ && x.i == R_ - 1 && c == 1)
    fwd = x.j <= C_ - 2 ? left : bottom;
  else if ((p == top && q == bottom) || (p == bottom && q == top))
    fwd = x.j % 2 == 0 ? bottom : top;
  else if (p == right || q == right)
    fwd = right;
  else
    fwd = p == left ? q : p;
  return dir > 0 ? fwd : rule(x, fwd);
}

HamiltonianPartialSchedule::Place HamiltonianPartialSchedule::moved(Place x, Port p) const {
  const long long step = port_plus(p) ? 1 : -1;
  if (port_axis(p) == row_axis_)
    x.i = (x.i + step + R_) % R_;
  else
    x.j = (x.j + step + C_) % C_;
  return x;
}

void HamiltonianPartialSchedule::step(Place* x, int* k, int c, int dir) const {
  if (dir > 0) {
    if (*k + 1 < positions(*x, c)) {
      ++*k;
    } else {
      *x = moved(*x, cycle_port(*x, c, +1));
      *k = 0;
    }
  } else if (*k > 0) {
    --*k;
  } else {
    *x = moved(*x, cycle_port(*x, c, -1));
    *k = positions(*x, c) - 1;
  }
}

bool HamiltonianPartialSchedule::special(Place x) const {
  return both_odd_ && off_cycle(x) >= 0 && (x.i == 0 || x.i >= R_ - 2);
}

HamiltonianPartialSchedule::HamiltonianPartialSchedule(const Torus& torus) : Schedule(torus) {
  const Torus& t = this->torus();
  if (std::string why = not_applicable(t); !why.empty()) throw std::invalid_argument("hamiltonian-partial: " + why);
  const auto active = t.active_axes();
  both_odd_ = t.dim(active[0]) % 2 == 1 && t.dim(active[1]) % 2 == 1;
  row_axis_ = both_odd_ || t.dim(active[0]) % 2 == 0 ? active[0] : active[1];
  column_axis_ = row_axis_ == active[0] ? active[1] : active[0];
  R_ = t.dim(row_axis_);
  C_ = t.dim(column_axis_);
  row_stride_ = t.stride(row_axis_);
  column_stride_ = t.stride(column_axis_);
  // The walk's findings are the same for every communicator (and simulated
  // rank) of this shape: made once per process.
  struct Walked {
    std::string why;
    long long ranks[2], m[2];
    std::vector<Special> special;
  };
  static ProcessMemo<std::tuple<std::vector<int>, std::uint32_t, std::uint32_t>, Walked> known(1024);
  std::vector<int> dims;
  for (int a = 0; a < t.ndims(); ++a) dims.push_back(t.dim(a));
  const auto walked = known.get({dims, t.two_link_axes(), t.open_axes()}, [&] {
    auto w = std::make_shared<Walked>();
    w->why = walk_and_check();
    std::copy(ranks_, ranks_ + 2, w->ranks);
    std::copy(m_, m_ + 2, w->m);
    w->special = special_;
    return w;
  });
  if (!walked->why.empty()) throw std::invalid_argument("hamiltonian-partial: " + walked->why);
  std::copy(walked->ranks, walked->ranks + 2, ranks_);
  std::copy(walked->m, walked->m + 2, m_);
  special_ = walked->special;
}

std::string HamiltonianPartialSchedule::walk_and_check() {
  const Torus& t = torus();
  const Rank P = t.size();
  const long long R = R_, C = C_, T = rounds();
  const Port ports[4] = {make_port(row_axis_, false), make_port(row_axis_, true), make_port(column_axis_, false),
                         make_port(column_axis_, true)};
  // Every rank pairs its ports into as many strands as it has cycles.
  long long off_ranks = 0;
  for (long long i = 0; i < R; ++i)
    for (long long j = 0; j < C; ++j) {
      const Place x{i, j};
      int paired = 0;
      for (Port p : ports) paired += rule(x, p) >= 0 ? 1 : 0;
      off_ranks += off_cycle(x) >= 0 ? 1 : 0;
      if (paired != (off_cycle(x) >= 0 ? 2 : 4))
        return "rank (" + std::to_string(i) + ", " + std::to_string(j) + ") pairs " + std::to_string(paired) + " ports";
    }
  auto free_link = [&](Place x, Port p) { return rule(x, p) < 0 && rule(moved(x, p), opposite(p)) < 0; };
  auto direct = [&](Place x, int c) {
    std::vector<Port> d;
    for (Port p : ports)
      if (free_link(x, p) && positions(moved(x, p), c) > 0) d.push_back(p);
    return d;
  };
  // The special ranks' feeders, whose last positions the walk records.
  std::vector<std::pair<Rank, long long>> watched[2];
  if (both_odd_)
    for (long long i : {0LL, R - 2, R - 1})
      for (long long j = 0; j < C; ++j) {
        const Place x{i, j};
        const int c = off_cycle(x);
        if (c < 0) continue;
        for (Port p : direct(x, c)) watched[c].push_back({rank(moved(x, p)), -1});
      }

  // Walk both cycles from rank 0 (cycle 0 leaves it right, cycle 1 down):
  // each step out of a rank's forward port must come in on the next rank's
  // backward port; the walk must close within P ranks.
  for (int c = 0; c < 2; ++c) {
    const Place start{0, 0};
    if (positions(start, c) != 1) return "rank 0 is not on both cycles";
    Place x = start;
    long long pos = 0, ranks = 0;
    do {
      const Port out = cycle_port(x, c, +1);
      if (out < 0) return "cycle " + std::to_string(c) + " enters a rank off it";
      const Place y = moved(x, out);
      if (cycle_port(y, c, -1) != opposite(out)) return "cycle " + std::to_string(c) + " enters a free link";
      const int n = positions(x, c);
      for (auto& w : watched[c])
        if (w.first == rank(x)) w.second = pos + n - 1;
      pos += n;
      x = y;
      if (++ranks > P) return "cycle " + std::to_string(c) + " is not simple";
    } while (x.i != start.i || x.j != start.j);
    m_[c] = pos;
    ranks_[c] = ranks;
    if (m_[c] % 2 != 0 || m_[c] / 2 > T) return "cycle " + std::to_string(c) + " carries " + std::to_string(m_[c]) + " packets";
  }
  // The counts of the constructions: §3.2 two cycles of P - R/2 ranks
  // carrying P packets each; §3.3 cycles of P - (R+3)/2 and P - (R+1)/2 ranks
  // carrying P - 1 and P + 1 packets. With every strand on a simple cycle,
  // the two walks cover all 2P - (ranks off a cycle) strands.
  const long long expected = both_odd_ ? 2 * P - R - 2 : 2 * P - R;
  if (ranks_[0] + ranks_[1] != expected || ranks_[0] + ranks_[1] != 2 * P - off_ranks ||
      (!both_odd_ && ranks_[0] != ranks_[1]) ||
      (both_odd_ && std::max(ranks_[0], ranks_[1]) - std::min(ranks_[0], ranks_[1]) != 1))
    return "the cycles have " + std::to_string(ranks_[0]) + " and " + std::to_string(ranks_[1]) + " ranks";

  // Feeding a rank x off cycle c, in column C-2 away from §3.3's last rows:
  // its top and bottom neighbours over its free vertical links, the bottom
  // one's last position 2C after the top one's (§3.2's fixed switch step).
  // Checked on every such rank by a second walk with a cursor 2C behind.
  for (int c = 0; c < 2; ++c) {
    long long checked = 0, expected_checks = 0;
    for (long long i = 0; i < R; ++i) {
      const Place x{i, C - 2};
      if (off_cycle(x) != c || special(x)) continue;
      ++expected_checks;
      const std::vector<Port> d = direct(x, c);
      if (d.size() != 2 || d[0] != ports[0] || d[1] != ports[1])
        return "rank (" + std::to_string(i) + ", " + std::to_string(C - 2) + ") is not fed from top and bottom";
    }
    Place lead{0, 0}, lag{0, 0};
    int lead_k = 0, lag_k = 0;
    for (long long s = 0; s < m_[c] + 2 * C; ++s) {
      if (s >= 2 * C) {
        const Place x = moved(lead, ports[0]);  // the rank lead feeds from below
        if (lead.j == C - 2 && lead_k == positions(lead, c) - 1 && off_cycle(x) == c && !special(x)) {
          if (lag.i != moved(x, ports[0]).i || lag.j != C - 2 || lag_k != positions(lag, c) - 1)
            return "the feeders of rank (" + std::to_string(x.i) + ", " + std::to_string(x.j) + ") are not 2C apart";
          ++checked;
        }
        step(&lag, &lag_k, c, +1);
      }
      step(&lead, &lead_k, c, +1);
    }
    if (checked != expected_checks) return "the feeders of column C-2 were not all met";
    if (4 * C > m_[c] && expected_checks > 0) return "feeders 2C apart need M >= 4C";
  }

  // §3.3's special ranks, as §3.2 with their feeders' positions where they
  // have two direct feeders; the relaying pair (one each) through each other.
  auto last = [&](Place x, int c) {
    for (const auto& w : watched[c])
      if (w.first == rank(x)) return w.second;
    return -1LL;
  };
  auto set = [&](Rank x, int which, const Stream& s) {
    for (auto& sp : special_)
      if (sp.rank == x) {
        sp.streams[which] = s;
        return;
      }
    special_.push_back({x, {}});
    special_.back().streams[which] = s;
  };
  auto has = [&](Rank x) {
    for (const auto& sp : special_)
      if (sp.rank == x) return true;
    return false;
  };
  std::vector<Place> specials;
  if (both_odd_)
    for (long long i : {0LL, R - 2, R - 1})
      for (long long j = 0; j < C; ++j)
        if (special(Place{i, j})) specials.push_back({i, j});
  std::sort(specials.begin(), specials.end(), [&](const Place& a, const Place& b) { return rank(a) < rank(b); });
  specials.erase(std::unique(specials.begin(), specials.end(),
                             [&](const Place& a, const Place& b) { return rank(a) == rank(b); }),
                 specials.end());
  for (const Place x : specials) {
    if (has(rank(x))) continue;
    const int c = off_cycle(x);
    const long long M = m_[c];
    const std::vector<Port> d = direct(x, c);
    if (d.size() == 2) {
      const Place f0 = moved(x, d[0]), f1 = moved(x, d[1]);
      const long long a0 = last(f0, c), a1 = last(f1, c);
      const long long g = wrap(a1 - a0, M);
      if (g == 0) return "rank " + std::to_string(rank(x)) + "'s two feeders are one rank";
      // A: the feeder B's last position is at most M/2 ahead of.
      const int a = 2 * g <= M ? 0 : 1;
      const long long k = a == 0 ? g : M - g;
      set(rank(x), a, Stream{d[static_cast<std::size_t>(a)], rank(a == 0 ? f0 : f1), a == 0 ? a0 : a1, M / 2, M / 2, 0});
      set(rank(x), 1 - a, Stream{d[static_cast<std::size_t>(1 - a)], rank(a == 0 ? f1 : f0), a == 0 ? a1 : a0, k, M / 2, 0});
      continue;
    }
    // §3.3's relaying pair: x and y, each with one feeder on c, over their
    // free link. Their streams S_x, S_y run T rounds; each passes the other's
    // first T - 1 on. The switch steps make S_y start where S_x ends:
    // S_x = [lo, lo + T - 1], S_y = [lo + T - 1, lo + 2T - 2], M = 2T - 2.
    Place y{-1, -1};
    Port q = -1;
    for (Port p : ports)
      if (d.size() == 1 && p != d[0] && free_link(x, p) && off_cycle(moved(x, p)) == c && direct(moved(x, p), c).size() == 1)
        y = moved(x, p), q = p;
    if (y.i < 0) return "rank " + std::to_string(rank(x)) + " cannot be fed cycle " + std::to_string(c);
    const Port dy = direct(y, c)[0];
    const Place gx = moved(x, d[0]), gy = moved(y, dy);
    const long long fx = last(gx, c), fy = last(gy, c);
    long long kx = -1, ky = -1;
    for (long long k = 1; k < T && kx < 0; ++k) {
      const long long k2 = wrap(fy - fx + k - T + 1, M);
      if (k2 >= 1 && k2 < T) kx = k, ky = k2;
    }
    if (kx < 0) return "no switch steps for the relaying ranks " + std::to_string(rank(x)) + " and " + std::to_string(rank(y));
    set(rank(x), 0, Stream{d[0], rank(gx), fx, kx, T, 0});
    set(rank(x), 1, Stream{q, rank(gy), fy, ky, T - 1, 1});
    set(rank(y), 0, Stream{dy, rank(gy), fy, ky, T, 0});
    set(rank(y), 1, Stream{opposite(q), rank(gx), fx, kx, T - 1, 1});
  }
  // Checks on the special ranks: both streams a switching feed over free
  // links, the two arcs covering the cycle.
  for (const auto& sp : special_) {
    const Place x = place(sp.rank);
    const int c = off_cycle(x);
    long long lo[2], len[2];
    for (int w = 0; w < 2; ++w) {
      const Stream& s = sp.streams[w];
      if (s.port < 0 || s.last < 0 || s.k < 1 || s.n > T - s.delay || !free_link(x, s.port))
        return "rank " + std::to_string(sp.rank) + "'s stream " + std::to_string(w) + " is not a switching feed";
      lo[w] = s.low();
      len[w] = s.n;
    }
    if (sp.streams[0].port == sp.streams[1].port) return "a link feeds two streams";
    if (!covers(lo[0], len[0], lo[1], len[1], m_[c]))
      return "rank " + std::to_string(sp.rank) + "'s feeders do not cover cycle " + std::to_string(c);
  }
  return {};
}

HamiltonianPartialSchedule::Stream HamiltonianPartialSchedule::feed(Rank r, int which) const {
  const Place x = place(r);
  const int c = off_cycle(x);
  if (c < 0) return {};
  if (special(x)) {
    for (const auto& sp : special_)
      if (sp.rank == r) return sp.streams[which];
    return {};
  }
  // §3.2: A is the top neighbour (only backwards), B the bottom one, 2C on.
  const long long M = m_[c];
  const Port p = make_port(row_axis_, which == 1);
  return Stream{p, rank(moved(x, p)), -1, which == 0 ? M / 2 : 2 * C_, M / 2, 0};
}

bool HamiltonianPartialSchedule::fed_offset(Rank r, int which, long long t, long long* offset) const {
  const Stream s = feed(r, which);
  const long long u = t - s.delay;
  if (s.port < 0 || u < 1 || u > s.n) return false;
  *offset = s.offset(u);
  return s.delay == 0 || !brought_anyway(s, feed(r, 1 - which), u, m_[off_cycle(r)]);
}

bool HamiltonianPartialSchedule::brought_anyway(const Stream& s, const Stream& own, long long u, long long M) {
  return wrap(s.last + s.offset(u) - own.low(), M) < own.n;
}

std::string HamiltonianPartialSchedule::construction() const {
  const Torus& t = torus();
  const std::string cycles = std::to_string(ranks_[0]) + " and " + std::to_string(ranks_[1]) + " ranks";
  if (both_odd_)
    return "partial Hamiltonian cycles of Meyer & Sibeyn §3.3 (our rule set for rows " +
           std::to_string(t.dim(row_axis_) - 2) + " and " + std::to_string(t.dim(row_axis_) - 1) + "), " + cycles +
           ", off-cycle ranks fed by two neighbours with switching, two of them at distance two through each other";
  return "partial Hamiltonian cycles of Meyer & Sibeyn §3.2 (column " + std::to_string(t.dim(column_axis_) - 2) +
         " of " + std::to_string(t.dim(column_axis_)) + ": L<->R only), " + cycles +
         ", column ranks fed by top and bottom with switching";
}

StructuralProof HamiltonianPartialSchedule::prove() const {
  // The constructor has checked: two simple cycles, made of strands of a
  // port pairing (so no link is on both, or twice on one), of M_c <= 2T
  // virtual positions (T = ceil(P/2)), every (rank, part) at exactly one
  // position; every rank off a cycle fed two streams over free links, each
  // directed link carrying one, whose arcs cover the cycle, B's descent at
  // most its length. Then (header): each cycle brings every rank on it all of
  // its positions once in M_c/2 <= T rounds, one message per directed link
  // and round; the switching feed brings an off-cycle rank the positions of
  // its two arcs, each once, the relayed ones one round after its partner
  // got them (so held when passed on), within T rounds. So every part
  // reaches every rank in T rounds, at most one message (one part, half a
  // block) per directed link per round.
  StructuralProof proof;
  proof.supported = true;
  proof.complete = true;
  proof.rounds = rounds();
  proof.max_link_messages_per_round = 1;
  proof.max_link_blocks_per_round = 0.5;
  // Volume: each stream sends a part in rounds 1 .. M/2 - 1, and in round
  // M/2 half a part to a rank of one position, nothing to one of two; a
  // feeder sends each of its stream's positions, a relaying rank those its
  // partner does not get from its own feeder.
  const Torus& t = torus();
  const Rank P = t.size();
  auto messages = [&](Rank y, int w) {
    const Stream s = feed(y, w);
    if (s.delay == 0) return s.n;
    long long n = 0;
    long long offset = 0;
    for (long long r = 1; r <= rounds(); ++r) n += fed_offset(y, w, r, &offset) ? 1 : 0;
    return n;
  };
  double most = 0;
  for (Rank r = 0; r < P; ++r) {
    double sent = 0;
    for (int c = 0; c < 2; ++c) {
      if (positions(r, c) == 0) continue;
      for (int dir : {+1, -1}) {
        const Rank to = t.neighbor(r, cycle_port(r, c, dir));
        sent += 0.5 * static_cast<double>(m_[c] / 2 - 1) + (positions(to, c) == 1 ? 0.25 : 0.0);
      }
    }
    for (int a : {row_axis_, column_axis_})
      for (bool plus : {false, true}) {
        const Port p = make_port(a, plus);
        const Rank y = t.neighbor(r, p);
        if (off_cycle(y) < 0) continue;
        for (int w = 0; w < 2; ++w)
          if (feed(y, w).port == opposite(p)) sent += 0.5 * static_cast<double>(messages(y, w));
      }
    most = std::max(most, sent);
  }
  proof.volume_per_rank_blocks = most;
  proof.detail = construction();
  return proof;
}

}  // namespace torusgather
