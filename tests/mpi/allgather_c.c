/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI 4's large-count MPI_Allgather_c from an unmodified C program: run with
 * LD_PRELOAD=libtorusgather_pmpi.so and TORUSGATHER_VERBOSE=1 to see it go
 * through torusgather. Checks the result, count 0, and that a negative count
 * comes back as MPI_ERR_COUNT under MPI_ERRORS_RETURN. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const MPI_Count count = 1000;
  long long *mine = malloc(sizeof(long long) * count);
  long long *all = malloc(sizeof(long long) * count * size);
  for (MPI_Count i = 0; i < count; ++i) mine[i] = rank * 1000000LL + i;
  int bad = MPI_Allgather_c(mine, count, MPI_LONG_LONG, all, count, MPI_LONG_LONG, MPI_COMM_WORLD) != MPI_SUCCESS;
  for (int r = 0; r < size; ++r)
    for (MPI_Count i = 0; i < count; ++i) bad += all[r * count + i] != r * 1000000LL + i;
  bad += MPI_Allgather_c(NULL, 0, MPI_INT, NULL, 0, MPI_INT, MPI_COMM_WORLD) != MPI_SUCCESS;
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  int cls = MPI_SUCCESS;
  MPI_Error_class(MPI_Allgather_c(mine, -1, MPI_LONG_LONG, all, -1, MPI_LONG_LONG, comm), &cls);
  bad += cls != MPI_ERR_COUNT;
  MPI_Comm_free(&comm);
  int total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("MPI_Allgather_c on %d ranks: %s\n", size, total ? "WRONG" : "OK");
  free(mine);
  free(all);
  MPI_Finalize();
  return total ? 1 : 0;
}
