// SPDX-License-Identifier: BSD-3-Clause
// The checks MPI_Allgather and MPI_Allgatherv make of their arguments, and
// the datatype facts the call path needs.
#pragma once

#include <mpi.h>

#include "api/plan.hpp"

namespace torusgather {

/// The tag of a rank's copy to itself: below the MPI minimum of MPI_TAG_UB (32767).
constexpr int kSelfCopyTag = 32000;

/// Whether t is a predefined datatype (committed, never freed, so its
/// handle is stable).
bool is_named(MPI_Datatype t);

/// A null buffer is only legal as MPI_BOTTOM, with absolute addresses in
/// the type (a true lower bound other than 0).
inline bool null_buffer(const void* buf, long long count, const Layout& l) {
  return buf == nullptr && count > 0 && l.true_lb == 0;
}

/// Whether ns elements of layout ls from s and nr of layout lr from r share bytes.
inline bool overlap(const void* s, long long ns, const Layout& ls, const void* r, long long nr, const Layout& lr) {
  if (ns <= 0 || nr <= 0) return false;
  const char* s0 = static_cast<const char*>(s) + ls.true_lb;
  const char* r0 = static_cast<const char*>(r) + lr.true_lb;
  return s0 < r0 + (nr - 1) * lr.extent + lr.true_extent && r0 < s0 + (ns - 1) * ls.extent + ls.true_extent;
}

/// MPI_Allgather's checks that need the plan (committed types) or the data
/// layout; local to this rank, as in MPI libraries. *send and *recv get the
/// types' layouts.
int check_buffers(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, int size, MPI_Comm priv, Layout* send, Layout* recv);

/// The same for MPI_Allgatherv: this rank's block is recvcounts[rank], the
/// receive span runs over every non-empty block.
int check_buffers_v(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int* recvcounts,
                    const int* displs, MPI_Datatype recvtype, int size, int rank, MPI_Comm priv, Layout* send,
                    Layout* recv);

/// True if count elements of t are count*extent contiguous bytes from the buffer start.
bool is_contiguous(MPI_Datatype t);

}  // namespace torusgather
