/* SPDX-License-Identifier: BSD-3-Clause
 * Two duplicates of MPI_COMM_WORLD, as libraries such as PETSc make them:
 * `calls` allgathers of 8-byte blocks on the first, then on the second, each
 * result checked. auto's trials on the first decide for the second
 * (tests/mpi/shared_decision.sh reads what TORUSGATHER_VERBOSE says).
 *   two_communicators [calls]                                             */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "torusgather/torusgather.h"

static int run(MPI_Comm comm, int calls, int rank, int size) {
  int ok = 1;
  int* out = malloc(sizeof(int) * 2 * (size_t)size);
  for (int c = 0; c < calls; ++c) {
    int mine[2] = {rank * 1000 + c, -rank};
    if (TG_Allgather(mine, 2, MPI_INT, out, 2, MPI_INT, comm) != MPI_SUCCESS) ok = 0;
    for (int r = 0; r < size; ++r)
      if (out[2 * r] != r * 1000 + c || out[2 * r + 1] != -r) ok = 0;
  }
  free(out);
  return ok;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int calls = argc > 1 ? atoi(argv[1]) : 20;
  MPI_Comm first, second;
  MPI_Comm_dup(MPI_COMM_WORLD, &first);
  MPI_Comm_dup(MPI_COMM_WORLD, &second);
  int ok = run(first, calls, rank, size) && run(second, calls, rank, size);
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (rank == 0) printf("two communicators on %d ranks: %s\n", size, ok ? "OK" : "FAILED");
  MPI_Comm_free(&first);
  MPI_Comm_free(&second);
  MPI_Finalize();
  return ok ? 0 : 1;
}
