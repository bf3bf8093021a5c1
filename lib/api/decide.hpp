// SPDX-License-Identifier: BSD-3-Clause
// What runs for a call: a forced algorithm, or auto's decision from
// TORUSGATHER_TUNE, the tuning file, its timed trials or the cost model.
#pragma once

#include <string>

#include "api/plan.hpp"

namespace torusgather {

/// choose(): the call is not one of auto's timed trials.
constexpr long kNoTrial = -1;

/// What runs for `requested` with blocks of `block_bytes`: its schedule, or
/// nullptr for the vendor's allgather; *chosen names it, *note says why it
/// differs from the request. A forced algorithm that declines the shape
/// falls back to dim-rings. *trial_class (if given) is the size class of a
/// timed trial call, else kNoTrial. Collective.
int choose(Plan& plan, const std::string& requested, long long block_bytes, const Schedule** schedule,
           std::string* chosen, std::string* note, long* trial_class);

/// The start of a timed trial call: the ranks start together.
int trial_start(const Plan& plan, double* t0);

/// Records a trial call's time; collective on the class's last trial call,
/// which decides.
int record_trial(Plan& plan, long cls, double seconds);

}  // namespace torusgather
