// SPDX-License-Identifier: BSD-3-Clause
// What runs for a call: a forced algorithm (or the next of its family where
// it declines the shape), or what auto's policy (lib/model/auto_policy.hpp)
// decides; and the bookkeeping of auto's timed trial calls.
#pragma once

#include <string>

#include "api/plan.hpp"
#include "model/pick.hpp"

namespace torusgather {

/// Why a decision is asked for: a call (which may be one of auto's timed
/// trials, or wait to learn), a query (TG_Algorithm_for, TG_Predicted_time:
/// says what a call would run, measures nothing), or a persistent request
/// (declares repeated use: never waits).
enum class Purpose { call, query, persistent };

/// What runs for a call, and why.
struct Choice {
  const Schedule* schedule = nullptr;  ///< nullptr: the vendor's allgather
  Pick pick = Pick::the_vendor();      ///< what runs: the vendor's, or the schedule's algorithm
  std::string note;                    ///< why it differs from the request
  long trial_class = kNoTrial;         ///< a timed trial call's size class
  bool waiting = false;                ///< auto hands it to the vendor while waiting to learn
};

/// What runs for `requested` ("auto", "vendor" or a registered name) with
/// blocks of `block_bytes`. Collective (calibration, profiles, the
/// agreement on a build and on auto's wait are made on first need).
int choose(Plan& plan, const std::string& requested, long long block_bytes, Purpose purpose, Choice* out);

/// The start of a timed trial call: the ranks start together, so that a
/// candidate's time is its own and not the skew the previous one left.
int trial_start(const Plan& plan, double* t0);

/// Records a trial call's time on this rank. On the class's last trial call
/// (collective) the ranks agree on every call's slowest rank, the policy
/// decides, and rank 0 reports it and appends it to the tuning file.
int record_trial(Plan& plan, long cls, double seconds);

}  // namespace torusgather
