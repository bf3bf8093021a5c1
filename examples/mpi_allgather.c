/* SPDX-License-Identifier: BSD-3-Clause */
/* An ordinary MPI program: it calls MPI_Allgather and MPI_Allgatherv and knows nothing of
 * torusgather. Run it with LD_PRELOAD=libtorusgather_pmpi.so to route the
 * call through torusgather without recompiling (TORUSGATHER_VERBOSE=1 shows it).
 *   mpirun -np 6 -x LD_PRELOAD=build/lib/libtorusgather_pmpi.so build/bin/tg-example-mpi */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int count = 777;
  int *mine = malloc(sizeof(int) * count), *all = malloc(sizeof(int) * (size_t)count * size);
  for (int i = 0; i < count; ++i) mine[i] = rank * 1000 + i;
  MPI_Allgather(mine, count, MPI_INT, all, count, MPI_INT, MPI_COMM_WORLD);
  /* and in place */
  int *inplace = malloc(sizeof(int) * (size_t)count * size);
  for (int i = 0; i < count; ++i) inplace[(size_t)rank * count + i] = rank * 1000 + i;
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, inplace, count, MPI_INT, MPI_COMM_WORLD);
  /* MPI_Allgatherv: rank r sends r + 1 ints, placed in reverse rank order. */
  int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size), total_v = 0;
  for (int r = size - 1; r >= 0; --r) {
    counts[r] = r + 1;
    displs[r] = total_v;
    total_v += r + 1;
  }
  int *gathered = malloc(sizeof(int) * (size_t)total_v);
  MPI_Allgatherv(mine, rank + 1, MPI_INT, gathered, counts, displs, MPI_INT, MPI_COMM_WORLD);
  int bad = 0;
  for (int r = 0; r < size; ++r) {
    for (int i = 0; i < count; ++i)
      bad += (all[(size_t)r * count + i] != r * 1000 + i) + (inplace[(size_t)r * count + i] != r * 1000 + i);
    for (int i = 0; i < counts[r]; ++i) bad += gathered[displs[r] + i] != r * 1000 + i;
  }
  int total = 0;
  MPI_Reduce(&bad, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("C MPI_Allgather on %d ranks: %s\n", size, total ? "WRONG" : "OK");
  free(mine);
  free(all);
  free(inplace);
  free(counts);
  free(displs);
  free(gathered);
  MPI_Finalize();
  return total ? 1 : 0;
}
