// SPDX-License-Identifier: BSD-3-Clause
// A communicator's ranks as a key of the process's caches: the same key for
// every communicator over the same ranks of MPI_COMM_WORLD in the same order.
#pragma once

#include <string>

#include "api/plan.hpp"

namespace torusgather {

/// The plan's ranks as their MPI_COMM_WORLD ranks in torus order, hashed
/// (FNV-1a, with the count): computed once per plan, O(P). Empty where a
/// rank is outside this process's MPI_COMM_WORLD (dynamic processes): each
/// member sees some, so all leave the caches alone alike. Local.
const std::string& group_key(Plan& plan);

}  // namespace torusgather
