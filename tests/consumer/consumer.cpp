// SPDX-License-Identifier: BSD-3-Clause
// A user's program built against the installed torusgather: the C API and
// the C++ API from the installed headers and library.
#include <cstdio>
#include <numeric>
#include <vector>

#include <torusgather/torusgather.hpp>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<int> mine(10);
  std::iota(mine.begin(), mine.end(), rank * 10);
  const std::vector<int> all = torusgather::allgather(MPI_COMM_WORLD, mine);
  std::vector<int> c_api(all.size());
  TG_Allgather(mine.data(), 10, MPI_INT, c_api.data(), 10, MPI_INT, MPI_COMM_WORLD);
  bool ok = all == c_api && static_cast<int>(all.size()) == 10 * size;
  for (int i = 0; ok && i < 10 * size; ++i) ok = all[static_cast<std::size_t>(i)] == i;
  int all_ok = 0, mine_ok = ok ? 1 : 0;
  MPI_Allreduce(&mine_ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0) std::printf("consumer on %d ranks: %s\n", size, all_ok ? "OK" : "WRONG");
  MPI_Finalize();
  return all_ok ? 0 : 1;
}
