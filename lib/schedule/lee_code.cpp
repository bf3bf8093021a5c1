// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/lee_code.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

namespace torusgather {
namespace {

/// A dipath as segments (axis index among the active axes, signed length),
/// walked in order; the dipath of -u walks the same segments negated.
using Segments = std::vector<std::pair<int, int>>;

/// The local gossip rounds x -> x + M^k B1 (k = 1 .. d-1) among the code
/// nodes, one dipath per ±u of M^k B1.
/// d = 3: Delmas & Pérennes Definition 5.5 (M0) and the dipaths of §5.1.3, rounds
/// 2-a and 2-b, copied from the paper (at most 5 hops, arc-disjoint).
/// d = 2: not in the paper. The code x1 + 2x2 ≡ 0 (mod 5) of a 5x5 torus is
/// {0, ±(1,2), ±(2,-1)}, so M = [(1,2) (2,-1)] gives B1 + M·B1 = Z_5^2 in
/// one round; of the minimal dipaths, "x2 first" for (1,2) and "x1 first"
/// for (2,-1) are arc-disjoint (3 hops), found by exhausting the orders and
/// checked by the simulator.
/// d = 1: the code 3Z leaves nothing to gossip locally (B1 = Z_3).
const std::vector<std::vector<Segments>>& local_rounds(int d) {
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

int longest(const std::vector<Segments>& round) {
  int best = 0;
  for (const auto& path : round) {
    int len = 0;
    for (const auto& seg : path) len += std::abs(seg.second);
    best = std::max(best, len);
  }
  return best;
}

bool divisible(const std::vector<int>& m, int q) {
  bool all_one = true;
  for (int x : m) {
    if (x % q) return false;
    all_one = all_one && x == 1;
  }
  return !all_one;
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
  if (divisible(m, q)) {
    std::vector<int> sub(m);
    for (int& x : sub) x /= q;
    count(sub, d, f * q, split, rounds, hops);
    *rounds += 2 + (d - 1) + (split ? 1 : 0);
    *hops += (split ? 3 : 2) * f;
    for (const auto& round : local_rounds(d)) *hops += f * longest(round);
    return;
  }
  for (int x : m) {
    *rounds += x / 2;
    *hops += f * (x / 2);
  }
}

class Generator {
 public:
  /// With `split`, each broadcast is §6's two coloured rounds.
  Generator(const Torus& t, const std::vector<int>& axes, bool split, GossipBuilder& b)
      : t_(t), axes_(axes), d_(static_cast<int>(axes.size())), q_(2 * d_ + 1), b_(b) {
    if (!split) return;
    // The pieces m_0 .. m_{q-1} of §6.1: block k belongs to piece c(k), the
    // code weight of rank k's own coordinates. Any partition that all code
    // nodes share would do; this one cuts every holding into q equal pieces,
    // since a holding is a union of balls x + B1, whose q ranks have q
    // distinct weights (Lemma 6.2).
    pieces_.assign(static_cast<std::size_t>(q_), b.mask());
    for (Rank k = 0; k < t.size(); ++k) {
      const std::vector<int> c = t.coords(k);
      long long w = 0;
      for (int j = 0; j < d_; ++j) w += (j + 1) * static_cast<long long>(c[static_cast<std::size_t>(axes[static_cast<std::size_t>(j)])]);
      pieces_[static_cast<std::size_t>(w % q_)][static_cast<std::size_t>(k / 64)] |= 1ull << (k % 64);
    }
  }

  /// Gossip on the sub-tori {o + f·y : y in Z_m} for every origin o, all at once.
  void gossip(const std::vector<std::vector<long long>>& origins, long long f, const std::vector<int>& m) {
    if (!divisible(m, q_)) {
      rings(origins, f, m);
      return;
    }
    std::vector<std::vector<int>> grid = points(m);
    // Concentration: a node whose code weight is r != 0 is the code node
    // plus e_(r-1) (r <= d) or minus e_(q-r-1): it calls that code node.
    b_.next_round();
    for (const auto& o : origins)
      for (const auto& y : grid) {
        const int r = weight(y);
        if (r == 0) continue;
        const bool back = r <= d_;
        b_.call(rank(o, f, y), straight(back ? r - 1 : q_ - r - 1, back ? -1 : 1, f));
      }
    // The families: code nodes congruent mod q form a sub-torus dilated by
    // f·q (Lemma 5.16); each gossips recursively, all in the same rounds.
    std::vector<std::vector<long long>> families;
    for (const auto& o : origins)
      for (const auto& c : points(std::vector<int>(static_cast<std::size_t>(d_), q_)))
        if (weight(c) == 0) {
          std::vector<long long> origin(o);
          for (int j = 0; j < d_; ++j) origin[static_cast<std::size_t>(j)] += f * c[static_cast<std::size_t>(j)];
          families.push_back(std::move(origin));
        }
    std::vector<int> sub(m);
    for (int& x : sub) x /= q_;
    gossip(families, f * q_, sub);
    // Local gossip among the code nodes: x -> x ± M^k e_i (Delmas & Pérennes §5.1.1 step 2).
    for (const auto& round : local_rounds(d_)) {
      b_.next_round();
      for (const auto& o : origins)
        for (const auto& y : grid)
          if (weight(y) == 0)
            for (const auto& path : round)
              for (int sign : {1, -1}) b_.call(rank(o, f, y), route(path, sign, f));
    }
    if (pieces_.empty()) {
      // Final broadcast: every code node to its 2d neighbours.
      b_.next_round();
      for (const auto& o : origins)
        for (const auto& y : grid)
          if (weight(y) == 0)
            for (int j = 0; j < d_; ++j)
              for (int sign : {1, -1}) b_.call(rank(o, f, y), straight(j, sign, f));
      return;
    }
    // Delmas & Pérennes §6.1, the broadcast for large messages in two rounds. 3-a:
    // each code node sends its neighbour y only the piece m_c(y). 3-b: every
    // node that is not in the code passes that piece on to its 2d
    // neighbours, and each code node sends m_0 to its own. A node and its 2d
    // neighbours have all q weights (Lemma 6.2), so every node then holds
    // all q pieces; each link carries a 1/q piece instead of everything.
    b_.next_round();
    for (const auto& o : origins)
      for (const auto& y : grid)
        if (weight(y) == 0)
          for (int j = 0; j < d_; ++j)
            for (int sign : {1, -1}) {
              std::vector<int> z(y);
              z[static_cast<std::size_t>(j)] += sign;
              b_.call(rank(o, f, y), straight(j, sign, f), &pieces_[static_cast<std::size_t>(weight(z))]);
            }
    b_.next_round();
    for (const auto& o : origins)
      for (const auto& y : grid)
        for (int j = 0; j < d_; ++j)
          for (int sign : {1, -1})
            b_.call(rank(o, f, y), straight(j, sign, f), &pieces_[static_cast<std::size_t>(weight(y))]);
  }

 private:
  /// Bidirectional rings along each axis in turn (Juurlink, Rao & Sibeyn, approach 1);
  /// the builder sends each rank only what its neighbour lacks, so step k
  /// carries the blocks from k-1 steps away.
  void rings(const std::vector<std::vector<long long>>& origins, long long f, const std::vector<int>& m) {
    const auto grid = points(m);
    for (int j = 0; j < d_; ++j)
      for (int step = 0; step < m[static_cast<std::size_t>(j)] / 2; ++step) {
        b_.next_round();
        for (const auto& o : origins)
          for (const auto& y : grid)
            for (int sign : {1, -1}) b_.call(rank(o, f, y), straight(j, sign, f));
      }
  }

  int weight(const std::vector<int>& y) const {
    long long w = 0;
    for (int j = 0; j < d_; ++j) w += (j + 1) * static_cast<long long>(y[static_cast<std::size_t>(j)]);
    return static_cast<int>(((w % q_) + q_) % q_);
  }

  static std::vector<std::vector<int>> points(const std::vector<int>& m) {
    std::vector<std::vector<int>> out;
    std::vector<int> y(m.size(), 0);
    while (true) {
      out.push_back(y);
      std::size_t j = 0;
      while (j < m.size() && ++y[j] == m[j]) y[j++] = 0;
      if (j == m.size()) return out;
    }
  }

  Rank rank(const std::vector<long long>& o, long long f, const std::vector<int>& y) const {
    std::vector<int> c(static_cast<std::size_t>(t_.ndims()), 0);
    for (int j = 0; j < d_; ++j) {
      const int a = axes_[static_cast<std::size_t>(j)];
      const long long n = t_.dim(a);
      c[static_cast<std::size_t>(a)] = static_cast<int>(((o[static_cast<std::size_t>(j)] + f * y[static_cast<std::size_t>(j)]) % n + n) % n);
    }
    return t_.rank(c);
  }

  std::vector<Port> straight(int j, int sign, long long f) const {
    return std::vector<Port>(static_cast<std::size_t>(f), make_port(axes_[static_cast<std::size_t>(j)], sign > 0));
  }

  std::vector<Port> route(const Segments& path, int sign, long long f) const {
    std::vector<Port> out;
    for (const auto& seg : path) {
      const int len = seg.second * sign;
      const Port p = make_port(axes_[static_cast<std::size_t>(seg.first)], len > 0);
      out.insert(out.end(), static_cast<std::size_t>(std::abs(len) * f), p);
    }
    return out;
  }

  const Torus& t_;
  const std::vector<int>& axes_;
  int d_, q_;
  GossipBuilder& b_;
  std::vector<std::vector<std::uint64_t>> pieces_;  ///< §6's q pieces as block masks; empty: no split
};

}  // namespace

std::string LeeCodeSchedule::shape_not_applicable(const Torus& torus, bool large) {
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

std::string LeeCodeSchedule::not_applicable(const Torus& torus, bool large) {
  if (std::string why = shape_not_applicable(torus, large); !why.empty()) return why;
  if (torus.size() > kMaxRanks)
    return "keeps its calls' block ranges: at most " + std::to_string(kMaxRanks) +
           " ranks (tg-plan checks up to " + std::to_string(kMaxStreamedRanks) + " without keeping them)";
  return {};
}

std::string LeeCodeSchedule::not_streamable(const Torus& torus, bool large) {
  if (std::string why = shape_not_applicable(torus, large); !why.empty()) return why;
  if (torus.size() > kMaxStreamedRanks)
    return "generates its calls with P x P bits: at most " + std::to_string(kMaxStreamedRanks) + " ranks";
  return {};
}

LeeCodeSchedule::Streamed LeeCodeSchedule::generate(const Torus& torus, bool large, GossipBuilder& b) {
  const std::vector<int> axes = torus.active_axes();
  const int d = static_cast<int>(axes.size());
  const int q = 2 * d + 1;
  std::vector<int> m;
  for (int a : axes) m.push_back(torus.dim(a));
  Streamed out;
  count(m, d, 1, large, &out.rounds, &out.hops);
  Generator(torus, axes, large, b).gossip({std::vector<long long>(static_cast<std::size_t>(d), 0)}, 1, m);
  const char* code = d == 3 ? "x1 + 2x2 + 3x3 ≡ 0 (mod 7)" : d == 2 ? "x1 + 2x2 ≡ 0 (mod 5)" : "x1 ≡ 0 (mod 3)";
  int levels = 0;
  for (std::vector<int> x = m; divisible(x, q); ++levels)
    for (int& v : x) v /= q;
  out.construction = std::string("perfect Lee code ") + code + ", " + std::to_string(levels) + " level" +
                     (levels == 1 ? "" : "s") + " of concentration, " + std::to_string(d - 1) + " local gossip round" +
                     (d == 2 ? "" : "s") + " and broadcast" +
                     (large ? std::string(" in two rounds of ") + std::to_string(q) + " coloured pieces (§6)" : "");
  return out;
}

LeeCodeSchedule::Streamed LeeCodeSchedule::stream(const Torus& torus, bool large, const GossipBuilder::Sink& sink) {
  if (std::string why = not_streamable(torus, large); !why.empty())
    throw std::invalid_argument(std::string(large ? "lee-code-large" : "lee-code") + ": " + why);
  GossipBuilder b(torus.size(), [&torus](Rank r, Port p) { return torus.neighbor(r, p); });
  b.stream_to(sink);
  Streamed out = generate(torus, large, b);
  b.finish();
  return out;
}

LeeCodeSchedule::LeeCodeSchedule(const Torus& torus, bool large)
    : ExplicitSchedule(torus), large_(large) {
  if (std::string why = not_applicable(torus, large); !why.empty())
    throw std::invalid_argument(std::string(name()) + ": " + why);
  GossipBuilder b(torus.size(), [&torus](Rank r, Port p) { return torus.neighbor(r, p); });
  Streamed claims = generate(torus, large, b);
  set_calls(b.finish());
  rounds_ = claims.rounds;
  hops_ = claims.hops;
  construction_ = std::move(claims.construction);
}

}  // namespace torusgather
