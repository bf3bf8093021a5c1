// SPDX-License-Identifier: BSD-3-Clause
// TG_Allgather: the checks, the decision, and the call path, with the
// decisions of repeated calls memoised.
#include <cstdio>
#include <mutex>
#include <string>

#include "api/call_path.hpp"
#include "api/decide.hpp"
#include "api/env.hpp"
#include "api/errors.hpp"
#include "api/learning.hpp"
#include "api/report.hpp"
#include "api/validate.hpp"
#include "schedule/registry.hpp"
#include "torusgather/torusgather.h"

namespace torusgather {

namespace {

/// A repeated call that auto or a name hands to the vendor, with buffers
/// that pass the checks: straight to it, outside the allgather's frame, so
/// that it adds a few loads and compares (while auto waits to learn: and a
/// count, unless the call is one that is timed or agreed on).
inline bool handed_off(const char* algorithm, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                       void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, int* err) {
  Plan* known = comm == MPI_COMM_NULL ? nullptr : find_plan(comm);
  if (!known) return false;
  const CallMemo* m = repeated_call(*known, algorithm, sendbuf, sendcount, sendtype, recvcount, recvtype);
  if (!m || !m->hand_off || !buffers_fit(*known, *m, sendbuf, recvbuf)) return false;
  if (m->waiting && !count_plain_waiting_call(*known)) return false;  // timed or a check point
  *err = PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  return true;
}

/// A call auto hands to the vendor while it waits to learn: run, timed
/// where sampled, and counted toward the wait (api/learning.hpp).
template <typename Run>
int counted(bool handle, Plan& plan, MPI_Comm comm, Run run) {
  const bool timed = time_waiting_call(plan);
  const double t0 = timed ? PMPI_Wtime() : 0;
  const int err = run();
  const int e = count_waiting_call(plan, timed ? PMPI_Wtime() - t0 : -1);
  if (err != MPI_SUCCESS) return err;
  return e == MPI_SUCCESS || !handle ? e : raise(comm, e);
}

/// The allgather; errors are returned, or also raised through the error
/// handler (of comm, or of MPI_COMM_WORLD for MPI_COMM_NULL) if `handle`.
int allgather(bool handle, const char* algorithm, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
              void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  auto raise = [handle](MPI_Comm c, int err) { return handle ? torusgather::raise(c, err) : err; };
  if (comm == MPI_COMM_NULL) return raise(MPI_COMM_WORLD, MPI_ERR_COMM);
  // Plans exist for intracommunicators only, whose calls reached the end of
  // the checks below with these arguments before. The path of a repeated
  // call is kept short: where auto hands calls to the vendor, every
  // instruction here is added to the vendor's time.
  if (Plan* known = find_plan(comm))
    if (const CallMemo* m = repeated_call(*known, algorithm, sendbuf, sendcount, sendtype, recvcount, recvtype)) {
      if (!m->waiting) return run_repeated(handle, *known, *m, sendbuf, sendcount, sendtype, recvbuf, comm);
      return counted(handle, *known, comm,
                     [&] { return run_repeated(handle, *known, *m, sendbuf, sendcount, sendtype, recvbuf, comm); });
    }
  const char* asked = algorithm ? algorithm : environment().algorithm.c_str();
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);

  const std::string requested = asked;
  if (!known_name(requested)) {
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    if (rank == 0)
      std::fprintf(stderr, "torusgather: unknown algorithm '%s' (known: auto, vendor, %s)\n", requested.c_str(),
                   algorithm_names().c_str());
    return raise(comm, MPI_ERR_ARG);
  }
  if (requested == kAuto && !environment().tune_error.empty()) {
    // Every process says it, once: the first to reach a fatal error handler
    // may take the others down before rank 0 has printed anything (MPICH).
    static std::once_flag said;
    std::call_once(said, [] {
      std::fprintf(stderr, "torusgather: TORUSGATHER_TUNE: %s\n", environment().tune_error.c_str());
    });
    return raise(comm, MPI_ERR_ARG);
  }
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (recvcount < 0 || (!in_place && sendcount < 0)) return raise(comm, MPI_ERR_COUNT);
  if (recvtype == MPI_DATATYPE_NULL || (!in_place && sendtype == MPI_DATATYPE_NULL)) return raise(comm, MPI_ERR_TYPE);
  if (is_vendor(requested))
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);

  int size = 0, rank = 0;
  PMPI_Comm_size(comm, &size);
  PMPI_Comm_rank(comm, &rank);
  if (recvcount == 0) return MPI_SUCCESS;  // nothing to gather (the send signature is empty too)

  Plan* plan = nullptr;
  int err = get_plan(comm, &plan);
  if (err != MPI_SUCCESS) return raise(comm, err);

  CallMemo call;
  if ((err = check_buffers(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, size, plan->comm, &call.send,
                           &call.recv)) != MPI_SUCCESS)
    return raise(comm, err);

  Choice c;
  if (size > 1) {
    int type_size = 0;
    PMPI_Type_size(recvtype, &type_size);
    const long long block_bytes = static_cast<long long>(recvcount) * type_size;
    if ((err = choose(*plan, requested, block_bytes, Purpose::call, &c)) != MPI_SUCCESS) return raise(comm, err);
    report_choice(*plan, "allgather", requested, c);
  }

  fill_memo(&call, requested, sendbuf, sendcount, sendtype, recvcount, recvtype, c.schedule);
  call.from_environment = algorithm == nullptr;
  call.waiting = c.waiting;
  if (c.trial_class != kNoTrial) {
    // One of auto's timed trials: no memo, so the next call takes the next candidate.
    double t0 = 0;
    if ((err = trial_start(*plan, &t0)) != MPI_SUCCESS) return raise(comm, err);
    err = run_decided(handle, *plan, call, sendbuf, sendcount, sendtype, recvbuf, comm);
    const int e = record_trial(*plan, c.trial_class, PMPI_Wtime() - t0);
    return err != MPI_SUCCESS ? err : raise(comm, e);
  }
  if (size > 1 && is_named(recvtype) && (in_place || is_named(sendtype))) {
    plan->calls.memos[plan->calls.next_memo] = call;
    plan->calls.next_memo = (plan->calls.next_memo + 1) % CallCache::kMemos;
  }
  if (!c.waiting) return run_decided(handle, *plan, call, sendbuf, sendcount, sendtype, recvbuf, comm);
  return counted(handle, *plan, comm,
                 [&] { return run_decided(handle, *plan, call, sendbuf, sendcount, sendtype, recvbuf, comm); });
}

}  // namespace
}  // namespace torusgather

extern "C" int TG_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm) {
  int err = MPI_SUCCESS;
  if (torusgather::handed_off(nullptr, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &err)) return err;
  return torusgather::guarded(true, comm, "TG_Allgather", [&] {
    return torusgather::allgather(true, nullptr, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  });
}

extern "C" int TG_Allgather_algorithm(const char* algorithm, const void* sendbuf, int sendcount,
                                      MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                      MPI_Comm comm) {
  int err = MPI_SUCCESS;
  if (torusgather::handed_off(algorithm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &err))
    return err;
  return torusgather::guarded(true, comm, "TG_Allgather_algorithm", [&] {
    return torusgather::allgather(true, algorithm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  });
}

extern "C" int TG_Allgather_noraise(const char* algorithm, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                    void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  int err = MPI_SUCCESS;
  if (torusgather::handed_off(algorithm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &err))
    return err;
  return torusgather::guarded(false, comm, "TG_Allgather_noraise", [&] {
    return torusgather::allgather(false, algorithm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  });
}
