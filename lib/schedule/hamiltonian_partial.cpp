// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/hamiltonian_partial.hpp"

#include <algorithm>
#include <stdexcept>

#include "schedule/hamiltonian.hpp"

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

Port HamiltonianPartialSchedule::rule(Rank r, Port in) const {
  const Torus& t = torus();
  const int R = t.dim(row_axis_), C = t.dim(column_axis_);
  const int i = t.coord(r, row_axis_), j = t.coord(r, column_axis_);
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
  // §3.1's rules elsewhere; C is odd, so column C-1 is even anyway.
  return section31_partner(t, row_axis_, column_axis_, r, in);
}

HamiltonianPartialSchedule::HamiltonianPartialSchedule(const Torus& torus) : Schedule(torus) {
  const Torus& t = this->torus();
  if (std::string why = not_applicable(t); !why.empty()) throw std::invalid_argument("hamiltonian-partial: " + why);
  const auto active = t.active_axes();
  both_odd_ = t.dim(active[0]) % 2 == 1 && t.dim(active[1]) % 2 == 1;
  row_axis_ = both_odd_ || t.dim(active[0]) % 2 == 0 ? active[0] : active[1];
  column_axis_ = row_axis_ == active[0] ? active[1] : active[0];
  const Rank P = t.size();
  const int R = t.dim(row_axis_);
  const auto fail = [](const std::string& what) { throw std::invalid_argument("hamiltonian-partial: " + what); };
  const Port ports[4] = {make_port(row_axis_, false), make_port(row_axis_, true), make_port(column_axis_, false),
                         make_port(column_axis_, true)};

  // Follow the strands of rank 0 (column 0, row 0: never special): cycle 0
  // leaves on its right port, cycle 1 on its bottom port (the other strand of
  // a rank with T<->R, B<->L).
  port_.assign(static_cast<std::size_t>(4 * P), -1);
  std::vector<std::vector<Rank>> order(2);
  const Port starts[2] = {ports[3], ports[1]};
  for (int c = 0; c < 2; ++c) {
    Rank r = 0;
    Port out = starts[c];
    do {
      const std::size_t rc = static_cast<std::size_t>(r * 2 + c);
      if (port_[rc * 2] >= 0) fail("cycle " + std::to_string(c) + " is not simple");
      port_[rc * 2] = out;
      port_[rc * 2 + 1] = rule(r, out);
      order[static_cast<std::size_t>(c)].push_back(r);
      const Rank next = t.neighbor(r, out);
      const Port in = opposite(out);
      out = rule(next, in);
      if (out < 0) fail("a cycle enters a free link");
      if (next == 0 && in != rule(0, starts[c])) fail("rank 0's two strands are one cycle");
      r = next;
    } while (r != 0);
  }
  // Every port a rank pairs lies on one of the two cycles (no third strand).
  for (Rank r = 0; r < P; ++r)
    for (Port p : ports)
      if (rule(r, p) >= 0 && cycle_port(r, 0, +1) != p && cycle_port(r, 0, -1) != p && cycle_port(r, 1, +1) != p &&
          cycle_port(r, 1, -1) != p)
        fail("rank " + std::to_string(r) + " pairs ports on a strand that is neither cycle");

  // Positions: a rank on both cycles holds one on each (part c on cycle c),
  // a rank on one cycle two consecutive ones there (both parts).
  for (Rank r = 0; r < P; ++r)
    if (positions(r, 0) == 0 && positions(r, 1) == 0) fail("rank " + std::to_string(r) + " lies on no cycle");
  first_.assign(static_cast<std::size_t>(2 * P), -1);
  seq_.reserve(static_cast<std::size_t>(2 * P));
  part_.reserve(static_cast<std::size_t>(2 * P));
  for (int c = 0; c < 2; ++c) {
    base_[c] = static_cast<long long>(seq_.size());
    for (Rank r : order[static_cast<std::size_t>(c)]) {
      const int n = positions(r, c);
      first_[static_cast<std::size_t>(r * 2 + c)] = static_cast<long long>(seq_.size()) - base_[c];
      for (int k = 0; k < n; ++k) {
        seq_.push_back(r);
        part_.push_back(static_cast<std::uint8_t>(n == 2 ? k : c));
      }
    }
    m_[c] = static_cast<long long>(seq_.size()) - base_[c];
    ranks_[c] = static_cast<long long>(order[static_cast<std::size_t>(c)].size());
    if (m_[c] % 2 != 0 || m_[c] / 2 > rounds())
      fail("cycle " + std::to_string(c) + " carries " + std::to_string(m_[c]) + " packets");
  }
  // The counts of the constructions: §3.2 two cycles of P - R/2 ranks
  // carrying P packets each; §3.3 cycles of P - (R+3)/2 and P - (R+1)/2 ranks
  // carrying P - 1 and P + 1 packets.
  const long long expected = both_odd_ ? 2 * P - R - 2 : 2 * P - R;
  if (ranks_[0] + ranks_[1] != expected || (!both_odd_ && ranks_[0] != ranks_[1]) ||
      (both_odd_ && std::max(ranks_[0], ranks_[1]) - std::min(ranks_[0], ranks_[1]) != 1))
    fail("the cycles have " + std::to_string(ranks_[0]) + " and " + std::to_string(ranks_[1]) + " ranks");

  // Feeding. A rank off cycle c has two free links (its other two ports are
  // c's); where both lead to ranks on c those feed it with switching, else
  // (§3.3's pair in row R-1) it and its free neighbour off c relay.
  // Streams only for the O(R) off-cycle ranks: index 0 is a pair of empty
  // ones for every rank on both cycles.
  fed_.assign(static_cast<std::size_t>(P), 0);
  streams_.assign(2, Stream{});
  for (Rank x = 0; x < P; ++x)
    if (off_cycle(x) >= 0) {
      fed_[static_cast<std::size_t>(x)] = static_cast<std::int32_t>(streams_.size() / 2);
      streams_.resize(streams_.size() + 2);
    }
  auto set = [&](Rank x, int which, const Stream& s) {
    streams_[static_cast<std::size_t>(fed_[static_cast<std::size_t>(x)] * 2 + which)] = s;
  };
  const long long T = rounds();
  auto free_link = [&](Rank r, Port p) { return rule(r, p) < 0 && rule(t.neighbor(r, p), opposite(p)) < 0; };
  auto last = [&](Rank r, int c) { return position(r, c) + positions(r, c) - 1; };
  auto direct = [&](Rank x, int c) {
    std::vector<Port> d;
    for (Port p : ports)
      if (free_link(x, p) && position(t.neighbor(x, p), c) >= 0) d.push_back(p);
    return d;
  };
  for (Rank x = 0; x < P; ++x) {
    const int c = off_cycle(x);
    if (c < 0 || feed(x, 0).port >= 0) continue;
    const long long M = m_[c];
    const std::vector<Port> d = direct(x, c);
    if (d.size() == 2) {
      const long long a0 = last(t.neighbor(x, d[0]), c), a1 = last(t.neighbor(x, d[1]), c);
      const long long g = wrap(a1 - a0, M);
      if (g == 0) fail("rank " + std::to_string(x) + "'s two feeders are one rank");
      // A: the feeder B's last position is at most M/2 ahead of.
      const int a = 2 * g <= M ? 0 : 1;
      const long long k = a == 0 ? g : M - g;
      set(x, a, Stream{d[static_cast<std::size_t>(a)], a == 0 ? a0 : a1, M / 2, M / 2, 0});
      set(x, 1 - a, Stream{d[static_cast<std::size_t>(1 - a)], a == 0 ? a1 : a0, k, M / 2, 0});
      continue;
    }
    // §3.3's relaying pair: x and y, each with one feeder on c, over their
    // free link. Their streams S_x, S_y run T rounds; each passes the other's
    // first T - 1 on. The switch steps make S_y start where S_x ends:
    // S_x = [lo, lo + T - 1], S_y = [lo + T - 1, lo + 2T - 2], M = 2T - 2.
    Rank y = -1;
    Port q = -1;
    for (Port p : ports)
      if (d.size() == 1 && p != d[0] && free_link(x, p) && off_cycle(t.neighbor(x, p)) == c &&
          direct(t.neighbor(x, p), c).size() == 1)
        y = t.neighbor(x, p), q = p;
    if (y < 0) fail("rank " + std::to_string(x) + " cannot be fed cycle " + std::to_string(c));
    const Port dy = direct(y, c)[0];
    const long long fx = last(t.neighbor(x, d[0]), c), fy = last(t.neighbor(y, dy), c);
    long long kx = -1, ky = -1;
    for (long long k = 1; k < T && kx < 0; ++k) {
      const long long k2 = wrap(fy - fx + k - T + 1, M);
      if (k2 >= 1 && k2 < T) kx = k, ky = k2;
    }
    if (kx < 0) fail("no switch steps for the relaying ranks " + std::to_string(x) + " and " + std::to_string(y));
    set(x, 0, Stream{d[0], fx, kx, T, 0});
    set(x, 1, Stream{q, fy, ky, T - 1, 1});
    set(y, 0, Stream{dy, fy, ky, T, 0});
    set(y, 1, Stream{opposite(q), fx, kx, T - 1, 1});
  }

  // Checks: each off-cycle rank's two streams cover its cycle, B's descent
  // fits in its stream, and no directed link carries two streams or a stream
  // and a cycle.
  std::vector<std::uint8_t> sends(static_cast<std::size_t>(P * t.ports()), 0);
  for (Rank x = 0; x < P; ++x) {
    const int c = off_cycle(x);
    if (c < 0) continue;
    const long long M = m_[c];
    long long lo[2], len[2];
    for (int w = 0; w < 2; ++w) {
      const Stream& s = feed(x, w);
      if (s.k < 1 || s.n > T - s.delay || !free_link(x, s.port))
        fail("rank " + std::to_string(x) + "'s stream " + std::to_string(w) + " is not a switching feed");
      lo[w] = stream_low(s);
      len[w] = s.n;
      auto& used = sends[static_cast<std::size_t>(t.neighbor(x, s.port) * t.ports() + opposite(s.port))];
      if (used++) fail("a link feeds two streams");
    }
    if (!covers(lo[0], len[0], lo[1], len[1], M))
      fail("rank " + std::to_string(x) + "'s feeders do not cover cycle " + std::to_string(c));
  }
}

int HamiltonianPartialSchedule::off_cycle(Rank r) const {
  if (position(r, 0) < 0) return 0;
  if (position(r, 1) < 0) return 1;
  return -1;
}

long long HamiltonianPartialSchedule::fed_position(Rank r, int which, long long t) const {
  const Stream& s = feed(r, which);
  const long long u = t - s.delay;
  if (u < 1 || u > s.n) return -1;
  const long long M = m_[off_cycle(r)];
  const long long p = wrap(stream_at(s, u), M);
  if (s.delay == 0) return p;
  // A relayed position r's own feeder brings too is not passed on.
  const Stream& own = feed(r, 1 - which);
  return wrap(p - stream_low(own), M) < own.n ? -1 : p;
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

namespace {

/// One rank: both ways round each cycle it lies on (out of its last position
/// forward, its first backward), fed on the cycle it is off, and sending the
/// streams its neighbours off a cycle are fed through it.
class HamiltonianPartialProgram final : public RankProgram {
 public:
  HamiltonianPartialProgram(const HamiltonianPartialSchedule& s, Rank self) : s_(s), self_(self) {}

  void next_round(RoundOps& ops) override {
    ops.clear();
    const long long t = ++round_;
    const Torus& torus = s_.torus();
    if (t > s_.rounds()) return;
    auto transfer = [&](Port port, int c, long long p, std::uint8_t half) {
      const Piece piece{static_cast<std::uint16_t>(s_.part(c, p)), 2, half};
      return Transfer{port, {s_.at(c, p), 0}, piece};
    };
    const int off = s_.off_cycle(self_);
    for (int c = 0; c < 2; ++c) {
      const int n = s_.positions(self_, c);
      if (n == 0) continue;
      const long long M = s_.cycle_positions(c);
      if (t > M / 2) continue;
      const bool last_round = t == M / 2;
      const long long first = s_.position(self_, c), last = first + n - 1;
      const Port fwd = s_.cycle_port(self_, c, +1), bwd = s_.cycle_port(self_, c, -1);
      // In the last round a rank of one position gets its antipode in halves
      // from both sides; a rank of two positions got both of its antipodes in
      // the round before (from the other side) and gets nothing.
      const bool next_takes = !last_round || s_.positions(torus.neighbor(self_, fwd), c) == 1;
      const bool prev_takes = !last_round || s_.positions(torus.neighbor(self_, bwd), c) == 1;
      const bool self_takes = !last_round || n == 1;
      const std::uint8_t h1 = last_round ? 1 : 0, h2 = last_round ? 2 : 0;
      if (next_takes) ops.sends.push_back(transfer(fwd, c, last - (t - 1), h1));
      if (self_takes) ops.recvs.push_back(transfer(bwd, c, first - t, h1));
      if (prev_takes) ops.sends.push_back(transfer(bwd, c, first + (t - 1), h2));
      if (self_takes) ops.recvs.push_back(transfer(fwd, c, last + t, h2));
    }
    if (off >= 0)
      for (int w = 0; w < 2; ++w) {
        const long long p = s_.fed_position(self_, w, t);
        if (p >= 0) ops.recvs.push_back(transfer(s_.feed(self_, w).port, off, p, 0));
      }
    // Feeding: a neighbour off a cycle that receives one of its streams from
    // us (as its feeder on that cycle, or as the other relaying rank).
    for (int a : {s_.row_axis(), s_.column_axis()})
      for (bool plus : {false, true}) {
        const Port p = make_port(a, plus);
        const Rank y = torus.neighbor(self_, p);
        const int c = s_.off_cycle(y);
        if (c < 0) continue;
        for (int w = 0; w < 2; ++w) {
          if (s_.feed(y, w).port != opposite(p)) continue;
          const long long q = s_.fed_position(y, w, t);
          if (q >= 0) ops.sends.push_back(transfer(p, c, q, 0));
        }
      }
  }

 private:
  const HamiltonianPartialSchedule& s_;
  Rank self_;
  long long round_ = 0;
};

}  // namespace

std::unique_ptr<RankProgram> HamiltonianPartialSchedule::program(Rank r) const {
  return std::make_unique<HamiltonianPartialProgram>(*this, r);
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
    const Stream& s = feed(y, w);
    if (s.delay == 0) return s.n;
    long long n = 0;
    for (long long r = 1; r <= rounds(); ++r) n += fed_position(y, w, r) >= 0 ? 1 : 0;
    return n;
  };
  double most = 0;
  for (Rank r = 0; r < P; ++r) {
    double sent = 0;
    for (int c = 0; c < 2; ++c) {
      if (position(r, c) < 0) continue;
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
