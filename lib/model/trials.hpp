// SPDX-License-Identifier: BSD-3-Clause
// auto's timed trials (docs/usage.md, "auto that measures"): the order the
// candidates take turns in, and the decision from their times, round by
// round, so that a trial ends as soon as one side is clearly ahead. No MPI:
// the MPI layer times the calls and agrees on each call's slowest rank.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace torusgather {

/// Which of n candidates trial call `call` runs: rounds of n calls in an
/// order that turns (A B C, C B A, B C A, A C B, C A B, B A C, ...), so that
/// each candidate stands in every place of a round equally often. Round 0
/// is untimed.
std::size_t trial_candidate(std::size_t call, std::size_t n);

/// The fewest wins in `rounds` paired rounds that a fair coin reaches with
/// probability at most 5 % (5 of 5, 12 of 15); every round where no count
/// does (fewer than 5 rounds).
int wins_needed(int rounds);

/// A trial's winner must beat the vendor's median by 5 %: the promise is
/// never to be slower than it.
constexpr double kVendorMargin = 0.95;

/// Trials of at least this many rounds may end early on a challenger's
/// clear win (below, the sign test's last round alone decides for one).
constexpr int kEarlyWinRounds = 10;

struct TrialDecision {
  bool settled = false;         ///< a rule decided, or the last round has run
  std::string rule;             ///< which rule settled it
  std::size_t winner = 0;       ///< index into the candidates
  std::size_t fastest = 0;      ///< the lowest median (the winner unless the vendor keeps the call)
  std::vector<double> median;   ///< per candidate, over its timed calls
  int rounds = 0;               ///< timed rounds so far
  int wins = 0, needed = 0;     ///< the fastest's wins against the vendor, and wins_needed(max_rounds)
};

/// The decision after the rounds so far: `seconds` holds every call's time
/// on its slowest rank, in call order, the first n untimed, whole rounds
/// only; the vendor is the last of n candidates; a trial has at most
/// max_rounds timed rounds. It settles, in this order:
///  - the vendor, from 3 rounds, where each of its calls was faster than
///    every call of every challenger;
///  - a challenger (where max_rounds >= kEarlyWinRounds and early_win) whose median
///    beats the vendor's by the factor `margin`, from 4 rounds where each
///    of its calls was faster than every vendor call (a chance of 1 in 70
///    for two alike), or from 6 rounds where it was the faster in every
///    round (1 in 64);
///  - the vendor, where no challenger can reach wins_needed(max_rounds);
///  - after max_rounds: the lowest median, where it is the vendor's or
///    beats it by `margin` and won wins_needed(max_rounds) rounds (1.8 %
///    at 12 of 15), else the vendor. The promise is never to be slower than
///    the vendor: a challenger wins by chance at most 4.8 % of the time.
/// early_win false: no challenger wins before the last round (a machine
/// too loaded to calibrate, whose call times come in scheduler ticks).
TrialDecision decide_trial(const std::vector<double>& seconds, std::size_t n, int max_rounds, double margin,
                           bool early_win = true);

}  // namespace torusgather
