/* SPDX-License-Identifier: BSD-3-Clause */
/* torusgather: drop-in MPI_Allgather replacements for torus networks.
 * C API, usable from C and C++. */
#ifndef TORUSGATHER_TORUSGATHER_H
#define TORUSGATHER_TORUSGATHER_H

#include <mpi.h>

/* The library is built with hidden visibility: only what is marked is exported. */
#if defined(__GNUC__)
#define TG_API __attribute__((visibility("default")))
#else
#define TG_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Same signature and semantics as MPI_Allgather (MPI_IN_PLACE, any datatypes
 *  with matching type signatures, count 0, any communicator size). The ranks
 *  are mapped onto a torus (a periodic Cartesian communicator's own dims,
 *  else TORUSGATHER_DIMS, else MPI_Dims_create with d = 2) and the data moves
 *  in neighbour-only rounds on a private duplicate of comm. The algorithm is
 *  TORUSGATHER_ALGORITHM (a registered algorithm, vendor or auto; default
 *  auto: the fastest by the calibrated cost model, the vendor's allgather
 *  included). Errors are raised through comm's error handler. */
TG_API int TG_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm);

/** TG_Allgather with the algorithm named by the caller instead of
 *  TORUSGATHER_ALGORITHM: a registry name ("hamiltonian", "dim-rings"),
 *  "vendor" (PMPI_Allgather) or "auto"; NULL means TORUSGATHER_ALGORITHM.
 *  A named algorithm that does not apply to the torus falls back to the
 *  next of its family that does (bridgehead-coloured and cubgos to
 *  bridgehead, hamiltonian-partial to hamiltonian, lee-code-large to
 *  lee-code, node-hamiltonian to node-dim-rings), and at last to dim-rings,
 *  which applies to every torus; an unknown name is an MPI_ERR_ARG. For
 *  benchmarks and tests. */
TG_API int TG_Allgather_algorithm(const char *algorithm, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);

/** TG_Allgather_algorithm that returns its error codes without passing them
 *  to comm's error handler, whatever that handler is: for language bindings
 *  that turn codes into exceptions (torusgather.hpp, boost_mpi.hpp). Where
 *  torusgather delegates to the MPI library's own MPI_Allgather (algorithm
 *  "vendor", intercommunicators) the MPI library handles errors as usual. */
TG_API int TG_Allgather_noraise(const char *algorithm, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                         void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);

/** Same signature and semantics as MPI_Allgatherv (per-rank counts and
 *  displacements, MPI_IN_PLACE, any datatypes). Runs on the same schedules
 *  as TG_Allgather, every block at its own size and place; the algorithm is
 *  chosen as for TG_Allgather with the largest block, and may be the MPI
 *  library's own allgatherv. Errors are raised through comm's handler. */
TG_API int TG_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const int *recvcounts, const int *displs, MPI_Datatype recvtype, MPI_Comm comm);

/** TG_Allgatherv with the algorithm named by the caller, as
 *  TG_Allgather_algorithm ("vendor": PMPI_Allgatherv). */
TG_API int TG_Allgatherv_algorithm(const char *algorithm, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const int *recvcounts, const int *displs, MPI_Datatype recvtype,
                            MPI_Comm comm);

/** TG_Allgatherv_algorithm returning its error codes without the error
 *  handler, as TG_Allgather_noraise (for the C++ API). */
TG_API int TG_Allgatherv_noraise(const char *algorithm, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                          void *recvbuf, const int *recvcounts, const int *displs, MPI_Datatype recvtype,
                          MPI_Comm comm);

/** A persistent allgather (MPI 4's MPI_Allgather_init, under any MPI):
 *  the handle of TG_Allgather_init, run by TG_Start and completed by
 *  TG_Wait or TG_Test, any number of times, until TG_Request_free. */
typedef struct TG_Request_s *TG_Request;
#define TG_REQUEST_NULL ((TG_Request)0)

/** Collective: checks the arguments as TG_Allgather does, chooses the
 *  algorithm (info key "torusgather_algorithm", else TORUSGATHER_ALGORITHM;
 *  auto as for TG_Allgather, without timing calls) and makes every message
 *  of the schedule once, to run on a communicator of the request's own.
 *  The buffers and counts are fixed; the send buffer's contents are read
 *  at each TG_Start. Errors are raised through comm's error handler. */
TG_API int TG_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, TG_Request *request);
/** TG_Allgather_init returning its error codes without the error handler
 *  (for the C++ API). */
TG_API int TG_Allgather_init_noraise(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                              int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                              TG_Request *request);
/** Starts the allgather (collective: every rank starts its requests in the
 *  same order). MPI_ERR_REQUEST if it is null or already started. */
TG_API int TG_Start(TG_Request *request);
/** Advances the allgather as far as its messages allow; *flag = 1 once
 *  complete (the receive buffer then holds every block). */
TG_API int TG_Test(TG_Request *request, int *flag);
/** Completes the allgather; at once if it is not started. */
TG_API int TG_Wait(TG_Request *request);
/** Frees an inactive request and sets it to TG_REQUEST_NULL
 *  (MPI_ERR_REQUEST if it is started and not completed). TG_Start, TG_Test,
 *  TG_Wait and TG_Request_free return MPI error codes; they do not call an
 *  error handler. */
TG_API int TG_Request_free(TG_Request *request);

/** Writes into name (at most len bytes, NUL-terminated) the algorithm that
 *  TG_Allgather_algorithm(algorithm, ...) would run on comm for blocks of
 *  count elements of datatype: "auto" resolved by TORUSGATHER_TUNE or the
 *  cost model (possibly "vendor"), a declining algorithm by its fallback.
 *  Collective on comm: the first call builds the communicator's plan, and
 *  auto's first call for a size calibrates and predicts. */
TG_API int TG_Algorithm_for(const char *algorithm, MPI_Comm comm, int count, MPI_Datatype datatype, char *name, int len);

/** Writes into *seconds the cost model's prediction of the time of
 *  TG_Allgather_algorithm(algorithm, ...) on comm for blocks of count
 *  elements of datatype ("auto": of what it would run; "vendor": of the MPI
 *  library's allgather as torusgather models it), or -1 where there is no
 *  model (the vendor's algorithm unknown, one rank). Collective on comm, as
 *  TG_Algorithm_for; the prediction uses the calibrated machine. */
TG_API int TG_Predicted_time(const char *algorithm, MPI_Comm comm, int count, MPI_Datatype datatype, double *seconds);

/** TG_Algorithm_for with blocks of one byte. */
TG_API int TG_Algorithm_chosen(const char *algorithm, MPI_Comm comm, char *name, int len);

/** Writes into names (at most len bytes, NUL-terminated) the registered
 *  algorithms, comma-separated ("hamiltonian,partial-cycles,dim-rings");
 *  "auto" and "vendor" are not listed. Local, no MPI needed. */
TG_API int TG_Algorithm_list(char *names, int len);

#ifdef __cplusplus
}
#endif

#endif /* TORUSGATHER_TORUSGATHER_H */
