// SPDX-License-Identifier: BSD-3-Clause
// An ordinary Boost.MPI program: boost::mpi::all_gather on an MPI datatype
// calls MPI_Allgather. Run with LD_PRELOAD=libtorusgather_pmpi.so to route
// it through torusgather without recompiling.
#include <boost/mpi.hpp>
#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  boost::mpi::environment env(argc, argv);
  boost::mpi::communicator world;
  std::vector<double> mine(100), all;
  for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = world.rank() * 1000.0 + static_cast<double>(i);
  boost::mpi::all_gather(world, mine.data(), static_cast<int>(mine.size()), all);
  int bad = 0;
  for (int r = 0; r < world.size(); ++r)
    for (std::size_t i = 0; i < mine.size(); ++i) bad += all[r * mine.size() + i] != r * 1000.0 + static_cast<double>(i);
  int total = 0;
  boost::mpi::reduce(world, bad, total, std::plus<int>(), 0);
  if (world.rank() == 0) std::printf("C++ boost::mpi::all_gather on %d ranks: %s\n", world.size(), total ? "WRONG" : "OK");
  return total ? 1 : 0;
}
