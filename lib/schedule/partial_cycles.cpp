// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/partial_cycles.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <tuple>

#include "schedule/process_memo.hpp"

namespace torusgather {
namespace {

/// Conditions (1)-(3) of §4.3.1 for the sides n_1..n_d = n[0..d-1].
bool meets_conditions(const std::vector<long long>& n) {
  const int d = static_cast<int>(n.size());
  if (d < 2 || n[0] % d != 0 || n[d - 1] < d) return false;
  long long sum = 0;
  for (int j = 1; j <= d - 2; ++j) {
    long long prod = 1;
    for (int l = j; l <= d - 2; ++l) prod *= n[l];
    sum += prod;
  }
  return sum % n[0] == 0;
}

/// Axis orders meeting the conditions, the largest n_d first (m = P/d + P/n_d).
/// The conditions see only the sides, so axes of equal side are taken in
/// index order: the orders of the sides' multiset, not all d! axis orders,
/// and at most 8! of them.
std::vector<std::vector<int>> candidate_orders(const Torus& t) {
  std::vector<int> sides(t.dims());
  std::sort(sides.begin(), sides.end());
  std::vector<std::vector<int>> orders;
  do {
    std::vector<int> order;
    std::vector<bool> used(static_cast<std::size_t>(t.ndims()), false);
    for (int n : sides)
      for (int a = 0; a < t.ndims(); ++a)
        if (!used[static_cast<std::size_t>(a)] && t.dim(a) == n) {
          used[static_cast<std::size_t>(a)] = true;
          order.push_back(a);
          break;
        }
    orders.push_back(std::move(order));
  } while (std::next_permutation(sides.begin(), sides.end()) && orders.size() < 40320);
  std::sort(orders.begin(), orders.end());  // axis-index order, as the first 64 were always taken
  std::vector<std::vector<int>> out;
  for (auto& order : orders) {
    std::vector<long long> n;
    for (int a : order) n.push_back(t.dim(a));
    if (meets_conditions(n)) out.push_back(std::move(order));
    if (out.size() == 64) break;
  }
  std::stable_sort(out.begin(), out.end(),
                   [&](const auto& x, const auto& y) { return t.dim(x.back()) > t.dim(y.back()); });
  return out;
}

/// §3.2's switching strategy on blocks the feeders hold: in round s, A sends
/// position a - (s-1) (s = 1..ceil(m/2)); B sends a + l + 1 - (s-1) while
/// s <= l + 1, then a + s (s <= floor(m/2)). A covers a - ceil(m/2) + 1 .. a,
/// B covers a + 1 .. a + floor(m/2): every position once, each after it
/// reached its feeder (A's + stream; B's + stream, then its - stream).
bool feed_position(bool from_a, long long a, long long l, long long m, long long s, long long* p) {
  if (from_a) {
    *p = a - (s - 1);
    return s <= (m + 1) / 2;
  }
  *p = s <= l + 1 ? a + l + 1 - (s - 1) : a + s;
  return s <= m / 2;
}

/// The time-independent feed: in round s, A passes on position a + (s-1)
/// (its own block, then what came from its far side), B position
/// a + l + 1 - (s-1). Position a + j reaches the fed rank first in round
/// 1 + min(j, (l + 1 - j) mod m), from A on a tie; any later copy is a relay.
void ti_feed_position(bool from_a, long long a, long long l, long long m, long long s, long long* p, bool* relay) {
  const long long k = s - 1;
  if (from_a) {
    *p = a + k;
    *relay = !(k < m && k <= (((l + 1 - k) % m) + m) % m);
  } else {
    *p = a + l + 1 - k;
    *relay = !(k < m && k < (((l + 1 - k) % m) + m) % m);
  }
}

/// Whether a packet arriving at a cycle rank in round t, having run t steps
/// in direction dir, arrives for the first time (the + stream wins a tie at
/// the antipode of an even cycle).
bool ti_first_arrival(long long t, int dir, long long m) {
  return t < m && (dir > 0 ? 2 * t <= m : 2 * t < m);
}

/// The helix on R rows of C columns (both odd) needs k defect rows,
/// k = 2R mod C taken odd (adding C if even); it fits when k <= R.
long long defect_rows(long long R, long long C) {
  long long k = (2 * R) % C;
  if (k % 2 == 0) k += C;
  return k <= R ? k : -1;
}

bool both_sides_odd_2d(const Torus& t) { return t.ndims() == 2 && t.dim(0) % 2 == 1 && t.dim(1) % 2 == 1; }

}  // namespace

std::string PartialCyclesSchedule::not_applicable(const Torus& t) {
  if (t.ndims() < 2) return "needs d >= 2";
  if (t.ndims() > kMaxCycles) return "at most " + std::to_string(kMaxCycles) + " axes";
  for (int a = 0; a < t.ndims(); ++a)
    if (t.dim(a) < 2) return "needs every side >= 2";
  if (both_sides_odd_2d(t)) return {};  // the helix
  if (candidate_orders(t).empty())
    return "no order of the axes meets §4.3's conditions (1) sum_{j=2}^{d-1} prod_{l=j}^{d-1} n_l = 0 mod n_1, "
           "(2) n_1 = 0 mod d, (3) n_d >= d";
  return {};
}

long long PartialCyclesSchedule::rounds_at_least(const Torus& t) {
  if (!not_applicable(t).empty()) return 0;
  // The orders with the longest last side may fail to build (2x512 builds
  // 512 rounds, not 257): build it, O(P d).
  try {
    return PartialCyclesSchedule(t).rounds();
  } catch (const std::invalid_argument&) {
    return 1;
  }
}

PartialCyclesSchedule::PartialCyclesSchedule(const Torus& t, bool time_independent)
    : Schedule(t), ti_(time_independent) {
  std::string why = not_applicable(t);
  if (!why.empty()) throw std::invalid_argument(std::string(name()) + ": " + why);
  const bool helix = both_sides_odd_2d(t);
  std::vector<std::vector<int>> orders;
  if (helix) {
    // Rows along the axis with fewer defect rows (one of the two fits: the
    // longer side as rows gives k <= C <= R).
    const long long k0 = defect_rows(t.dim(0), t.dim(1)), k1 = defect_rows(t.dim(1), t.dim(0));
    orders.push_back(k0 > 0 && (k1 < 0 || k0 <= k1) ? std::vector<int>{1, 0} : std::vector<int>{0, 1});
  } else {
    orders = candidate_orders(t);
  }
  // Which order builds, and the time-independent feed length, are the same
  // for every communicator (and simulated rank) of this shape: checked once
  // per process (O(P) time), then laid out again from the memo in O(d).
  struct Verdict {
    int order = -1;  ///< index into orders; -1: none builds
    std::string why;
    long long feed_rounds = 0;
  };
  static ProcessMemo<std::tuple<std::vector<int>, std::uint32_t, std::uint32_t, bool>, Verdict> known(1024);
  std::vector<int> dims;
  for (int a = 0; a < t.ndims(); ++a) dims.push_back(t.dim(a));
  const auto verdict = known.get({dims, t.two_link_axes(), t.open_axes(), ti_}, [&] {
    auto v = std::make_shared<Verdict>();
    for (std::size_t k = 0; k < orders.size(); ++k) {
      v->why = build(orders[k], helix);
      if (v->why.empty()) v->why = check();
      if (v->why.empty()) {
        v->order = static_cast<int>(k);
        if (ti_) {
          time_independent_rounds();
          v->feed_rounds = feed_rounds_;
        }
        break;
      }
    }
    return v;
  });
  why = verdict->why;
  if (verdict->order >= 0) {
    build(orders[static_cast<std::size_t>(verdict->order)], helix);
    if (ti_) {
      feed_rounds_ = verdict->feed_rounds;
      cycle_rounds_ = std::max(m_ / 2, feed_rounds_ - 1);  // as time_independent_rounds()
    } else {
      cycle_rounds_ = m_ / 2;  // the antipode of an even cycle in halves
      feed_rounds_ = (m_ + 1) / 2;
    }
    return;
  }
  throw std::invalid_argument(std::string(name()) + ": " + why);
}

void PartialCyclesSchedule::time_independent_rounds() {
  // The fed rank of feeders a and a + l + 1 gets position a + j first in
  // round 1 + f(j), f(j) = min(j, (l + 1 - j) mod m): f rises and falls on
  // [0, l + 1] (peak (l + 1)/2) and on [l + 1, m] (peak (m + l + 1)/2). Its
  // largest value over the positions that inject on the cycle is at the
  // injecting position nearest a peak on one side; injecting positions are
  // found by stepping along the cycle from the peak.
  feed_rounds_ = 0;
  std::vector<bool> any(static_cast<std::size_t>(d_), false);
  for (int c = 0; c < d_; ++c) {
    bool inj = false;
    for (long long p = 0; p < m_ && !inj; ++p) at(c, p, &inj);
    any[static_cast<std::size_t>(c)] = inj;
  }
  for (Rank r = 0; r < torus().size(); ++r) {
    const Local own = local(r);
    for (int c = 0; c < d_; ++c) {
      if (own.pos[static_cast<std::size_t>(c)] >= 0 || !any[static_cast<std::size_t>(c)]) continue;
      const Feeders f = feeders(own, c);
      auto first = [&](long long j) { return 1 + std::min(j, wrap(f.l + 1 - j)); };
      auto nearest = [&](long long j, int step) {  // offset from a of the injecting position at or after/before a + j
        long long q = wrap(f.a + j);
        for (bool inj = false; at(c, q, &inj), !inj;) q = wrap(q + step);
        return wrap(q - f.a);
      };
      for (const long long peak : {(f.l + 1) / 2, (m_ + f.l + 1) / 2})
        for (const long long j : {nearest(peak, -1), nearest(peak, +1), nearest(peak + 1, +1)})
          feed_rounds_ = std::max(feed_rounds_, first(j));
    }
  }
  // The feeders pass on in round s what reached them in round s - 1.
  cycle_rounds_ = std::max(m_ / 2, feed_rounds_ - 1);
}

std::string PartialCyclesSchedule::build(const std::vector<int>& order, bool helix) {
  const Torus& t = torus();
  order_ = order;
  paper_of_.assign(order.size(), 0);
  for (std::size_t k = 0; k < order.size(); ++k) paper_of_[static_cast<std::size_t>(order[k])] = static_cast<int>(k);
  n_.clear();
  stride_.clear();
  for (int a : order) {
    n_.push_back(t.dim(a));
    std::vector<int> unit(static_cast<std::size_t>(t.ndims()), 0);
    unit[static_cast<std::size_t>(a)] = 1;
    stride_.push_back(t.rank(unit));
  }
  d_ = t.ndims();
  if (helix) {
    // Both sides odd: §4.1's laps need n1 even, and its "special column" for
    // odd n1 is one sentence. Our own construction: two helices that run
    // along x_1 (the rows' axis, C ranks per row) and step down x_2 (R
    // rows) at the end of each run. In row r cycle 0 covers the run A_r
    // ranks long from column s_r, cycle 1 the run B_r long from t_r: normal
    // rows split the row (A_r + B_r = C, t_r = s_r + A_r), the k defect rows
    // 0..k-1 share one rank (A_r + B_r = C + 1, t_r = s_r + A_r - 1: the end
    // of cycle 0's run is the start of cycle 1's, on both cycles). The next
    // row starts where a run ends (s_{r+1} = s_r + A_r - 1), so its run lies
    // under the other cycle's run of row r, and the links between the
    // cycles are exactly the free links. Defect rows A = B = (C+1)/2; normal
    // rows alternate A = (C-1)/2, (C+1)/2 (B = C - A), which returns to row
    // 0's lengths after the odd R rows exactly when k = 2R mod C (odd,
    // <= R); then m = (R*C + k)/2 ranks per cycle. check() verifies it all.
    const long long k = defect_rows(n_[1], n_[0]);
    if (k < 0) return "the helix needs 2R mod C (taken odd) <= R rows";
    helix_defects_ = k;
    m_ = (n_[0] * n_[1] + k) / 2;
    return {};
  }
  const int d = d_;
  M_.assign(static_cast<std::size_t>(d + 1), 0);
  laps_ = n_[0] / d;
  for (int j = 2; j <= d - 1; ++j) {
    M_[static_cast<std::size_t>(j)] = laps_;
    laps_ *= n_[static_cast<std::size_t>(j - 1)];
  }
  lap_ = n_[static_cast<std::size_t>(d - 1)] + d;
  m_ = laps_ * lap_;
  return {};
}

std::string PartialCyclesSchedule::construction() const {
  std::string axes;
  for (int k = 0; k < d_; ++k) axes += (k ? "," : "") + std::to_string(order_[static_cast<std::size_t>(k)]);
  std::string s = helix_defects_ > 0
                      ? "2 partial cycles of " + std::to_string(m_) + " ranks, helices along axis " +
                            std::to_string(order_[0]) + " down axis " + std::to_string(order_[1]) + " with " +
                            std::to_string(helix_defects_) + " defect rows (both sides odd; ours, for §4.1's special column)"
                      : std::to_string(d_) + " partial cycles of " + std::to_string(m_) + " ranks, x_1..x_d = axes " +
                            axes + " (Meyer & Sibeyn §4)";
  if (ti_)
    s += ", time-independent: " + std::to_string(cycle_rounds_) + " rounds along the cycles, " +
         std::to_string(feed_rounds_) + " of feeding";
  return s;
}

PartialCyclesSchedule::Feeders PartialCyclesSchedule::feeders(const Local& own, int c) const {
  const auto& at = own.feed_pos[static_cast<std::size_t>(c)];
  const long long a0 = at[0], a1 = at[1];
  const long long g = wrap(a1 - a0);
  if (2 * g <= m_) return {0, a0, g - 1};
  return {1, a1, wrap(a0 - a1) - 1};
}

bool PartialCyclesSchedule::fed_from(Rank r, int c, int which, long long round, long long* p, bool* relay) const {
  return fed_from(feeders(r, c), which, round, p, relay);
}

bool PartialCyclesSchedule::fed_from(const Feeders& f, int which, long long round, long long* p, bool* relay) const {
  *relay = false;
  if (!ti_) return feed_position(which == f.a_which, f.a, f.l, m_, round, p);
  if (round > feed_rounds_) return false;
  ti_feed_position(which == f.a_which, f.a, f.l, m_, round, p, relay);
  return true;
}

std::vector<long long> PartialCyclesSchedule::rule_changes() const {
  std::vector<long long> out{cycle_rounds_ + 1, feed_rounds_ + 1};
  if (!ti_) {
    if (m_ % 2 == 0) out.insert(out.end(), {m_ / 2, m_ / 2 + 1});  // halves at the antipode
    out.insert(out.end(), {(m_ + 1) / 2 + 1, m_ / 2 + 1});        // A and B stop (feed_position)
    const std::vector<long long> positions = positions_table();
    for (Rank r = 0; r < torus().size(); ++r) {                     // B turns at s = l + 2
      const Local own = local(r, positions);
      for (int c = 0; c < d_; ++c)
        if (own.pos[static_cast<std::size_t>(c)] < 0) out.push_back(feeders(own, c).l + 2);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

namespace {

/// One rank of either variant: both ways round each cycle it lies on (with
/// halves at the antipode of an even cycle when switching; copies as relay
/// receives when time-independent), fed on the cycles it is off, and feeding
/// its neighbours that are fed through it. What it needs of its own and its
/// neighbours' places on the cycles is worked out once, when it is made.
class PartialCyclesProgram final : public RankProgram {
 public:
  PartialCyclesProgram(const PartialCyclesSchedule& s, Rank self) : s_(s), own_(s.local(self)) {
    const Torus& t = s.torus();
    const int d = s.cycles();
    feeders_.resize(static_cast<std::size_t>(d));
    for (int c = 0; c < d; ++c)
      if (own_.pos[static_cast<std::size_t>(c)] < 0) feeders_[static_cast<std::size_t>(c)] = s.feeders(own_, c);
    // The neighbours fed through this rank: on which port, cycle and as which feeder.
    for (Port port = 0; port < t.ports(); ++port) {
      const Rank r = t.neighbor(self, port);
      if (r == self) continue;
      const PartialCyclesSchedule::Local nb = s.local(r);
      for (int c = 0; c < d; ++c) {
        if (nb.pos[static_cast<std::size_t>(c)] >= 0) continue;
        for (int w = 0; w < 2; ++w)
          if (nb.feed[static_cast<std::size_t>(c)][static_cast<std::size_t>(w)] == opposite(port))
            feeding_.push_back({port, c, w, s.feeders(nb, c)});
      }
    }
  }

  void next_round(RoundOps& ops) override {
    ops.clear();
    ++round_;
    const long long m = s_.cycle_length();
    const bool ti = s_.time_independent();
    // The rank at position p of cycle c, if it injects there (else -1).
    auto fed = [&](int c, long long p) {
      bool injects = false;
      const Rank r = s_.at(c, p, &injects);
      return injects ? r : -1;
    };
    auto transfer = [&](Port port, Rank origin, Piece piece, bool relay) {
      Transfer x{port, {origin, 0}, piece};
      x.relay = relay;
      return x;
    };
    Rank origin = -1;
    long long p = 0;
    bool relay = false;
    for (int c = 0; c < s_.cycles(); ++c) {
      const long long q = own_.pos[static_cast<std::size_t>(c)];
      if (q < 0) {
        for (int w = 0; w < 2; ++w)
          if (s_.fed_from(feeders_[static_cast<std::size_t>(c)], w, round_, &p, &relay) && (origin = fed(c, p)) >= 0)
            ops.recvs.push_back(
                transfer(own_.feed[static_cast<std::size_t>(c)][static_cast<std::size_t>(w)], origin, Piece{}, relay));
      } else if (round_ <= s_.cycle_rounds()) {
        const bool halves = !ti && m % 2 == 0 && round_ == m / 2;
        for (int dir : {+1, -1}) {
          Piece piece;
          if (halves) piece.half = dir > 0 ? 1 : 2;
          const long long in = q - dir * round_, out = q - dir * (round_ - 1);
          const auto& ports = own_.port[static_cast<std::size_t>(c)];
          if ((origin = fed(c, in)) >= 0)
            ops.recvs.push_back(transfer(ports[dir > 0 ? 1 : 0], origin, piece, ti && !ti_first_arrival(round_, dir, m)));
          if ((origin = fed(c, out)) >= 0) ops.sends.push_back(transfer(ports[dir > 0 ? 0 : 1], origin, piece, false));
        }
      }
      for (const Feeding& f : feeding_)
        if (f.c == c && s_.fed_from(f.feeders, f.which, round_, &p, &relay) && (origin = fed(c, p)) >= 0)
          ops.sends.push_back(transfer(f.port, origin, Piece{}, false));
    }
  }

 private:
  struct Feeding {
    Port port;
    int c, which;
    PartialCyclesSchedule::Feeders feeders;
  };
  const PartialCyclesSchedule& s_;
  PartialCyclesSchedule::Local own_;
  std::vector<PartialCyclesSchedule::Feeders> feeders_;
  std::vector<Feeding> feeding_;
  long long round_ = 0;
};

}  // namespace

std::unique_ptr<RankProgram> PartialCyclesSchedule::program(Rank r) const {
  return std::make_unique<PartialCyclesProgram>(*this, r);
}

StructuralProof PartialCyclesSchedule::prove() const {
  // The constructor has checked: d simple cycles of m ranks on disjoint links;
  // every rank on one at least and injecting on exactly one; for every rank r
  // off cycle c two distinct neighbours on c feeding r over links no cycle
  // uses, each directed link feeding once. Then: the cycles bring every rank
  // on c all of c's blocks in floor(m/2) rounds, one message per link and
  // round (as in §3); feed_position's lemma brings an off-cycle rank all m
  // positions once in ceil(m/2) rounds over its two feed links. So every rank
  // gets every block exactly once (each is injected on one cycle), in
  // ceil(m/2) rounds, with at most one message per directed link per round.
  // Time-independent: the cycles run Tc >= floor(m/2) rounds, so every cycle
  // rank gets all of its cycle's blocks (later copies are relays); a feeder
  // passes on in round s what reached it in round s - 1 <= Tc; and
  // time_independent_rounds() chose T so that every fed rank has every
  // injected position by round T (ti_feed_position's first arrivals).
  StructuralProof proof;
  proof.supported = true;
  proof.complete = true;
  proof.rounds = rounds();
  proof.max_link_messages_per_round = 1;
  proof.max_link_blocks_per_round = 1;
  // Volume from prefix sums of the injected positions of each cycle.
  const Rank P = torus().size();
  std::vector<std::vector<long long>> prefix(static_cast<std::size_t>(d_));
  for (int c = 0; c < d_; ++c) {
    auto& pre = prefix[static_cast<std::size_t>(c)];
    pre.assign(static_cast<std::size_t>(2 * m_ + 1), 0);
    for (long long p = 0; p < 2 * m_; ++p) pre[static_cast<std::size_t>(p + 1)] = pre[static_cast<std::size_t>(p)] + (injects(at(c, p), c) ? 1 : 0);
  }
  auto count = [&](int c, long long lo, long long len) {  // injected positions lo .. lo+len-1
    const long long s = wrap(lo);
    const auto& pre = prefix[static_cast<std::size_t>(c)];
    const long long laps = len / m_, rest = len % m_;
    return static_cast<double>(laps * pre[static_cast<std::size_t>(m_)] + pre[static_cast<std::size_t>(s + rest)] -
                               pre[static_cast<std::size_t>(s)]);
  };
  std::vector<double> sent(static_cast<std::size_t>(P), 0.0);
  const long long half = m_ / 2;
  const std::vector<long long> positions = positions_table();
  for (Rank r = 0; r < P; ++r) {
    const Local own = local(r, positions);
    for (int c = 0; c < d_; ++c) {
      const long long q = own.pos[static_cast<std::size_t>(c)];
      if (ti_) {
        // Time-independent: positions q, q-1, ... (+) and q, q+1, ... (-)
        // for Tc rounds; feeders a .. a+T-1 and b-T+1 .. b.
        if (q >= 0) {
          sent[static_cast<std::size_t>(r)] += count(c, q - cycle_rounds_ + 1, cycle_rounds_) + count(c, q, cycle_rounds_);
          continue;
        }
        const auto f = feeders(own, c);
        for (int w = 0; w < 2; ++w) {
          const Rank feeder = torus().neighbor(r, own.feed[static_cast<std::size_t>(c)][static_cast<std::size_t>(w)]);
          sent[static_cast<std::size_t>(feeder)] += w == f.a_which ? count(c, f.a, feed_rounds_)
                                                                   : count(c, f.a + f.l + 2 - feed_rounds_, feed_rounds_);
        }
        continue;
      }
      if (q >= 0) {
        // + direction: q, q-1, ..., q-half+1; - direction: q .. q+half-1; halves at the antipode.
        double v = count(c, q - half + 1, half) + count(c, q, half);
        if (m_ % 2 == 0 && half > 0) v -= 0.5 * (count(c, q - half + 1, 1) + count(c, q + half - 1, 1));
        sent[static_cast<std::size_t>(r)] += v;
        continue;
      }
      const auto f = feeders(own, c);
      for (int w = 0; w < 2; ++w) {
        const Rank feeder = torus().neighbor(r, own.feed[static_cast<std::size_t>(c)][static_cast<std::size_t>(w)]);
        sent[static_cast<std::size_t>(feeder)] +=
            w == f.a_which ? count(c, f.a - (m_ + 1) / 2 + 1, (m_ + 1) / 2) : count(c, f.a + 1, half);
      }
    }
  }
  proof.volume_per_rank_blocks = *std::max_element(sent.begin(), sent.end());
  proof.detail = construction();
  return proof;
}

}  // namespace torusgather
