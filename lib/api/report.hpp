// SPDX-License-Identifier: BSD-3-Clause
// What TORUSGATHER_VERBOSE says: what runs (once per communicator, entry
// point, request and outcome), the model's table, and a trial's outcome;
// and, at any verbosity, a variant variable that does not fit the torus.
#pragma once

#include <string>
#include <vector>

#include "api/decide.hpp"
#include "api/plan.hpp"
#include "model/auto_policy.hpp"
#include "model/selector.hpp"

namespace torusgather {

/// Rank 0 says, once per plan, entry point (`call`: "allgather",
/// "allgatherv", "allgather_init"), request and outcome, what runs and why:
///   torusgather: allgather on a 4x4 torus (16 ranks): dim-rings (2,halves) -- measuring 1 of at most 48
/// A timed trial says its first call only, and auto's wait once per torus
/// in the process (TORUSGATHER_VERBOSE=2: every call). largest_block >= 0
/// adds ", largest block N B" (allgatherv).
void report_choice(Plan& plan, const char* call, const std::string& requested, const Choice& c,
                   long long largest_block = -1);

/// Rank 0 prints the model's table once per torus and size class in the
/// process (TORUSGATHER_VERBOSE=2: once per plan and size class).
void report_predictions(Plan& plan, long long block_bytes, const std::vector<Candidate>& candidates, int best);

/// Rank 0 says what a size class's trial measured and what runs from now on.
void report_trial(const Plan& plan, long cls, const TrialResult& r);

/// Rank 0 warns, whatever TORUSGATHER_VERBOSE says, once per variable and
/// torus in the process, when a variable that fixes an algorithm's variant
/// (TORUSGATHER_DIM_RINGS, ...) does not fit a torus the algorithm applies
/// to: the algorithm then declines there, and the call falls back.
void warn_unfit_params(const Plan& plan);

}  // namespace torusgather
