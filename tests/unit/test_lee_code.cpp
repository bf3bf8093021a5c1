// SPDX-License-Identifier: BSD-3-Clause
// `lee-code` and `lee-code-large` (Delmas & Pérennes §5-6): rounds, hops, arc-
// disjoint dipaths.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "schedule/explicit.hpp"
#include "schedule/lee_code.hpp"
#include "simulate/simulate.hpp"
#include "schedule_checks.hpp"

using namespace torusgather;

// Delmas & Pérennes Prop. 5.8: TM(7)^3 in 4 rounds, cost 4α + 12δ + ...: the dipaths
// of rounds 2-a and 2-b have at most 5 hops and are arc-disjoint.
TEST(LeeCode, SevenCubedInFourRoundsAndTwelveHops) {
  const LeeCodeSchedule s{Torus({7, 7, 7})};
  const auto rep = step_through(s);
  EXPECT_TRUE(rep.complete) << all_errors(rep);
  EXPECT_EQ(rep.rounds, 4);
  EXPECT_EQ(rep.hops_max, 5);
  EXPECT_EQ(rep.hops_sum, 12);
  EXPECT_EQ(rep.max_link_messages_per_round, 1);  // arc-disjoint in every round
  // Round 1: the 294 non-code nodes call their code node; rounds 2-a, 2-b
  // and 3: each of the 49 code nodes makes 6 calls.
  const auto calls = calls_of_programs(s);
  ASSERT_EQ(calls.size(), 4u);
  EXPECT_EQ(calls[0].size(), 294u);
  for (int r = 1; r < 4; ++r) EXPECT_EQ(calls[static_cast<std::size_t>(r)].size(), 49u * 6);
  // Round 2-b carries 7 x 7 blocks per call, the broadcast everything the
  // neighbour lacks: all but its own block.
  EXPECT_EQ(block_count(calls[2][0].ranges), 49);
  EXPECT_EQ(block_count(calls[3][0].ranges), 342);
}

// Rounds by the recursion of §5.2 (4i on 7^i; the same shape in 2D and 1D:
// (d+1) per level), and a ring phase on sub-tori the code does not divide.
TEST(LeeCode, RoundsOnEveryShapeItAccepts) {
  struct Case {
    std::vector<int> dims;
    long long rounds;
    long long hops;
  };
  const std::vector<Case> cases = {
      {{3}, 2, 2},         {{9}, 4, 8},           {{27}, 6, 26},       {{6}, 3, 5},        {{12}, 4, 8},
      {{3, 1}, 2, 2},      {{5, 5}, 3, 5},        {{10, 10}, 5, 15},   {{25, 25}, 6, 30},  {{5, 15}, 4, 10},
      {{7, 7, 7}, 4, 12},  {{7, 7, 14}, 5, 19},   {{14, 14, 14}, 7, 33}};
  for (const auto& c : cases) {
    const Torus t(c.dims);
    SCOPED_TRACE(t.to_string());
    const LeeCodeSchedule s{t};
    EXPECT_EQ(s.rounds(), c.rounds);
    const auto rep = step_through(s);
    EXPECT_TRUE(rep.complete) << all_errors(rep);
    EXPECT_EQ(rep.rounds, c.rounds);
    EXPECT_EQ(rep.hops_sum, c.hops);
    EXPECT_EQ(rep.max_link_messages_per_round, 1);
  }
}

// Delmas & Pérennes Prop. 6.3: the large-message variant on TM(7)^3 in 5 rounds and
// 13 hops, the broadcast split into 3-a (each code node sends neighbour y
// the piece m_c(y)) and 3-b (the non-code nodes pass their piece on, the
// code nodes send m_0). The largest messages sum to 1 + 7 + 49 + 48 + 49
// blocks: the paper's 1 + 7 + 3·49 less the receiver's own block in 3-a.
TEST(LeeCode, LargeMessagesSevenCubedInFiveRounds) {
  const LeeCodeSchedule s{Torus({7, 7, 7}), true};
  EXPECT_STREQ(s.name(), "lee-code-large");
  const auto rep = step_through(s);
  EXPECT_TRUE(rep.complete) << all_errors(rep);
  EXPECT_EQ(rep.rounds, 5);
  EXPECT_EQ(rep.hops_sum, 13);
  EXPECT_EQ(rep.max_link_messages_per_round, 1);
  EXPECT_DOUBLE_EQ(rep.blocks_sum, 1 + 7 + 49 + 48 + 49);
  const auto calls = calls_of_programs(s);
  ASSERT_EQ(calls.size(), 5u);
  // 3-a: 49 code nodes x 6 neighbours, a 49-block piece less the own block.
  ASSERT_EQ(calls[3].size(), 49u * 6);
  for (const Call& c : calls[3]) {
    EXPECT_EQ(block_count(c.ranges), 48);
    EXPECT_EQ(c.route.size(), 1u);
  }
  // 3-b: every node calls its 6 neighbours except that a node outside the
  // code skips its one code neighbour, which holds everything; each call is
  // one whole piece.
  EXPECT_EQ(calls[4].size(), 343u * 6 - 294);
  for (const Call& c : calls[4]) EXPECT_EQ(block_count(c.ranges), 49);
}

// Prop. 6.4: 5i rounds and 13/9·D δ on 7^i sides; in general one round more
// per level of the recursion than lee-code, one hop of the level's dilation
// more, and far fewer blocks.
TEST(LeeCode, LargeMessagesOneRoundMorePerLevel) {
  struct Case {
    std::vector<int> dims;
    long long rounds, hops, blocks_sum, plain_blocks_sum;
  };
  const std::vector<Case> cases = {
      {{9}, 6, 12, 13, 18},          {{27}, 9, 39, 58, 81},         {{6}, 4, 6, 7, 9},
      {{12}, 5, 9, 14, 18},          {{5, 5}, 4, 6, 15, 30},        {{10, 10}, 6, 16, 75, 135},
      {{25, 25}, 8, 36, 453, 900},   {{5, 15}, 5, 11, 50, 95},      {{7, 7, 7}, 5, 13, 154, 399},
      {{7, 7, 14}, 6, 20, 315, 805}, {{14, 14, 14}, 8, 34, 1281, 3241}};
  for (const auto& c : cases) {
    const Torus t(c.dims);
    SCOPED_TRACE(t.to_string());
    const LeeCodeSchedule plain{t}, large{t, true};
    EXPECT_EQ(large.rounds(), c.rounds);
    const auto rep = step_through(large);
    EXPECT_TRUE(rep.complete) << all_errors(rep);
    EXPECT_EQ(rep.rounds, c.rounds);
    EXPECT_EQ(rep.hops_sum, c.hops);
    EXPECT_DOUBLE_EQ(rep.blocks_sum, c.blocks_sum);
    EXPECT_EQ(rep.max_link_messages_per_round, 1);
    EXPECT_DOUBLE_EQ(step_through(plain).blocks_sum, c.plain_blocks_sum);
  }
  // A ring of 3: every piece is one block, its receiver's own.
  EXPECT_FALSE(LeeCodeSchedule::not_applicable(Torus({3}), true).empty());
  EXPECT_TRUE(LeeCodeSchedule::not_applicable(Torus({3})).empty());
  EXPECT_THROW((LeeCodeSchedule{Torus({3}), true}), std::invalid_argument);
}

TEST(LeeCode, DeclinesOtherShapes) {
  for (const auto& dims : std::vector<std::vector<int>>{{4}, {7}, {4, 4}, {7, 7}, {5, 10, 3}, {5, 5, 5}, {3, 3, 3, 3}}) {
    const Torus t(dims);
    EXPECT_FALSE(LeeCodeSchedule::not_applicable(t).empty()) << t.to_string();
    EXPECT_THROW(LeeCodeSchedule{t}, std::invalid_argument);
  }
}

namespace {

using Segments = LeeCodeSchedule::Segments;

/// The construction on the whole torus at once, every call's blocks
/// derived with every rank's holdings (GossipBuilder: what the caller holds
/// and the callee lacks), as §5.1-5.2 and §6.1 describe it.
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
    if (!LeeCodeSchedule::code_divides(m, q_)) {
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
    for (const auto& round : LeeCodeSchedule::local_rounds(d_)) {
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


std::vector<std::vector<Call>> builder_calls(const Torus& t, bool large) {
  GossipBuilder b(t.size(), [&t](Rank r, Port p) { return t.neighbor(r, p); });
  const std::vector<int> axes = t.active_axes();
  std::vector<int> m;
  for (int a : axes) m.push_back(t.dim(a));
  Generator(t, axes, large, b).gossip({std::vector<long long>(axes.size(), 0)}, 1, m);
  return b.finish();
}

}  // namespace

// Each rank's program makes exactly the calls of the construction derived
// on the whole torus, round by round, on every shape of the tests above
// and with a side of 1, in both variants.
TEST(LeeCode, EachRanksProgramMakesTheConstructionsCalls) {
  int compared = 0;
  for (const auto& dims : std::vector<std::vector<int>>{{3}, {9}, {27}, {6}, {12}, {3, 1}, {5, 5}, {10, 10}, {25, 25},
                                                         {5, 15}, {15, 10}, {7, 7, 7}, {7, 7, 14}, {14, 14, 14}, {1, 7, 7, 7}})
    for (const bool large : {false, true}) {
      const Torus t(dims);
      if (!LeeCodeSchedule::not_applicable(t, large).empty()) continue;
      SCOPED_TRACE(t.to_string() + (large ? " large" : ""));
      expect_programs_make(LeeCodeSchedule(t, large), builder_calls(t, large));
      ++compared;
    }
  EXPECT_EQ(compared, 28);  // 15 shapes in both variants, less the two that decline
}

// The last level's ring, both ways, in closed form: equal, step by step, to
// a simulation of the ring in which every position passes on each position
// it holds and its neighbour neither holds nor gets earlier in the step
// (positions ascending, + before -), and delivering every position once.
TEST(LeeCode, RingCallsInClosedFormMatchTheRingSimulated) {
  for (int n = 1; n <= 40; ++n) {
    std::vector<std::vector<char>> held(n, std::vector<char>(n, 0));
    for (int p = 0; p < n; ++p) held[p][p] = 1;
    for (int step = 0; step < n / 2; ++step) {
      std::vector<std::vector<char>> coming(n, std::vector<char>(n, 0));
      for (int p = 0; p < n; ++p)
        for (int side = 0; side < 2; ++side) {
          const int to = ((p + (side == 0 ? 1 : -1)) % n + n) % n;
          std::vector<int> sent;
          for (int b = 0; b < n; ++b)
            if (held[p][b] && !held[to][b] && !coming[to][b]) {
              coming[to][b] = 1;
              sent.push_back(b);
            }
          ASSERT_LE(sent.size(), 1u) << "n " << n << " step " << step;
          EXPECT_EQ(LeeCodeSchedule::ring_call(n, step, p, side), sent.empty() ? -1 : sent[0])
              << "n " << n << " step " << step << " position " << p << " side " << side;
        }
      for (int p = 0; p < n; ++p)
        for (int b = 0; b < n; ++b) held[p][b] |= coming[p][b];
    }
    for (int p = 0; p < n; ++p)
      EXPECT_EQ(std::count(held[p].begin(), held[p].end(), 1), n) << "n " << n << " position " << p;
  }
}
