// SPDX-License-Identifier: BSD-3-Clause
// MPI robustness tests of TG_Allgather, one mode per CTest entry:
//   self        MPI_COMM_SELF and its duplicates, every algorithm
//   isolation   the application's own receives (MPI_ANY_SOURCE, MPI_ANY_TAG)
//               posted on the same communicator never match torusgather's
//               traffic, and get exactly the application's messages
//   threads     MPI_THREAD_MULTIPLE: concurrent TG_Allgather on distinct
//               communicators from several threads, plans built concurrently
//   leak N      N cycles of MPI_Comm_dup / TG_Allgather / MPI_Comm_free: the
//               resident set may not grow with N
//   faults      a failure inside the library (TORUSGATHER_TEST_FAULT: out of
//               memory building a schedule on one rank, or on rank 0 while
//               the others wait for its cost profile) comes back on every
//               rank as an MPI error class; later calls work
//   counts      a count whose run of whole blocks exceeds INT_MAX elements
//               (a datatype of size 0, so no memory): every algorithm returns
//               MPI_SUCCESS, as the standard allows the call
#include <mpi.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "harness.hpp"
#include "torusgather/torusgather.h"

namespace {

using tg_test::check;

const char* const kAlgorithms[] = {"auto", "hamiltonian", "dim-rings", "partial-cycles", "partial-cycles-ti", "vendor"};

/// One allgather of `count` ints with `algorithm`; true if the result is right.
bool gather_ok(const char* algorithm, MPI_Comm comm, int count, int salt = 0) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<int> mine(static_cast<std::size_t>(count)), all(static_cast<std::size_t>(count) * size, -1);
  for (int i = 0; i < count; ++i) mine[static_cast<std::size_t>(i)] = (rank * 7919 + i) ^ salt;
  if (TG_Allgather_algorithm(algorithm, mine.data(), count, MPI_INT, all.data(), count, MPI_INT, comm) != MPI_SUCCESS)
    return false;
  for (int r = 0; r < size; ++r)
    for (int i = 0; i < count; ++i)
      if (all[static_cast<std::size_t>(r) * count + i] != ((r * 7919 + i) ^ salt)) return false;
  return true;
}

void self_mode() {
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_SELF, &dup);
  for (MPI_Comm comm : {MPI_COMM_SELF, dup})
    for (const char* a : kAlgorithms)
      check(gather_ok(a, comm, 1000), std::string("MPI_COMM_SELF") + (comm == dup ? " (dup)" : "") + ": " + a);
  int x = 42;
  check(TG_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, &x, 1, MPI_INT, MPI_COMM_SELF) == MPI_SUCCESS && x == 42,
        "MPI_COMM_SELF in place");
  MPI_Comm_free(&dup);
}

void isolation_mode() {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  for (MPI_Comm comm : {MPI_COMM_WORLD, dup}) {
    for (const char* a : kAlgorithms) {
      const std::string at = std::string(comm == dup ? "dup: " : "world: ") + a;
      // The application's wildcard receives, posted before the collective.
      int got[2] = {-1, -1};
      MPI_Request requests[2];
      for (int k = 0; k < 2; ++k) MPI_Irecv(&got[k], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &requests[k]);
      // Several sizes, so that each algorithm sends many messages.
      bool ok = gather_ok(a, comm, 1) && gather_ok(a, comm, 333) && gather_ok(a, comm, 20000);
      int flag = 1;
      MPI_Testall(2, requests, &flag, MPI_STATUSES_IGNORE);
      check(ok && !flag, at + ": allgather correct and no wildcard receive matched its traffic");
      MPI_Barrier(comm);  // every rank has tested before anyone sends
      // The application's own messages: from the left and right neighbours
      // with their own tags; the wildcard receives get exactly them.
      const int right = (rank + 1) % size, left = (rank + size - 1) % size;
      const int payload[2] = {rank * 10 + 1, rank * 10 + 2};
      MPI_Send(&payload[0], 1, MPI_INT, right, 5, comm);
      MPI_Send(&payload[1], 1, MPI_INT, left, 6, comm);
      MPI_Status statuses[2];
      MPI_Waitall(2, requests, statuses);
      bool from_right = false, from_left = false;
      for (int k = 0; k < 2; ++k) {
        from_left = from_left || (statuses[k].MPI_SOURCE == left && statuses[k].MPI_TAG == 5 && got[k] == left * 10 + 1);
        from_right =
            from_right || (statuses[k].MPI_SOURCE == right && statuses[k].MPI_TAG == 6 && got[k] == right * 10 + 2);
      }
      check(from_left && from_right, at + ": the wildcard receives got the application's messages");
      int pending = 1;
      MPI_Barrier(comm);
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &pending, MPI_STATUS_IGNORE);
      check(!pending, at + ": nothing of torusgather left on the application's communicator");
    }
  }
  MPI_Comm_free(&dup);
}

void threads_mode() {
  constexpr int kThreads = 4, kRounds = 40;
  // Duplicated on the main thread, in the same order on every rank, as MPI
  // requires of collectives on one communicator; used by one thread each.
  std::vector<MPI_Comm> comms(kThreads);
  for (auto& c : comms) MPI_Comm_dup(MPI_COMM_WORLD, &c);
  std::vector<int> ok(kThreads, 1);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      // Each thread's first call builds its communicator's plan, all at once.
      for (int i = 0; i < kRounds; ++i)
        if (!gather_ok(kAlgorithms[(t + i) % 4], comms[static_cast<std::size_t>(t)], 1 + (i * 97 + t) % 3000, t))
          ok[static_cast<std::size_t>(t)] = 0;
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t)
    check(ok[static_cast<std::size_t>(t)] == 1, "thread " + std::to_string(t) + ": every allgather correct");
  for (auto& c : comms) MPI_Comm_free(&c);
  // A new communicator of the same ranks takes a calibration the threads
  // made: the same one on every rank, or ranks would choose apart and hang.
  MPI_Comm late;
  MPI_Comm_dup(MPI_COMM_WORLD, &late);
  double predicted[2] = {0, 0};
  check(TG_Predicted_time("dim-rings", late, 1000, MPI_INT, &predicted[0]) == MPI_SUCCESS, "predicted time");
  predicted[1] = -predicted[0];
  MPI_Allreduce(MPI_IN_PLACE, predicted, 2, MPI_DOUBLE, MPI_MIN, late);
  check(predicted[0] == -predicted[1], "a later communicator's model is the same on every rank: " +
                                            std::to_string(predicted[0]) + " to " + std::to_string(-predicted[1]) + " s");
  MPI_Comm_free(&late);
}

long resident_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  return -1;
}

void leak_mode(int cycles) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int warm = cycles / 10;
  long before = 0;
  bool ok = true;
  for (int i = 0; i < cycles; ++i) {
    if (i == warm) before = resident_kib();
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    ok = gather_ok(kAlgorithms[i % 4], comm, 64, i) && ok;
    MPI_Comm_free(&comm);
  }
  const long after = resident_kib();
  // A leaked plan (private communicator, schedule, tables) costs kilobytes
  // per cycle, i.e. megabytes over thousands of cycles; allow 1 MiB of noise.
  const long growth = after - before;
  if (rank == 0)
    std::printf("leak: %d cycles, VmRSS %ld KiB after %d cycles, %ld KiB at the end (growth %ld KiB)\n", cycles, before,
                warm, after, growth);
  check(ok, "every allgather of the cycles correct");
  check(before > 0 && growth < 1024, "resident set grew by " + std::to_string(growth) + " KiB");
}

/// One allgather with `algorithm` on a fresh duplicate of MPI_COMM_WORLD
/// (errors returned) while TORUSGATHER_TEST_FAULT is `fault`: its error class.
/// The duplicate is a ring (TORUSGATHER_DIMS): where no torus is known,
/// auto would hand the call to the vendor without a cost profile.
int faulty_call(const char* fault, const char* algorithm) {
  int size = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  setenv("TORUSGATHER_DIMS", std::to_string(size).c_str(), 1);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm, &rank);
  std::vector<int> all(static_cast<std::size_t>(size));
  setenv("TORUSGATHER_TEST_FAULT", fault, 1);
  const int err = TG_Allgather_algorithm(algorithm, &rank, 1, MPI_INT, all.data(), 1, MPI_INT, comm);
  unsetenv("TORUSGATHER_TEST_FAULT");
  unsetenv("TORUSGATHER_DIMS");
  int cls = MPI_SUCCESS;
  MPI_Error_class(err, &cls);
  MPI_Comm_free(&comm);
  return cls;
}

void faults_mode() {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string last = std::to_string(size - 1);
  // The last rank alone fails to build the schedule every rank runs.
  check(faulty_call(("build:" + last).c_str(), "hamiltonian") == (size > 1 ? MPI_ERR_NO_MEM : MPI_SUCCESS),
        "out of memory building a schedule on rank " + last + " is MPI_ERR_NO_MEM on every rank");
  check(faulty_call(("build:" + last).c_str(), "bridgehead") == (size > 1 ? MPI_ERR_NO_MEM : MPI_SUCCESS),
        "out of memory building a size-tuned schedule on rank " + last + " is MPI_ERR_NO_MEM on every rank");
  // Rank 0 fails while computing a cost profile for auto's choice.
  check(faulty_call("profile", "auto") == (size > 1 ? MPI_ERR_NO_MEM : MPI_SUCCESS),
        "out of memory on rank 0 computing a cost profile is MPI_ERR_NO_MEM on every rank");
  // Nothing is left broken: the same calls succeed once the fault is gone.
  for (const char* a : {"hamiltonian", "bridgehead", "auto"}) check(gather_ok(a, MPI_COMM_WORLD, 99), std::string("afterwards: ") + a);
}

}  // namespace

void counts_mode() {
  MPI_Datatype empty = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(0, MPI_INT, &empty);
  MPI_Type_commit(&empty);
  // Two blocks of this many elements exceed INT_MAX: the message of a run
  // of blocks cannot be one hindexed entry.
  const int count = INT_MAX / 2 + 7;
  char mine[1] = {0}, all[1] = {0};
  for (const char* a : {"auto", "hamiltonian", "dim-rings", "torus-bruck", "bridgehead", "circulant", "chordal-ring",
                        "three-phase", "vendor"}) {
    const int err = TG_Allgather_algorithm(a, mine, count, empty, all, count, empty, MPI_COMM_WORLD);
    check(err == MPI_SUCCESS, std::string(a) + ": " + std::to_string(count) + " elements of size 0 per block, error " +
                                  std::to_string(err));
  }
  MPI_Type_free(&empty);
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "threads") {
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    check(provided == MPI_THREAD_MULTIPLE, "the MPI provides MPI_THREAD_MULTIPLE");
    if (provided == MPI_THREAD_MULTIPLE) threads_mode();
  } else {
    MPI_Init(&argc, &argv);
    if (mode == "self") {
      self_mode();
    } else if (mode == "isolation") {
      isolation_mode();
    } else if (mode == "faults") {
      faults_mode();
    } else if (mode == "counts") {
      counts_mode();
    } else if (mode == "leak" && argc > 2) {
      leak_mode(std::atoi(argv[2]));
    } else {
      std::fprintf(stderr, "usage: %s self | isolation | threads | faults | counts | leak N\n", argv[0]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  const int status = tg_test::finish(("mpi.robustness." + mode).c_str());
  MPI_Finalize();
  return status;
}
