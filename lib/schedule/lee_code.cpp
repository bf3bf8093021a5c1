// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/lee_code.hpp"

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <set>
#include <stdexcept>

#include "schedule/explicit.hpp"
#include "schedule/round_calls.hpp"

namespace torusgather {
namespace {

using Segments = LeeCodeSchedule::Segments;

int longest(const std::vector<Segments>& round) {
  int best = 0;
  for (const auto& path : round) {
    int len = 0;
    for (const auto& seg : path) len += std::abs(seg.second);
    best = std::max(best, len);
  }
  return best;
}

/// Rounds and hops (sum of each round's longest dipath) of the gossip on a
/// sub-torus of shape m dilated by f, by the recursion of Delmas & Pérennes §5.2:
/// concentration, the families' gossip, d-1 local rounds, broadcast
/// (4i rounds and 12/9·D δ on 7^i-sided 3D tori, Prop. 5.17). A sub-torus
/// whose sides the code does not divide gossips by bidirectional rings along
/// each axis in turn (Juurlink, Rao & Sibeyn, approach 1), one hop per step.
/// With `split` (Delmas & Pérennes §6) every level's broadcast takes two rounds of
/// one hop each: 5i rounds and 13/9·D δ on 7^i sides (Props. 6.3, 6.4).
void count(const std::vector<int>& m, int d, long long f, bool split, long long* rounds, long long* hops) {
  const int q = 2 * d + 1;
  if (LeeCodeSchedule::code_divides(m, q)) {
    std::vector<int> sub(m);
    for (int& x : sub) x /= q;
    count(sub, d, f * q, split, rounds, hops);
    *rounds += 2 + (d - 1) + (split ? 1 : 0);
    *hops += (split ? 3 : 2) * f;
    for (const auto& round : LeeCodeSchedule::local_rounds(d)) *hops += f * longest(round);
    return;
  }
  for (int x : m) {
    *rounds += x / 2;
    *hops += f * (x / 2);
  }
}

}  // namespace

bool LeeCodeSchedule::code_divides(const std::vector<int>& sides, int q) {
  bool all_one = true;
  for (int x : sides) {
    if (x % q) return false;
    all_one = all_one && x == 1;
  }
  return !all_one;
}

/// d = 3: Delmas & Pérennes Definition 5.5 (M0) and the dipaths of §5.1.3,
/// rounds 2-a and 2-b, copied from the paper (at most 5 hops, arc-disjoint).
/// d = 2: not in the paper. The code x1 + 2x2 ≡ 0 (mod 5) of a 5x5 torus is
/// {0, ±(1,2), ±(2,-1)}, so M = [(1,2) (2,-1)] gives B1 + M·B1 = Z_5^2 in
/// one round; of the minimal dipaths, "x2 first" for (1,2) and "x1 first"
/// for (2,-1) are arc-disjoint (3 hops), found by exhausting the orders and
/// checked by the simulator.
/// d = 1: the code 3Z leaves nothing to gossip locally (B1 = Z_3).
const std::vector<std::vector<Segments>>& LeeCodeSchedule::local_rounds(int d) {
  static const std::vector<std::vector<Segments>> none;
  static const std::vector<std::vector<Segments>> two = {{{{1, 2}, {0, 1}}, {{0, 2}, {1, -1}}}};
  static const std::vector<std::vector<Segments>> three = {
      // Round 2-a, u = M0·e_i: (-2,1,0) = (0,1,0)+(-2,0,0); (0,2,1) =
      // (0,0,-1)+(0,2,0)+(0,0,2); (1,3,0) = (1,0,0)+(0,3,0).
      {{{1, 1}, {0, -2}}, {{2, -1}, {1, 2}, {2, 2}}, {{0, 1}, {1, 3}}},
      // Round 2-b, u = M0^2·e_i: (-3,0,1) = (-3,0,0)+(0,0,1); (1,0,2) =
      // (0,-1,0)+(0,0,2)+(1,0,0)+(0,1,0); (-2,0,3) = (0,0,3)+(-2,0,0).
      {{{0, -3}, {2, 1}}, {{1, -1}, {2, 2}, {0, 1}, {1, 1}}, {{2, 3}, {0, -2}}},
  };
  return d == 3 ? three : d == 2 ? two : none;
}

/// One rank's rounds. A point is a vector of coordinates on the active
/// axes. At level l the sub-tori are dilated by f = q^l; a node of one is
/// a code node of every level before. U_0(x) = {x}; a code node's unit at
/// the next level is its ball, U_{l+1}(x) = U_l(x) and U_l(x ± f e_j).
class LeeCodeSchedule::Program final : public RankProgram {
 public:
  using Point = std::vector<int>;

  Program(const LeeCodeSchedule& s, Rank self) : s_(s), t_(s.torus()) {
    for (int a : s.axes_) x_.push_back(t_.coord(self, a));
    // Level by level: my coordinates in my sub-torus, and whether I am a
    // code node there (then my family is the next level's sub-torus).
    Point y = x_;
    for (int l = 0;; ++l) {
      level_.push_back(y);
      if (l == s.levels_ || weight(y) != 0) break;
      for (int& v : y) v /= s.q_;
    }
    depth_ = static_cast<int>(level_.size()) - 1;
  }

  void next_round(RoundOps& ops) override {
    calls_.clear();
    touched_.clear();
    if (round_ >= s_.stages_.size()) return calls_.emit(ops);
    const Stage& st = s_.stages_[round_++];
    const int l = st.level;
    if (depth_ >= l) {
      switch (st.kind) {
        case Stage::concentrate: concentrate(l); break;
        case Stage::ring: ring(st.index, st.step); break;
        case Stage::local: local(l, st.index); break;
        case Stage::broadcast: broadcast(l, -1); break;
        case Stage::pieces: broadcast(l, 0); break;
        case Stage::pass_on: pass_on(l); break;
      }
    }
    calls_.emit(ops);
  }

 private:
  long long f(int l) const {
    long long v = 1;
    for (int i = 0; i < l; ++i) v *= s_.q_;
    return v;
  }
  int weight(const Point& y) const {
    long long w = 0;
    for (std::size_t j = 0; j < y.size(); ++j) w += static_cast<long long>(j + 1) * y[j];
    return static_cast<int>((w % s_.q_ + s_.q_) % s_.q_);
  }
  Point moved(Point p, int j, long long by) const {
    const int n = s_.sides_[static_cast<std::size_t>(j)];
    p[static_cast<std::size_t>(j)] = static_cast<int>(((p[static_cast<std::size_t>(j)] + by) % n + n) % n);
    return p;
  }
  Rank rank_of(const Point& p) const {
    Rank r = 0;
    for (std::size_t j = 0; j < p.size(); ++j) r += static_cast<Rank>(p[j]) * t_.stride(s_.axes_[j]);
    return r;
  }
  /// My code node at level l (I am not one): weight r <= d lies at -e_{r-1},
  /// else at +e_{q-r-1}; the axis and the direction from me.
  std::pair<int, int> towards_code(int l) const {
    const int r = weight(level_[static_cast<std::size_t>(l)]);
    return r <= s_.d_ ? std::pair{r - 1, -1} : std::pair{s_.q_ - r - 1, 1};
  }

  void unit(int l, const Point& p, std::vector<Rank>* out) const {
    if (l == 0) {
      out->push_back(rank_of(p));
      return;
    }
    unit(l - 1, p, out);
    for (int j = 0; j < s_.d_; ++j)
      for (int sign : {1, -1}) unit(l - 1, moved(p, j, sign * f(l - 1)), out);
  }
  std::vector<Rank> sorted_unit(int l, const Point& p) const {
    std::vector<Rank> u;
    unit(l, p, &u);
    std::sort(u.begin(), u.end());
    return u;
  }
  /// The blocks of the level-l sub-torus through p: every unit of it (the
  /// whole torus at level 0).
  std::shared_ptr<const BlockRanges> everything(int l, const Point& p) const {
    return held(s_.remembered(keyed(0, l, 0, key(l - 1, p), {}), [&] { return make_everything(l, p); }));
  }
  /// Keeps a shared set for the rest of the round, so that the other ranks'
  /// programs stepped through the same round find it.
  std::shared_ptr<const BlockRanges> held(std::shared_ptr<const BlockRanges> x) const {
    touched_.push_back(x);
    return x;
  }
  BlockRanges make_everything(int l, const Point& p) const {
    if (l == 0) return {{0, t_.size()}};
    std::vector<Rank> out;
    const long long step = f(l);
    Point z(p.size(), 0);
    while (true) {
      Point at = p;
      for (std::size_t j = 0; j < p.size(); ++j) at = moved(at, static_cast<int>(j), step * z[j]);
      unit(l, at, &out);
      std::size_t j = 0;
      while (j < z.size() && ++z[j] == s_.sides_[j] / step) z[j++] = 0;
      if (j == z.size()) break;
    }
    std::sort(out.begin(), out.end());
    return to_ranges(out);
  }
  /// The blocks of piece w (Delmas & Pérennes §6.1: by the weight of a
  /// block's own coordinates) among `blocks`.
  BlockRanges piece(const BlockRanges& blocks, int w) const {
    std::vector<Rank> out;
    for (const auto& [lo, hi] : blocks)
      for (Rank b = lo; b < hi; ++b) {
        long long v = 0;
        for (int j = 0; j < s_.d_; ++j) v += static_cast<long long>(j + 1) * t_.coord(b, s_.axes_[static_cast<std::size_t>(j)]);
        if (v % s_.q_ == w) out.push_back(b);
      }
    return to_ranges(out);
  }
  /// A shared set less some blocks (sorted): the set itself where it holds
  /// none of them, so that the calls of a round share it.
  static std::shared_ptr<const BlockRanges> less(const std::shared_ptr<const BlockRanges>& a,
                                                 const std::vector<Rank>& b) {
    bool meets = false;
    for (Rank x : b) {
      const auto it = std::upper_bound(a->begin(), a->end(), std::pair<Rank, Rank>{x, std::numeric_limits<Rank>::max()});
      meets = meets || (it != a->begin() && std::prev(it)->second > x);
    }
    return meets ? std::make_shared<const BlockRanges>(less(*a, b)) : a;
  }
  /// Ranges less some blocks (sorted).
  static BlockRanges less(const BlockRanges& a, const std::vector<Rank>& b) {
    BlockRanges out;
    std::size_t i = 0;
    for (auto [lo, hi] : a) {
      while (i < b.size() && b[i] < lo) ++i;
      for (; i < b.size() && b[i] < hi; ++i) {
        if (b[i] > lo) out.emplace_back(lo, b[i]);
        lo = b[i] + 1;
      }
      if (lo < hi) out.emplace_back(lo, hi);
    }
    return out;
  }
  std::vector<Port> straight(int j, int sign, long long dist) const {
    return std::vector<Port>(static_cast<std::size_t>(dist), make_port(s_.axes_[static_cast<std::size_t>(j)], sign > 0));
  }
  std::vector<Port> route(const Segments& path, int sign, long long dist) const {
    std::vector<Port> out;
    for (const auto& seg : path) {
      const int len = seg.second * sign;
      out.insert(out.end(), static_cast<std::size_t>(std::abs(len) * dist),
                 make_port(s_.axes_[static_cast<std::size_t>(seg.first)], len > 0));
    }
    return out;
  }
  Point walked(Point p, const Segments& path, int sign, long long dist) const {
    for (const auto& seg : path) p = moved(p, seg.first, sign * seg.second * dist);
    return p;
  }

  /// Concentration: a node outside the code sends its unit to its code node.
  void concentrate(int l) {
    if (depth_ == l) {
      const auto [j, sign] = towards_code(l);
      add(true, rank_of(moved(x_, j, sign * f(l))), straight(j, sign, f(l)), to_ranges(sorted_unit(l, x_)));
      return;
    }
    for (int j = 0; j < s_.d_; ++j)
      for (int sign : {1, -1}) {
        const Point from = moved(x_, j, sign * f(l));
        add(false, rank_of(from), straight(j, -sign, f(l)), to_ranges(sorted_unit(l, from)));
      }
  }

  /// The last level's rings: a call carries, of the position ring_call
  /// names, every unit of my sub-torus at that position along axis j,
  /// anywhere on the axes before j, and where I am on those after.
  void ring(int j, int step) {
    const int L = s_.levels_;
    const long long fl = f(L);
    const int m = static_cast<int>(s_.sides_[static_cast<std::size_t>(j)] / fl);
    const int p = level_[static_cast<std::size_t>(L)][static_cast<std::size_t>(j)];
    auto slab = [&](int at) {
      std::vector<Rank> out;
      const Point base = moved(x_, j, (at - p) * fl);
      Point z(static_cast<std::size_t>(j), 0);
      while (true) {
        Point q = base;
        for (int i = 0; i < j; ++i) q = moved(q, i, z[static_cast<std::size_t>(i)] * fl);
        unit(L, q, &out);
        int i = 0;
        while (i < j && ++z[static_cast<std::size_t>(i)] == s_.sides_[static_cast<std::size_t>(i)] / fl) z[static_cast<std::size_t>(i++)] = 0;
        if (i == j) break;
      }
      std::sort(out.begin(), out.end());
      return to_ranges(out);
    };
    for (int side = 0; side < 2; ++side) {
      const int sign = side == 0 ? 1 : -1;
      const int mine = ring_call(m, step, p, side);
      if (mine >= 0) add(true, rank_of(moved(x_, j, sign * fl)), straight(j, sign, fl), slab(mine));
      const int from = ((p - sign) % m + m) % m;
      const int theirs = ring_call(m, step, from, side);
      if (theirs >= 0) add(false, rank_of(moved(x_, j, -sign * fl)), straight(j, sign, fl), slab(theirs));
    }
  }

  /// The families a code node holds before local round k of level l: those
  /// of p + f·v for v in B1 + M·B1 + ... (k terms), by a point of each.
  std::vector<Point> families(int l, int k, const Point& p) const {
    std::vector<Point> out{p};
    const auto& rounds = LeeCodeSchedule::local_rounds(s_.d_);
    for (int i = 0; i < k; ++i) {
      std::vector<Point> more = out;
      for (const auto& path : rounds[static_cast<std::size_t>(i)])
        for (int sign : {1, -1})
          for (const Point& q : out) more.push_back(walked(q, path, sign, f(l)));
      out = std::move(more);
    }
    return out;
  }
  /// A family's key: its points agree modulo the next level's dilation
  /// (l = -1: the whole torus).
  Point key(int l, Point p) const {
    const long long g = f(l + 1);
    for (int& v : p) v = static_cast<int>(v % g);
    return p;
  }
  static std::vector<long long> keyed(int kind, int l, int k, const Point& a, const Point& b) {
    std::vector<long long> out{kind, l, k};
    out.insert(out.end(), a.begin(), a.end());
    out.push_back(-1);
    out.insert(out.end(), b.begin(), b.end());
    return out;
  }
  /// Piece w of the level-l sub-torus through p.
  std::shared_ptr<const BlockRanges> piece_of(int l, const Point& p, int w) const {
    return held(s_.remembered(keyed(1, l, w, key(l - 1, p), {}), [&] { return piece(*everything(l, p), w); }));
  }
  std::shared_ptr<const BlockRanges> holding_less(int l, int k, const Point& from, const Point& to) const {
    return s_.remembered(keyed(2, l, k, key(l, from), key(l, to)), [&] { return make_holding_less(l, k, from, to); });
  }
  BlockRanges make_holding_less(int l, int k, const Point& from, const Point& to) const {
    std::set<Point> theirs;
    for (const Point& q : families(l, k, to)) theirs.insert(key(l, q));
    BlockRanges out;
    std::set<Point> seen;
    for (const Point& q : families(l, k, from))
      if (!theirs.count(key(l, q)) && seen.insert(key(l, q)).second) {
        const auto blocks = everything(l + 1, q);
        out.insert(out.end(), blocks->begin(), blocks->end());
      }
    return joined(std::move(out));  // families' blocks are disjoint
  }
  /// Local round k: each code node calls p ± M^k e_i along the round's dipaths.
  void local(int l, int k) {
    if (depth_ == l) return;
    const auto& round = LeeCodeSchedule::local_rounds(s_.d_)[static_cast<std::size_t>(k)];
    for (const auto& path : round)
      for (int sign : {1, -1}) {
        const Point to = walked(x_, path, sign, f(l)), from = walked(x_, path, -sign, f(l));
        add(true, rank_of(to), route(path, sign, f(l)), holding_less(l, k, x_, to));
        add(false, rank_of(from), route(path, sign, f(l)), holding_less(l, k, from, x_));
      }
  }

  /// The broadcast: every code node sends each neighbour what it lacks
  /// (`piece_of` < 0), or only its piece of it (§6.1's 3-a: the piece of the
  /// neighbour's weight).
  void broadcast(int l, int split) {
    const bool pieces = split >= 0;
    if (depth_ == l) {
      const auto [j, sign] = towards_code(l);
      const int w = weight(level_[static_cast<std::size_t>(l)]);
      auto blocks = less(pieces ? piece_of(l, x_, w) : everything(l, x_), sorted_unit(l, x_));
      add(false, rank_of(moved(x_, j, sign * f(l))), straight(j, -sign, f(l)), std::move(blocks));
      return;
    }
    for (int j = 0; j < s_.d_; ++j)
      for (int sign : {1, -1}) {
        const Point to = moved(x_, j, sign * f(l));
        const int w = ((sign * (j + 1)) % s_.q_ + s_.q_) % s_.q_;
        add(true, rank_of(to), straight(j, sign, f(l)),
            less(pieces ? piece_of(l, x_, w) : everything(l, x_), sorted_unit(l, to)));
      }
  }

  /// §6.1's 3-b: every node passes its own weight's piece on to its
  /// neighbours outside the code, less what they hold.
  void pass_on(int l) {
    const int w = depth_ == l ? weight(level_[static_cast<std::size_t>(l)]) : 0;
    for (int j = 0; j < s_.d_; ++j)
      for (int sign : {1, -1}) {
        const int other = ((w + sign * (j + 1)) % s_.q_ + s_.q_) % s_.q_;
        const Point next = moved(x_, j, sign * f(l));
        if (other != 0) add(true, rank_of(next), straight(j, sign, f(l)), less(piece_of(l, x_, w), sorted_unit(l, next)));
        if (w != 0) add(false, rank_of(next), straight(j, -sign, f(l)), less(piece_of(l, x_, other), sorted_unit(l, x_)));
      }
  }

  template <class Blocks>
  void add(bool send, Rank peer, std::vector<Port> route, Blocks&& blocks) {
    calls_.add(send, peer, std::move(route), std::forward<Blocks>(blocks));
  }

  const LeeCodeSchedule& s_;
  const Torus& t_;
  Point x_;                   ///< my coordinates on the active axes
  std::vector<Point> level_;  ///< my coordinates in my sub-torus, level by level
  int depth_ = 0;             ///< the last level I take part in
  std::size_t round_ = 0;
  RoundCalls calls_;
  mutable std::vector<std::shared_ptr<const BlockRanges>> touched_;
};

std::shared_ptr<const BlockRanges> LeeCodeSchedule::remembered(const std::vector<long long>& key,
                                                               const std::function<BlockRanges()>& make) const {
  {
    const std::lock_guard<std::mutex> lock(memo_mutex_);
    if (auto it = memo_.find(key); it != memo_.end())
      if (auto held = it->second.lock()) return held;
  }
  auto made = std::make_shared<const BlockRanges>(make());
  const std::lock_guard<std::mutex> lock(memo_mutex_);
  if (memo_.size() >= 1024)  // forget what no program holds any more
    for (auto it = memo_.begin(); it != memo_.end();) it = it->second.expired() ? memo_.erase(it) : std::next(it);
  memo_[key] = made;
  return made;
}

std::unique_ptr<RankProgram> LeeCodeSchedule::program(Rank r) const { return std::make_unique<Program>(*this, r); }

std::string LeeCodeSchedule::not_applicable(const Torus& torus, bool large) {
  const auto axes = torus.active_axes();
  const int d = static_cast<int>(axes.size());
  if (d < 1 || d > 3) return "needs 1 to 3 sides > 1 (the perfect Lee codes used are for d <= 3)";
  const int q = 2 * d + 1;
  for (int a : axes)
    if (torus.dim(a) % q)
      return "needs every side > 1 to be a multiple of " + std::to_string(q) + " (the code x1 + ... + d·xd ≡ 0 mod " +
             std::to_string(q) + ")";
  if (large && torus.size() == q)
    return "a ring of 3 has pieces of one block, each its receiver's own: the split broadcast has nothing to send";
  return {};
}

int LeeCodeSchedule::ring_call(int n, int step, int p, int side) {
  const int to = ((p + (side == 0 ? 1 : -1)) % n + n) % n;
  if (n % 2 == 0 && step == n / 2 - 1) {
    // The antipode of `to` comes from both neighbours: the first in order.
    const int plus = (to - 1 + n) % n, minus = (to + 1) % n;
    if ((side == 0) != (plus <= minus)) return -1;
  }
  return ((side == 0 ? p - step : p + step) % n + n) % n;
}

void LeeCodeSchedule::add_stages(int level) {
  if (level == levels_) {
    for (int j = 0; j < d_; ++j)
      for (int step = 0; step < rings_[static_cast<std::size_t>(j)] / 2; ++step)
        stages_.push_back({Stage::ring, level, j, step});
    return;
  }
  stages_.push_back({Stage::concentrate, level});
  add_stages(level + 1);
  for (std::size_t k = 0; k < local_rounds(d_).size(); ++k) stages_.push_back({Stage::local, level, static_cast<int>(k)});
  if (large_) {
    stages_.push_back({Stage::pieces, level});
    stages_.push_back({Stage::pass_on, level});
  } else {
    stages_.push_back({Stage::broadcast, level});
  }
}

LeeCodeSchedule::LeeCodeSchedule(const Torus& torus, bool large) : Schedule(torus), large_(large) {
  if (std::string why = not_applicable(torus, large); !why.empty())
    throw std::invalid_argument(std::string(name()) + ": " + why);
  axes_ = torus.active_axes();
  d_ = static_cast<int>(axes_.size());
  q_ = 2 * d_ + 1;
  for (int a : axes_) sides_.push_back(torus.dim(a));
  count(sides_, d_, 1, large, &rounds_, &hops_);
  std::vector<int> m = sides_;
  for (; LeeCodeSchedule::code_divides(m, q_); ++levels_)
    for (int& v : m) v /= q_;
  rings_ = m;  // the last level's rings, run along each axis in turn
  add_stages(0);
  if (static_cast<long long>(stages_.size()) != rounds_)
    throw std::logic_error(std::string(name()) + ": " + std::to_string(stages_.size()) + " stages for " +
                           std::to_string(rounds_) + " rounds");
  const char* code = d_ == 3 ? "x1 + 2x2 + 3x3 ≡ 0 (mod 7)" : d_ == 2 ? "x1 + 2x2 ≡ 0 (mod 5)" : "x1 ≡ 0 (mod 3)";
  construction_ = std::string("perfect Lee code ") + code + ", " + std::to_string(levels_) + " level" +
                  (levels_ == 1 ? "" : "s") + " of concentration, " + std::to_string(d_ - 1) + " local gossip round" +
                  (d_ == 2 ? "" : "s") + " and broadcast" +
                  (large ? std::string(" in two rounds of ") + std::to_string(q_) + " coloured pieces (§6)" : "");
}

}  // namespace torusgather
