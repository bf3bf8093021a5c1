// SPDX-License-Identifier: BSD-3-Clause
// The MPI executor (layer 4 of docs/design.md): runs a verified schedule.
#pragma once

#include <mpi.h>

#include "schedule/schedule.hpp"

namespace torusgather {

/// Runs `schedule` on `comm`, whose rank r is torus rank r, and which no one
/// else sends on (a private duplicate). `recvbuf` already holds this rank's
/// own block in its slot. Per round: receives go straight into the slots of
/// recvbuf (relay receives, copies of blocks held, into scratch) and sends
/// come straight from them (zero copy); a piece of a block
/// is cut by element count, a set of blocks is a nested vector datatype.
/// Returns an MPI error code.
int execute(const Schedule& schedule, MPI_Comm comm, void* recvbuf, int recvcount, MPI_Datatype recvtype);

}  // namespace torusgather
