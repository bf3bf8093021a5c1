// SPDX-License-Identifier: BSD-3-Clause
// What tg-bench and the Google Benchmark suite share: how a timed call
// starts, which allgather a name means, and the buffers under SimGrid.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "torusgather/torusgather.h"

#ifdef TORUSGATHER_SMPI
#include <simgrid/host.h>
extern "C" void TG_Smpi_traffic_only(int on);  // lib/exec/executor.cpp
#endif

namespace tgbench {

/// "64", "4k", "1M", "2MiB" in bytes; -1 if malformed.
inline long long parse_size(const std::string& s) {
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (end == s.c_str()) return -1;
  const std::string unit = end;
  if (unit == "k" || unit == "K" || unit == "KiB") v <<= 10;
  else if (unit == "m" || unit == "M" || unit == "MiB") v <<= 20;
  else if (!unit.empty()) return -1;
  return v;
}

inline std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i <= s.size()) {
    const std::size_t j = s.find(sep, i);
    out.push_back(s.substr(i, j == std::string::npos ? std::string::npos : j - i));
    if (j == std::string::npos) break;
    i = j + 1;
  }
  return out;
}

/// The algorithms to time: "all" expands to auto and every registered
/// algorithm that applies to this communicator's torus (runs as itself).
inline std::vector<std::string> expand(const std::vector<std::string>& requested, MPI_Comm comm) {
  std::vector<std::string> out;
  for (const auto& a : requested) {
    if (a != "all") {
      out.push_back(a);
      continue;
    }
    out.push_back("auto");
    char list[512] = "";
    TG_Algorithm_list(list, sizeof list);
    for (const auto& name : split(list, ',')) {
      char chosen[64] = "";
      if (TG_Algorithm_chosen(name.c_str(), comm, chosen, sizeof chosen) == MPI_SUCCESS && name == chosen)
        out.push_back(name);
    }
  }
  std::vector<std::string> unique;
  for (const auto& a : out)
    if (std::find(unique.begin(), unique.end(), a) == unique.end()) unique.push_back(a);
  return unique;
}

/// Receive buffers. Under SimGrid, `shared` ones (results not checked) are
/// SMPI_SHARED_MALLOC: one memory for all simulated ranks.
inline void* allocate(std::size_t bytes, bool shared) {
#ifdef SMPI_SHARED_MALLOC
  if (shared) return SMPI_SHARED_MALLOC(bytes);
#else
  (void)shared;
#endif
  return std::malloc(bytes ? bytes : 1);
}

inline void release(void* p, bool shared) {
#ifdef SMPI_SHARED_FREE
  if (shared) {
    SMPI_SHARED_FREE(p);
    return;
  }
#else
  (void)shared;
#endif
  std::free(p);
}

/// "vendor" is the MPI library's own allgather (PMPI, so a preloaded
/// libtorusgather_pmpi.so does not replace it); anything else a torusgather
/// algorithm name.
inline int run(const std::string& algorithm, const void* send, int count, MPI_Datatype type, void* recv,
               MPI_Comm comm) {
  if (algorithm == "vendor") return PMPI_Allgather(send, count, type, recv, count, type, comm);
  return TG_Allgather_algorithm(algorithm.c_str(), send, count, type, recv, count, type, comm);
}

/// The same call as MPI_Allgatherv with every rank's count `count` at
/// displacement rank * count (counts and displs hold that): the same data
/// and layout, through the v path ("vendor": PMPI_Allgatherv).
inline int run_v(const std::string& algorithm, const void* send, int count, MPI_Datatype type, void* recv,
                 const int* counts, const int* displs, MPI_Comm comm) {
  if (algorithm == "vendor") return PMPI_Allgatherv(send, count, type, recv, counts, displs, type, comm);
  return TG_Allgatherv_algorithm(algorithm.c_str(), send, count, type, recv, counts, displs, type, comm);
}

/// Returns the time at which this rank starts a timed call. Real MPI: after a
/// barrier (as OSU). SimGrid: every simulated rank starts at the same
/// simulated instant (a barrier lets ranks go a few latencies apart, which
/// at 8 B is as long as the allgather): agree on a start after the latest
/// rank's clock, 1 ms or 4 barriers later (the agreement itself takes about
/// one), and idle until then.
inline double start_together(MPI_Comm comm) {
#ifdef TORUSGATHER_SMPI
  const double before = MPI_Wtime();
  MPI_Barrier(comm);
  double now = MPI_Wtime(), latest[2] = {0, 0};
  const double mine[2] = {now, now - before};
  MPI_Allreduce(mine, latest, 2, MPI_DOUBLE, MPI_MAX, comm);
  const double start = latest[0] + std::max(1e-3, 4 * latest[1]);
  now = MPI_Wtime();
  if (now > start) std::fprintf(stderr, "tg-bench: the agreed start passed before this rank got there\n");
  if (now < start) smpi_execute_flops((start - now) * sg_host_get_speed(sg_host_self()));  // simulated idling
  return start;
#else
  MPI_Barrier(comm);
  return MPI_Wtime();
#endif
}

}  // namespace tgbench
