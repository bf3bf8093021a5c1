// SPDX-License-Identifier: BSD-3-Clause
// TORUSGATHER_VERBOSE's line of what runs: one per communicator, entry
// point, request and outcome.
#pragma once

#include <string>

#include "api/plan.hpp"

namespace torusgather {

/// Rank 0 says, once per plan, entry point (`call`: "allgather",
/// "allgatherv", "allgather_init"), request and outcome, what runs and why:
///   torusgather: allgather on a 4x4 torus (16 ranks): dim-rings (2,halves) -- measuring 1 of 48
/// largest_block >= 0 adds ", largest block N B" (allgatherv).
void report_choice(Plan& plan, const char* call, const std::string& requested, const Schedule* schedule,
                   const std::string& chosen, const std::string& note, long long largest_block = -1);

}  // namespace torusgather
