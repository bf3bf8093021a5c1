/* SPDX-License-Identifier: BSD-3-Clause */
/* A plain C program using torusgather's C API: every rank contributes
 * `count` integers; checks the result against what MPI_Allgather defines.
 *   mpirun -np 6 build/bin/tg-example-c [count]
 * TORUSGATHER_ALGORITHM and TORUSGATHER_VERBOSE=1 apply as documented. */
#include <stdio.h>
#include <stdlib.h>

#include <torusgather/torusgather.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int count = argc > 1 ? atoi(argv[1]) : 1000;
  int *mine = malloc(sizeof(int) * (size_t)(count > 0 ? count : 1));
  int *all = malloc(sizeof(int) * (size_t)(count > 0 ? count : 1) * (size_t)size);
  for (int i = 0; i < count; ++i) mine[i] = rank * 100000 + i;

  TG_Allgather(mine, count, MPI_INT, all, count, MPI_INT, MPI_COMM_WORLD);

  int bad = 0;
  for (int r = 0; r < size; ++r)
    for (int i = 0; i < count; ++i) bad += all[(size_t)r * count + i] != r * 100000 + i;
  int total = 0;
  MPI_Reduce(&bad, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("allgather of %d ints on %d ranks: %s\n", count, size, total ? "WRONG" : "OK");
  free(mine);
  free(all);
  MPI_Finalize();
  return total ? 1 : 0;
}
