// SPDX-License-Identifier: BSD-3-Clause
// auto's timed trials (docs/usage.md, "auto that measures"): the order the
// candidates take turns in, and the decision from their times. No MPI: the
// MPI layer times the calls and agrees on each call's slowest rank.
#pragma once

#include <cstddef>
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

struct TrialDecision {
  std::size_t winner = 0;       ///< index into the candidates
  std::size_t fastest = 0;      ///< the lowest median (the winner unless the vendor keeps the call)
  std::vector<double> median;   ///< per candidate, over its timed calls
  int wins = 0, needed = 0;     ///< the fastest's wins against the vendor, and wins_needed
};

/// The decision from the times of every trial call (seconds, call order;
/// the first n calls untimed), the vendor being the last of n candidates.
/// The candidate with the lowest median wins if it is the vendor, or if it
/// beats the vendor's median by the factor `margin` and is faster than the
/// vendor in wins_needed of the rounds (one call of each candidate), since
/// the promise is never to be slower than the vendor.
TrialDecision decide_trial(const std::vector<double>& seconds, std::size_t n, double margin);

}  // namespace torusgather
