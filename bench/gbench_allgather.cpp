// SPDX-License-Identifier: BSD-3-Clause
// tg-gbench: the allgather algorithms as Google Benchmark benchmarks, one per
// algorithm x block size, under mpirun or smpirun (see README, "Tools").
//
//   mpirun -np 8 tg-gbench [--sizes 8,1K,1M] [--algorithms vendor,auto,...] [--benchmark_* flags]
//
// MPI-aware main: rank 0 runs Google Benchmark and reports; every other rank
// serves it. For each timed call rank 0 broadcasts (algorithm, size), every
// rank starts the call together (bench_common.hpp) and the time recorded
// for the iteration is the maximum over ranks (manual time): an allgather is
// done when the last rank has its data. Only rank 0 decides how many
// iterations to run, so the ranks never disagree.
// Counters: algbw = P·s / time (the bytes every rank ends up with, per
// second), busbw = algbw·(P−1)/P (what crossed into each rank), the label
// says what auto ran. Under SimGrid one iteration per benchmark is the
// default (simulated time is deterministic) and receive buffers are shared
// (SMPI_SHARED_MALLOC; results are not checked here, tg-bench --check does).
#include <benchmark/benchmark.h>
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "bench_common.hpp"

namespace {

enum Op : long long { kStop = 0, kCall = 1 };

struct World {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0, size = 1;
  std::vector<std::string> algorithms;
  std::map<long long, void*> recv;  // per block size, kept for the whole run
  std::vector<unsigned char> send;
};
World world;

void* recv_buffer(long long bytes) {
  auto it = world.recv.find(bytes);
  if (it != world.recv.end()) return it->second;
  void* p = tgbench::allocate(static_cast<std::size_t>(bytes) * world.size, true);
  world.recv.emplace(bytes, p);
  return p;
}

/// One timed call on every rank; returns (on rank 0) the maximum over ranks.
double timed_call(long long algorithm, long long bytes) {
  if (static_cast<std::size_t>(bytes) > world.send.size()) world.send.resize(static_cast<std::size_t>(bytes), 1);
  void* recv = recv_buffer(bytes);
#ifdef TORUSGATHER_SMPI
  TG_Smpi_traffic_only(1);  // shared buffers: same traffic without SMPI's packing buffers
#endif
  const double t0 = tgbench::start_together(world.comm);
  const int err = tgbench::run(world.algorithms[static_cast<std::size_t>(algorithm)], world.send.data(),
                               static_cast<int>(bytes), MPI_BYTE, recv, world.comm);
  double mine = MPI_Wtime() - t0, worst = 0;
  if (err != MPI_SUCCESS) mine = -1;  // reported as an error by rank 0
  double both[2] = {mine, -mine}, out[2] = {0, 0};
  MPI_Reduce(both, out, 2, MPI_DOUBLE, MPI_MAX, 0, world.comm);
  worst = out[1] > 0 ? -1 : out[0];  // any rank failed: -1
  return worst;
}

void serve() {
  for (;;) {
    long long cmd[3] = {kStop, 0, 0};
    MPI_Bcast(cmd, 3, MPI_LONG_LONG, 0, world.comm);
    if (cmd[0] == kStop) return;
    timed_call(cmd[1], cmd[2]);
  }
}

void call_everywhere(long long algorithm, long long bytes, double* seconds) {
  long long cmd[3] = {kCall, algorithm, bytes};
  MPI_Bcast(cmd, 3, MPI_LONG_LONG, 0, world.comm);
  *seconds = timed_call(algorithm, bytes);
}

void bm_allgather(benchmark::State& state, long long algorithm, std::string label) {
  const long long bytes = state.range(0);
  double total = 0;
  for (auto _ : state) {
    double seconds = 0;
    call_everywhere(algorithm, bytes, &seconds);
    if (seconds < 0) {
      state.SkipWithError("the allgather returned an error on some rank");
      break;
    }
    state.SetIterationTime(seconds);
    total += seconds;
  }
  if (total > 0) {
    const double per_call = total / static_cast<double>(state.iterations());
    const double algbw = static_cast<double>(bytes) * world.size / per_call;
    state.counters["algbw_GBps"] = algbw / 1e9;
    state.counters["busbw_GBps"] = algbw * (world.size - 1) / world.size / 1e9;
    state.counters["ranks"] = world.size;
  }
  state.SetLabel(label);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_dup(MPI_COMM_WORLD, &world.comm);
  MPI_Comm_set_errhandler(world.comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(world.comm, &world.rank);
  MPI_Comm_size(world.comm, &world.size);

  // Our own flags; the rest go to Google Benchmark (rank 0 only).
  std::vector<long long> sizes{8, 1024, 65536, 1 << 20};
  std::string algorithms = "vendor,all";
  std::vector<char*> rest{argv[0]};
  bool bad = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--sizes" || a == "--algorithms") && i + 1 < argc) {
      const std::string v = argv[++i];
      if (a == "--algorithms") {
        algorithms = v;
        continue;
      }
      sizes.clear();
      for (const auto& s : tgbench::split(v, ',')) {
        sizes.push_back(tgbench::parse_size(s));
        bad = bad || sizes.back() < 0 || sizes.back() > (1LL << 31) - 1;
      }
    } else {
      rest.push_back(argv[i]);
    }
  }
  world.algorithms = tgbench::expand(tgbench::split(algorithms, ','), world.comm);
  // labels[k][j]: what algorithm k runs at sizes[j] (auto's choice depends
  // on the size); asked on every rank, since the first ask is collective.
  std::vector<std::vector<std::string>> labels;
  for (const auto& a : world.algorithms) {
    labels.emplace_back();
    for (long long bytes : sizes) {
      char chosen[64] = "vendor";
      if (!bad && a != "vendor" &&
          TG_Algorithm_for(a.c_str(), world.comm, static_cast<int>(bytes), MPI_BYTE, chosen, sizeof chosen) !=
              MPI_SUCCESS) {
        if (world.rank == 0) std::fprintf(stderr, "tg-gbench: unknown algorithm '%s'\n", a.c_str());
        bad = true;
      }
      labels.back().push_back(a == chosen ? "" : std::string("runs ") + chosen);
    }
  }
  if (bad) {
    if (world.rank == 0) std::fprintf(stderr, "usage: tg-gbench [--sizes 8,1K,1M] [--algorithms vendor,all] [--benchmark_*]\n");
    MPI_Finalize();
    return 2;
  }

  int status = 0;
  if (world.rank == 0) {
    int rest_argc = static_cast<int>(rest.size());
    benchmark::Initialize(&rest_argc, rest.data());
    if (benchmark::ReportUnrecognizedArguments(rest_argc, rest.data())) status = 2;
    for (std::size_t k = 0; k < world.algorithms.size() && status == 0; ++k)
      for (std::size_t j = 0; j < sizes.size(); ++j) {
        auto* b = benchmark::RegisterBenchmark(("allgather/" + world.algorithms[k]).c_str(), bm_allgather,
                                               static_cast<long long>(k), labels[k][j]);
        b->Arg(sizes[j])->UseManualTime()->Unit(benchmark::kMicrosecond);
#ifdef TORUSGATHER_SMPI
        b->Iterations(1);  // simulated time is deterministic
#endif
      }
    if (status == 0) benchmark::RunSpecifiedBenchmarks();
    long long stop[3] = {kStop, 0, 0};
    MPI_Bcast(stop, 3, MPI_LONG_LONG, 0, world.comm);
    benchmark::Shutdown();
  } else {
    serve();
  }
  for (auto& entry : world.recv) tgbench::release(entry.second, true);
  MPI_Comm_free(&world.comm);
  MPI_Finalize();
  return status;
}
