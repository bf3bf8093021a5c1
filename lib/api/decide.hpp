// SPDX-License-Identifier: BSD-3-Clause
// What runs for a call: a forced algorithm (or the next of its family where
// it declines the shape), or what auto's policy (lib/model/auto_policy.hpp)
// decides; and the bookkeeping of auto's timed trial calls.
#pragma once

#include <string>

#include "api/plan.hpp"

namespace torusgather {

/// What runs for `requested` ("auto", "vendor" or a registered name) with
/// blocks of `block_bytes`: its schedule, or nullptr for the vendor's
/// allgather; *chosen names it, *note says why it differs from the request.
/// may_measure: the call may be one of auto's timed trials; then
/// *trial_class is its size class, else kNoTrial. Collective (calibration,
/// profiles and the agreement on a build are made on first need).
int choose(Plan& plan, const std::string& requested, long long block_bytes, bool may_measure,
           const Schedule** schedule, std::string* chosen, std::string* note, long* trial_class);

/// The start of a timed trial call: the ranks start together, so that a
/// candidate's time is its own and not the skew the previous one left.
int trial_start(const Plan& plan, double* t0);

/// Records a trial call's time on this rank. On the class's last trial call
/// (collective) the ranks agree on every call's slowest rank, the policy
/// decides, and rank 0 reports it and appends it to the tuning file.
int record_trial(Plan& plan, long cls, double seconds);

}  // namespace torusgather
