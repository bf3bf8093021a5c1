// SPDX-License-Identifier: BSD-3-Clause
// A decided call: the own block copied, the schedule run on the user's
// buffer (or on a scratch buffer in torus order), or the vendor's allgather.
#pragma once

#include <mpi.h>

#include <cstring>
#include <string>
#include <vector>

#include "api/plan.hpp"
#include "api/validate.hpp"

namespace torusgather {

/// Whether a call repeats the arguments (buffers aside) that memo m holds
/// the decisions of; `algorithm` nullptr: TORUSGATHER_ALGORITHM's (no name
/// compared). Inline, the cheapest fields first: every repeated call asks.
inline bool repeats(const CallMemo& m, const char* algorithm, const void* sendbuf, int sendcount,
                    MPI_Datatype sendtype, int recvcount, MPI_Datatype recvtype) {
  const bool in_place = sendbuf == MPI_IN_PLACE;
  return m.valid && m.recvcount == recvcount && m.recvtype == recvtype && m.in_place == in_place &&
         (in_place || (m.sendcount == sendcount && m.sendtype == sendtype)) &&
         (algorithm ? !m.from_environment && std::strcmp(m.requested.c_str(), algorithm) == 0 : m.from_environment);
}

/// The memo whose arguments a call repeats (looked at from the last hit),
/// or nullptr.
inline const CallMemo* repeated_call(const Plan& plan, const char* algorithm, const void* sendbuf, int sendcount,
                                     MPI_Datatype sendtype, int recvcount, MPI_Datatype recvtype) {
  CallCache& cache = plan.calls;
  for (std::size_t i = 0, k = cache.last_hit; i < CallCache::kMemos; ++i, k = (k + 1) % CallCache::kMemos)
    if (repeats(cache.memos[k], algorithm, sendbuf, sendcount, sendtype, recvcount, recvtype)) {
      cache.last_hit = k;
      return &cache.memos[k];
    }
  return nullptr;
}

/// Whether a repeated call's buffers pass the checks that depend on them
/// (else MPI_ERR_BUFFER).
inline bool buffers_fit(const Plan& plan, const CallMemo& m, const void* sendbuf, const void* recvbuf) {
  if (null_buffer(recvbuf, m.recvcount, m.recv)) return false;
  return m.in_place || !(null_buffer(sendbuf, m.sendcount, m.send) ||
                         overlap(sendbuf, m.sendcount, m.send, recvbuf,
                                 static_cast<long long>(m.recvcount) * plan.size, m.recv));
}

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
