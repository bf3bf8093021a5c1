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

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "torusgather/torusgather.h"

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

inline MPI_Aint extent_of(MPI_Datatype t) {
  MPI_Aint lb, ext;
  MPI_Type_get_extent(t, &lb, &ext);
  return ext;
}

/// Every algorithm the library lists (TG_Algorithm_list).
inline std::vector<std::string> library_algorithms() {
  std::vector<std::string> names;
  char list[1024] = "";
  TG_Algorithm_list(list, sizeof list);
  for (const char* p = list; *p;) {
    const char* comma = std::strchr(p, ',');
    names.emplace_back(p, comma ? comma : p + std::strlen(p));
    p = comma ? comma + 1 : p + std::strlen(p);
  }
  return names;
}

/// A committed struct type with padding, {char; double; int}, resized to
/// its C size (the caller frees it).
inline MPI_Datatype padded_struct_type() {
  struct S {
    char c;
    double d;
    int i;
  };
  int lens[3] = {1, 1, 1};
  MPI_Aint disps[3] = {offsetof(S, c), offsetof(S, d), offsetof(S, i)};
  MPI_Datatype members[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
  MPI_Datatype st, sr;
  MPI_Type_create_struct(3, lens, disps, members, &st);
  MPI_Type_create_resized(st, 0, sizeof(S), &sr);
  MPI_Type_free(&st);
  MPI_Type_commit(&sr);
  return sr;
}

}  // namespace tg_test

#endif  // TORUSGATHER_TESTS_MPI_HARNESS_HPP
