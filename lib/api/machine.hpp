// SPDX-License-Identifier: BSD-3-Clause
// The plan's calibrated machine and software costs: measured once per group
// of ranks and cached process-wide.
#pragma once

#include "api/plan.hpp"
#include "model/cost.hpp"

namespace torusgather {

/// The plan's machine (α, β, δ, overhead) and software costs, calibrated on
/// first need, or taken from the process's cache for the same group of
/// ranks. Collective on the plan's communicator.
int machine_of(Plan& plan, const Machine** m);

}  // namespace torusgather
