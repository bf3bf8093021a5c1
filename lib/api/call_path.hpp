// SPDX-License-Identifier: BSD-3-Clause
// A decided call: the own block copied, the schedule run on the user's
// buffer (or on a scratch buffer in torus order), or the vendor's allgather.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "api/plan.hpp"

namespace torusgather {

/// Whether a call repeats the arguments (buffers aside) that memo m holds
/// the decisions of; `algorithm` nullptr: TORUSGATHER_ALGORITHM's (no name compared).
bool repeats(const CallMemo& m, const char* algorithm, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
             int recvcount, MPI_Datatype recvtype);

/// Copies this rank's block into the slot at `to`: from sendbuf, or, in
/// place, from `in_place_from`.
int copy_own(MPI_Comm comm, int rank, const CallMemo& call, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
             const char* in_place_from, char* to);

/// Bytes of a scratch buffer of p blocks of the call's receive type.
std::size_t scratch_bytes(long long p, const CallMemo& call);

/// The blocks of a torus-ordered scratch buffer (`base`) to their owners'
/// slots of the user's buffer.
int copy_out(MPI_Comm comm, int rank, const std::vector<int>& user_rank, const CallMemo& call, const char* base,
             char* user);

/// A decided call: the vendor's allgather, or the own block copied and the
/// schedule run; errors raised through comm's handler if `handle`.
int run_decided(bool handle, const Plan& plan, const CallMemo& call, const void* sendbuf, int sendcount,
                MPI_Datatype sendtype, void* recvbuf, MPI_Comm comm);

/// A call whose arguments repeat memo m's: only the checks that depend on
/// the buffers are left.
int run_repeated(bool handle, const Plan& plan, const CallMemo& m, const void* sendbuf, int sendcount,
                 MPI_Datatype sendtype, void* recvbuf, MPI_Comm comm);

/// The decisions of a checked call (its layouts already in *call).
void fill_memo(CallMemo* call, const std::string& requested, const void* sendbuf, int sendcount,
               MPI_Datatype sendtype, int recvcount, MPI_Datatype recvtype, const Schedule* schedule);

}  // namespace torusgather
