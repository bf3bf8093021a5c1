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
  const auto& calls = s.calls();
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
  const auto& calls = s.calls();
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

// stream() hands out exactly the calls the kept schedule stores, in order,
// so what tg-plan checks beyond kMaxRanks is the schedule that would run.
TEST(LeeCode, StreamedCallsAreTheKeptOnes) {
  for (const bool large : {false, true}) {
    const Torus t({7, 7, 14});
    const LeeCodeSchedule kept{t, large};
    std::vector<std::vector<Call>> streamed;
    const auto made = LeeCodeSchedule::stream(t, large, [&](long long round, const Call& c) {
      streamed.resize(static_cast<std::size_t>(round));
      streamed.back().push_back(c);
    });
    EXPECT_EQ(made.rounds, kept.rounds());
    EXPECT_EQ(made.hops, kept.claimed_hops_sum());
    EXPECT_EQ(made.construction, kept.construction());
    ASSERT_EQ(streamed.size(), kept.calls().size());
    for (std::size_t r = 0; r < streamed.size(); ++r) {
      ASSERT_EQ(streamed[r].size(), kept.calls()[r].size()) << r;
      for (std::size_t k = 0; k < streamed[r].size(); ++k) {
        EXPECT_EQ(streamed[r][k].from, kept.calls()[r][k].from);
        EXPECT_EQ(streamed[r][k].to, kept.calls()[r][k].to);
        EXPECT_EQ(streamed[r][k].route, kept.calls()[r][k].route);
        EXPECT_EQ(streamed[r][k].ranges, kept.calls()[r][k].ranges);
      }
    }
  }
  EXPECT_FALSE(LeeCodeSchedule::not_applicable(Torus({28, 28, 28})).empty());
  EXPECT_TRUE(LeeCodeSchedule::not_streamable(Torus({28, 28, 28})).empty());
  EXPECT_FALSE(LeeCodeSchedule::not_streamable(Torus({56, 56, 56})).empty());
  EXPECT_THROW(LeeCodeSchedule::stream(Torus({8, 8}), false, [](long long, const Call&) {}), std::invalid_argument);
}
