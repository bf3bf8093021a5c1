// SPDX-License-Identifier: BSD-3-Clause
// MPI error codes at the library's edge: raised through the communicator's
// error handler, agreed across ranks, and never a C++ exception across the C ABI.
#pragma once

#include <mpi.h>

#include <exception>
#include <string>

namespace torusgather {

/// Raises err through comm's error handler, as MPI_Allgather would, and
/// returns it (reached only when the handler returns).
int raise(MPI_Comm comm, int err);

/// The MPI error class of an exception caught at the library's edge, said
/// on stderr.
int error_of(std::exception_ptr e, const char* doing);

/// A test hook: TORUSGATHER_TEST_FAULT=SITE[:RANK] makes SITE ("profile",
/// "build") run out of memory, on RANK only if given.
void inject_fault(const char* site, int rank);

/// Collective: an error on any rank becomes an error on every rank (the
/// rank's own, else the largest class seen), so no rank waits on one that
/// gave up.
int agree(MPI_Comm comm, int err);

/// The edge of the C ABI: runs `body`, and turns an exception that escaped
/// it into an MPI error class, raised through comm's handler if `handle`.
template <class Body>
inline int guarded(bool handle, MPI_Comm comm, const char* routine, Body&& body) noexcept {
  try {
    return body();
  } catch (...) {
    const int err = error_of(std::current_exception(), routine);
    if (!handle) return err;
    try {
      return raise(comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm, err);
    } catch (...) {  // a C++ error handler's exception stops here too
      return err;
    }
  }
}

}  // namespace torusgather
