// SPDX-License-Identifier: BSD-3-Clause
// The baseline of scripts/smpi-scale.sh: one 8-byte MPI_Allgather and
// nothing else, so that SimGrid's own cost per simulated rank shows next to
// torusgather's (tg-bench-smpi) on the same platform.
#include <mpi.h>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double mine = rank;
  std::vector<double> all(static_cast<std::size_t>(size));
  MPI_Allgather(&mine, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, MPI_COMM_WORLD);
  int ok = 1;
  for (int r = 0; r < size; ++r) ok &= all[static_cast<std::size_t>(r)] == r;
  if (rank == 0) std::printf("plain MPI_Allgather on %d ranks: %s\n", size, ok ? "ok" : "WRONG");
  MPI_Finalize();
  return ok ? 0 : 1;
}
