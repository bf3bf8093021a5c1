// SPDX-License-Identifier: BSD-3-Clause
// auto's measured decisions, shared by every communicator of the process
// over the same ranks, torus and node axis: a program that duplicates its
// communicators (as PETSc does) times each size class once.
#pragma once

#include "api/plan.hpp"
#include "model/pick.hpp"

namespace torusgather {

/// Takes size class `cls`'s decision from another communicator of the same
/// ranks and torus into plan.autos.measured, where every rank holds the
/// same one. Collective (one allreduce); the caller asks once per plan and
/// class.
int adopt_shared_decision(Plan& plan, long cls);

/// Offers size class `cls`'s decision to the process's other communicators
/// (the first decision for a key stays). Local.
void share_decision(Plan& plan, long cls, const Pick& winner);

}  // namespace torusgather
