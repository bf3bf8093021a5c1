// SPDX-License-Identifier: BSD-3-Clause
// auto's timed trials: the turning order and the decision (lib/model/trials).
#include <gtest/gtest.h>

#include <vector>

#include "model/trials.hpp"

namespace tg = torusgather;

TEST(Trials, EveryCandidateInEveryPlaceEquallyOften) {
  for (std::size_t n = 1; n <= 5; ++n) {
    // places[i][j]: how often candidate i runs j-th in a round, over 2n rounds.
    std::vector<std::vector<int>> places(n, std::vector<int>(n, 0));
    for (std::size_t call = 0; call < 2 * n * n; ++call) ++places[tg::trial_candidate(call, n)][call % n];
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) EXPECT_EQ(places[i][j], 2) << "n " << n << ", candidate " << i;
    // And every round holds every candidate once.
    for (std::size_t round = 0; round < 2 * n; ++round) {
      std::vector<int> seen(n, 0);
      for (std::size_t j = 0; j < n; ++j) ++seen[tg::trial_candidate(round * n + j, n)];
      for (int s : seen) EXPECT_EQ(s, 1);
    }
  }
  // The order turns: A B C, C B A, B C A, A C B, ...
  const std::vector<std::size_t> want = {0, 1, 2, 2, 1, 0, 1, 2, 0, 0, 2, 1};
  for (std::size_t call = 0; call < want.size(); ++call) EXPECT_EQ(tg::trial_candidate(call, 3), want[call]);
}

TEST(Trials, WinsNeededIsAOneSidedFivePercentSignTest) {
  EXPECT_EQ(tg::wins_needed(5), 5);    // 1/32 = 3.1 %
  EXPECT_EQ(tg::wins_needed(6), 6);    // 5 of 6: 10.9 %
  EXPECT_EQ(tg::wins_needed(15), 12);  // 1.8 %; 11 of 15: 5.9 %
  EXPECT_EQ(tg::wins_needed(20), 15);  // 2.1 %; 14 of 20: 5.8 %
  EXPECT_EQ(tg::wins_needed(3), 3);    // no count reaches 5 %: every round
  EXPECT_EQ(tg::wins_needed(1), 1);
}

namespace {
/// Trial calls in call order from per-candidate times per round (round 0,
/// untimed, gets 1 s each so that it would show if counted).
std::vector<double> calls_of(const std::vector<std::vector<double>>& per_round) {
  const std::size_t n = per_round.size(), rounds = per_round[0].size() + 1;
  std::vector<double> out(n * rounds);
  std::vector<std::size_t> next(n, 0);
  for (std::size_t k = 0; k < out.size(); ++k) {
    const std::size_t i = tg::trial_candidate(k, n);
    out[k] = k < n ? 1.0 : per_round[i][next[i]++];
  }
  return out;
}
}  // namespace

TEST(Trials, AClearWinnerTakesTheCall) {
  // dim-rings 10 % faster than the vendor in every one of 5 rounds.
  const auto d = tg::decide_trial(calls_of({{9, 9, 9, 9, 9}, {12, 12, 12, 12, 12}, {10, 10, 10, 10, 10}}), 3, 5, 0.95);
  EXPECT_EQ(d.winner, 0u);
  EXPECT_DOUBLE_EQ(d.median[0], 9);
  EXPECT_DOUBLE_EQ(d.median[2], 10);
  EXPECT_EQ(d.wins, 5);
  EXPECT_EQ(d.needed, 5);
}

TEST(Trials, AMedianWinWithoutEnoughRoundsStaysWithTheVendor) {
  // The challenger's median is 20 % lower, but it is faster in 3 rounds of
  // 5 only: the noise of one window, not a win.
  const auto d = tg::decide_trial(calls_of({{8, 8, 8, 20, 20}, {10, 10, 10, 10, 10}}), 2, 5, 0.95);
  EXPECT_EQ(d.fastest, 0u);
  EXPECT_DOUBLE_EQ(d.median[0], 8);
  EXPECT_EQ(d.wins, 3);
  EXPECT_EQ(d.winner, 1u);
}

TEST(Trials, AWinUnderTheMarginStaysWithTheVendor) {
  // Faster in every round, by 2 %: within the 5 % margin.
  const auto d = tg::decide_trial(calls_of({{9.8, 9.8, 9.8, 9.8, 9.8}, {10, 10, 10, 10, 10}}), 2, 5, 0.95);
  EXPECT_EQ(d.wins, 5);
  EXPECT_EQ(d.winner, 1u);
}

TEST(Trials, TheVendorFastestKeepsTheCall) {
  const auto d = tg::decide_trial(calls_of({{12, 12, 12}, {11, 11, 11}, {10, 10, 10}}), 3, 3, 0.95);
  EXPECT_TRUE(d.settled);
  EXPECT_EQ(d.winner, 2u);
  EXPECT_EQ(d.needed, 3);  // 3 rounds: every one
}

// Early ends (max_rounds 15, as for blocks under 64 KiB): a trial stops as
// soon as one side is clearly ahead, and not before.
TEST(Trials, TheVendorAheadInEveryCallSettlesAfterThreeRounds) {
  const auto two = tg::decide_trial(calls_of({{12, 12}, {11, 11}, {10, 10}}), 3, 15, 0.95);
  EXPECT_FALSE(two.settled);
  const auto three = tg::decide_trial(calls_of({{12, 12, 12}, {11, 11, 11}, {10, 10, 10}}), 3, 15, 0.95);
  EXPECT_TRUE(three.settled);
  EXPECT_EQ(three.winner, 2u);
  EXPECT_EQ(three.rounds, 3);
  // One challenger call faster than one vendor call: not clear yet.
  EXPECT_FALSE(tg::decide_trial(calls_of({{12, 9.9, 12}, {11, 11, 11}, {10, 10, 10}}), 3, 15, 0.95).settled);
}

TEST(Trials, AChallengerFasterInEveryCallSettlesAfterFourRounds) {
  const auto three = tg::decide_trial(calls_of({{5, 5, 5}, {10, 10, 10}}), 2, 15, 0.95);
  EXPECT_FALSE(three.settled);
  const auto four = tg::decide_trial(calls_of({{5, 5, 5, 5}, {10, 10, 10, 10}}), 2, 15, 0.95);
  EXPECT_TRUE(four.settled);
  EXPECT_EQ(four.winner, 0u);
  // Short trials (5 rounds, blocks from 64 KiB) take no early win: the
  // sign test of their last round decides.
  EXPECT_FALSE(tg::decide_trial(calls_of({{5, 5, 5, 5}, {10, 10, 10, 10}}), 2, 5, 0.95).settled);
  // A machine too loaded to calibrate: no early win.
  EXPECT_FALSE(tg::decide_trial(calls_of({{5, 5, 5, 5}, {10, 10, 10, 10}}), 2, 15, 0.95, false).settled);
  // Faster in every call but within the 5 % margin: no early win.
  EXPECT_FALSE(tg::decide_trial(calls_of({{9.7, 9.7, 9.7, 9.7}, {10, 10, 10, 10}}), 2, 15, 0.95).settled);
}

TEST(Trials, AChallengerFasterInEveryRoundSettlesAfterSix) {
  // Paired wins in every round, the calls overlapping (9.9 > 9.5).
  const std::vector<double> ch = {9, 9.9, 9, 9.9, 9, 9.9}, v = {9.5, 10.5, 9.5, 10.5, 9.5, 10.5};
  const auto five = tg::decide_trial(calls_of({{ch.begin(), ch.end() - 1}, {v.begin(), v.end() - 1}}), 2, 15, 0.95);
  EXPECT_FALSE(five.settled);
  const auto six = tg::decide_trial(calls_of({ch, v}), 2, 15, 0.95);
  EXPECT_TRUE(six.settled);
  EXPECT_EQ(six.winner, 0u);
  EXPECT_EQ(six.wins, 6);
}

TEST(Trials, NoChallengerThatCanStillWinEndsTheTrial) {
  // Losses in rounds 1, 3, 5 and 6: 2 wins + 9 rounds left < 12 needed.
  const std::vector<double> ch = {11, 9, 11, 9, 11, 11}, v = {10, 10, 10, 10, 10, 10};
  const auto five = tg::decide_trial(calls_of({{ch.begin(), ch.end() - 1}, {v.begin(), v.end() - 1}}), 2, 15, 0.95);
  EXPECT_FALSE(five.settled);  // 2 wins + 10 left: 12 still reachable
  const auto six = tg::decide_trial(calls_of({ch, v}), 2, 15, 0.95);
  EXPECT_TRUE(six.settled);
  EXPECT_EQ(six.winner, 1u);
}
