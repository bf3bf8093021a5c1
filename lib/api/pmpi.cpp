// SPDX-License-Identifier: BSD-3-Clause
// PMPI interposition:
//   LD_PRELOAD=libtorusgather_pmpi.so mpirun ... ./unmodified_program
// routes the program's MPI_Allgather and MPI_Allgatherv through torusgather. The MPI library's
// MPI_* symbols are weak aliases of its PMPI_* ones, so this library's strong
// definitions win; torusgather itself reaches the vendor through
// PMPI_Allgather, never back into this file.
#include <mpi.h>

#include <climits>
#include <vector>

#include "torusgather/torusgather.h"

extern "C" TG_API int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                             MPI_Datatype recvtype, MPI_Comm comm) {
  return TG_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

extern "C" TG_API int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                      const int* recvcounts, const int* displs, MPI_Datatype recvtype,
                                      MPI_Comm comm) {
  return TG_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
}

#if MPI_VERSION >= 4
// MPI 4 large counts. Counts that fit in an int take torusgather's path
// (negative ones included, so they get its error checks); larger ones go to
// the MPI library's own MPI_Allgather_c: torusgather's executor cuts blocks
// by int element counts.
extern "C" TG_API int MPI_Allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                               MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  auto fits = [](MPI_Count n) { return n >= INT_MIN && n <= INT_MAX; };
  if (fits(recvcount) && (sendbuf == MPI_IN_PLACE || fits(sendcount)))
    return TG_Allgather(sendbuf, sendbuf == MPI_IN_PLACE ? 0 : static_cast<int>(sendcount), sendtype, recvbuf,
                        static_cast<int>(recvcount), recvtype, comm);
  return PMPI_Allgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

// Allgatherv with large counts: torusgather's path where every count and
// displacement fits in an int (copied into int tables), else the MPI's own.
extern "C" TG_API int MPI_Allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                        const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                        MPI_Comm comm) {
  auto fits = [](long long n) { return n >= INT_MIN && n <= INT_MAX; };
  int size = 0, inter = 0;
  if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter || !recvcounts || !displs ||
      PMPI_Comm_size(comm, &size) != MPI_SUCCESS || !(sendbuf == MPI_IN_PLACE || fits(sendcount)))
    return PMPI_Allgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
  std::vector<int> counts(static_cast<std::size_t>(size)), at(static_cast<std::size_t>(size));
  for (int i = 0; i < size; ++i) {
    if (!fits(recvcounts[i]) || !fits(displs[i]))
      return PMPI_Allgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
    counts[static_cast<std::size_t>(i)] = static_cast<int>(recvcounts[i]);
    at[static_cast<std::size_t>(i)] = static_cast<int>(displs[i]);
  }
  return TG_Allgatherv(sendbuf, sendbuf == MPI_IN_PLACE ? 0 : static_cast<int>(sendcount), sendtype, recvbuf,
                       counts.data(), at.data(), recvtype, comm);
}
#endif

// Fortran (mpif.h and `use mpi`): Open MPI's Fortran bindings call
// PMPI_Allgather directly, so the Fortran entry points are interposed too,
// under every name mangling compilers use. Fortran's MPI_IN_PLACE is the
// address of a common block; Open MPI names it mpi_fortran_in_place_, MPICH
// keeps its address in MPIR_F_MPI_IN_PLACE (all weak here, so the library
// loads under either MPI).
extern "C" {
extern void* MPIR_F_MPI_IN_PLACE __attribute__((weak));
extern int mpi_fortran_in_place_ __attribute__((weak));
extern int mpi_fortran_in_place __attribute__((weak));
extern int mpi_fortran_in_place__ __attribute__((weak));
extern int MPI_FORTRAN_IN_PLACE __attribute__((weak));
}

namespace {

bool is_fortran_in_place(const void* p) {
  if (p == nullptr) return false;
  if (&MPIR_F_MPI_IN_PLACE != nullptr && MPIR_F_MPI_IN_PLACE != nullptr && p == MPIR_F_MPI_IN_PLACE) return true;
  return p == &mpi_fortran_in_place_ || p == &mpi_fortran_in_place || p == &mpi_fortran_in_place__ ||
         p == &MPI_FORTRAN_IN_PLACE;
}

void fortran_allgather(const void* sendbuf, const MPI_Fint* sendcount, const MPI_Fint* sendtype, void* recvbuf,
                       const MPI_Fint* recvcount, const MPI_Fint* recvtype, const MPI_Fint* comm, MPI_Fint* ierr) {
  const bool in_place = is_fortran_in_place(sendbuf);
  // With MPI_IN_PLACE the send count and type are ignored, whatever they hold.
  const int err = TG_Allgather(in_place ? MPI_IN_PLACE : sendbuf, in_place ? 0 : *sendcount,
                               in_place ? MPI_DATATYPE_NULL : MPI_Type_f2c(*sendtype), recvbuf, *recvcount,
                               MPI_Type_f2c(*recvtype), MPI_Comm_f2c(*comm));
  if (ierr) *ierr = static_cast<MPI_Fint>(err);
}

void fortran_allgatherv(const void* sendbuf, const MPI_Fint* sendcount, const MPI_Fint* sendtype, void* recvbuf,
                        const MPI_Fint* recvcounts, const MPI_Fint* displs, const MPI_Fint* recvtype,
                        const MPI_Fint* comm, MPI_Fint* ierr) {
  const bool in_place = is_fortran_in_place(sendbuf);
  const MPI_Comm c = MPI_Comm_f2c(*comm);
  int size = 0, inter = 0;
  if (c != MPI_COMM_NULL) PMPI_Comm_test_inter(c, &inter);
  // An intercommunicator's counts are the remote group's.
  if (c != MPI_COMM_NULL) (inter ? PMPI_Comm_remote_size : PMPI_Comm_size)(c, &size);
  // MPI_Fint may be wider than int: the tables are copied.
  std::vector<int> counts(recvcounts, recvcounts + size), at(displs, displs + size);
  const int err = TG_Allgatherv(in_place ? MPI_IN_PLACE : sendbuf, in_place ? 0 : *sendcount,
                                in_place ? MPI_DATATYPE_NULL : MPI_Type_f2c(*sendtype), recvbuf, counts.data(),
                                at.data(), MPI_Type_f2c(*recvtype), c);
  if (ierr) *ierr = static_cast<MPI_Fint>(err);
}

}  // namespace

#define TG_FORTRAN_ALLGATHER(name)                                                                              \
  extern "C" TG_API void name(const void* sendbuf, const MPI_Fint* sendcount, const MPI_Fint* sendtype, void* recvbuf, \
                       const MPI_Fint* recvcount, const MPI_Fint* recvtype, const MPI_Fint* comm, MPI_Fint* ierr) { \
    fortran_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr);                  \
  }
TG_FORTRAN_ALLGATHER(mpi_allgather_)
TG_FORTRAN_ALLGATHER(mpi_allgather__)
TG_FORTRAN_ALLGATHER(mpi_allgather)
TG_FORTRAN_ALLGATHER(MPI_ALLGATHER)

#define TG_FORTRAN_ALLGATHERV(name)                                                                             \
  extern "C" TG_API void name(const void* sendbuf, const MPI_Fint* sendcount, const MPI_Fint* sendtype, void* recvbuf, \
                              const MPI_Fint* recvcounts, const MPI_Fint* displs, const MPI_Fint* recvtype,     \
                              const MPI_Fint* comm, MPI_Fint* ierr) {                                           \
    fortran_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, ierr);        \
  }
TG_FORTRAN_ALLGATHERV(mpi_allgatherv_)
TG_FORTRAN_ALLGATHERV(mpi_allgatherv__)
TG_FORTRAN_ALLGATHERV(mpi_allgatherv)
TG_FORTRAN_ALLGATHERV(MPI_ALLGATHERV)
