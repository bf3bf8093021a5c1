// SPDX-License-Identifier: BSD-3-Clause
// auto's whole policy, without MPI: for a block size, TORUSGATHER_TUNE, then
// (where a torus is known) the tuning file, a size class measured before,
// the vendor while auto waits to learn, a timed trial, or the cost model's
// ranking. The MPI layer keeps the state, supplies the predictions (a
// collective step), executes the decision and reports it.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "model/pick.hpp"
#include "model/selector.hpp"
#include "model/trials.hpp"
#include "model/tune.hpp"

namespace torusgather {

/// The call is not one of auto's timed trials.
constexpr long kNoTrial = -1;

/// auto's size classes: floor(log2 bytes).
long size_class(long long block_bytes);

/// A size class's timed trial: the candidates (the vendor last), this
/// rank's time of each call so far (they take turns: trial_candidate()),
/// and the slowest rank's, agreed after each whole round.
struct Trial {
  std::vector<Pick> picks;
  std::vector<double> seconds;
  std::vector<double> slowest;  ///< whole rounds only; round 0 (untimed) as zeros
  int per_candidate = 0;  ///< the most timed calls per candidate, besides an untimed first
  bool early_win = true;  ///< a challenger may win before the last round (decide_trial)
  std::size_t calls() const { return picks.size() * static_cast<std::size_t>(per_candidate + 1); }
};

/// A TORUSGATHER_TUNING_FILE line that applies: blocks of [lo, hi] bytes.
struct TuningLine {
  long long lo = 0, hi = 0;
  Pick pick;
};

/// auto's state on one plan, kept for the plan's life.
struct AutoState {
  std::vector<TuningLine> tuning;              ///< the tuning file's lines for this torus
  std::map<long, Pick> measured;               ///< size class -> the winner of its trial
  std::map<long, Trial> trials;                ///< size classes being measured
  std::map<long long, std::vector<Pick>> ranked;  ///< block bytes -> the model's ranking (bounded)
  /// Size classes whose decision was looked for among the process's other
  /// communicators of the same ranks and torus (once each).
  std::set<long> asked_elsewhere;
};

/// What auto knows besides its state, from the MPI layer.
struct AutoInputs {
  const std::vector<TuneRule>* tune = nullptr;  ///< TORUSGATHER_TUNE's ranges
  bool torus_known = true;
  std::string no_torus;        ///< why none is known
  bool may_measure = false;    ///< this call may be a timed trial
  /// auto may calibrate and measure (false: it waits, handing calls to the
  /// vendor, until the program has spent enough time in allgathers).
  bool learning_allowed = true;
  /// Timed calls per candidate for a size class (0: the model alone).
  std::function<int(long cls)> trials_per_candidate;
  /// Whether the model's predictions may leave a candidate out of a trial
  /// (false where the calibration was rejected and the model has defaults;
  /// asked after predict).
  std::function<bool()> prior_trusted;
  /// How many algorithms a trial times against the vendor (asked after predict).
  std::function<std::size_t()> trial_algorithms;
  /// The model's rows for the block size and the fastest (predict_all).
  std::function<int(std::vector<Candidate>* rows, int* best)> predict;
};

struct AutoDecision {
  /// What runs, in order: where one declines the shape, the next.
  std::vector<Pick> ranked;
  std::string note;          ///< why, for the verbose report ("" for the model)
  long trial_class = kNoTrial;
  bool waiting = false;      ///< the vendor runs while auto waits to learn
  /// The model's rows where this call made them (the report prints them once).
  std::vector<Candidate> table;
  int best = -1;
};

/// auto's decision for blocks of `block_bytes`. 0, or the error of
/// in.predict.
int decide_auto(AutoState& state, const AutoInputs& in, long long block_bytes, AutoDecision* out);

/// A forced pick and the algorithms its registry entry falls back to, down
/// to kUniversal.
std::vector<Pick> fallback_chain(Pick pick);

/// The end of size class `cls`'s trial, from every call's slowest rank's
/// time: the winner (also in state.measured) and the figures it was chosen by.
struct TrialResult {
  Pick winner;
  std::string times;   ///< "dim-rings 2.10 us, vendor 2.50 us"
  std::string lead;    ///< by how much: "dim-rings's median 1.22x the vendor's", or ""
  std::string rounds;  ///< the fastest challenger's paired rounds against the vendor, or ""
  std::string rule;    ///< what settled it (trials.hpp)
  int timed_rounds = 0;  ///< rounds run (calls per candidate)
  int per_candidate = 0;  ///< the most there could have been
};
TrialResult finish_trial(AutoState& state, long cls, const TrialDecision& d);

}  // namespace torusgather
