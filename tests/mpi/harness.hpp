// SPDX-License-Identifier: BSD-3-Clause
// A minimal harness for the MPI test programs: plain programs (no gtest) so
// that the same sources run under mpiexec and SimGrid's smpirun.
// check() records a verdict that all ranks of MPI_COMM_WORLD agree on;
// skip() counts a case not run; finish() prints
// "<name> np=N: P passed, F failed, S skipped" on rank 0 and returns
// the exit status (1 on any failure).
#ifndef TORUSGATHER_TESTS_MPI_HARNESS_HPP
#define TORUSGATHER_TESTS_MPI_HARNESS_HPP

#include <mpi.h>

#include <cstdio>
#include <string>

namespace tg_test {

inline int& passed() {
  static int n = 0;
  return n;
}
inline int& failed() {
  static int n = 0;
  return n;
}
inline int& skipped() {
  static int n = 0;
  return n;
}

/// A case not run, with the reason: counted and printed, never passed.
/// Collective only in that every rank calls it alike; rank 0 prints.
inline void skip(const std::string& what) {
  ++skipped();
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) std::printf("skipped: %s\n", what.c_str());
}

/// Collective over MPI_COMM_WORLD: passes only if ok_here holds on every rank.
inline void check(bool ok_here, const std::string& what) {
  int ok = ok_here ? 1 : 0, all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (all) {
    ++passed();
  } else {
    ++failed();
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (!ok_here) std::fprintf(stderr, "FAILED on rank %d: %s\n", rank, what.c_str());
  }
}

inline int finish(const char* name) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0)
    std::printf("%s np=%d: %d passed, %d failed, %d skipped\n", name, size, passed(), failed(), skipped());
  // A program that checked nothing proves nothing.
  return failed() == 0 && passed() > 0 ? 0 : 1;
}

}  // namespace tg_test

#endif  // TORUSGATHER_TESTS_MPI_HARNESS_HPP
