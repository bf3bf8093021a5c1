// SPDX-License-Identifier: BSD-3-Clause
// TG_Allgatherv: every block of its own size and place, on the schedules
// chosen as for an allgather of the largest block.
#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>
#include <string>

#include "api/decide.hpp"
#include "api/env.hpp"
#include "api/errors.hpp"
#include "api/learning.hpp"
#include "api/report.hpp"
#include "api/validate.hpp"
#include "exec/executor.hpp"
#include "torusgather/torusgather.h"

namespace torusgather {

namespace {

/// Runs an Allgatherv's schedule: every block at its owner's displacement
/// (torus rank t's block is the user's rank user_rank[t]'s, so a reordered
/// torus needs no scratch buffer), moved as bytes where the type is
/// contiguous. The calls are kept for the last kPreparedV (counts,
/// displacements) seen, as a program's repeated calls with the same layout
/// repeat them; comparing the tables costs O(P), as the caller's do.
int run_schedule_v(const Plan& plan, const Schedule& schedule, const int* recvcounts, const int* displs,
                   MPI_Datatype recvtype, const Layout& recv, void* recvbuf) {
#ifdef TORUSGATHER_SMPI
  constexpr bool keep = false;
#else
  constexpr bool keep = true;
#endif
  const auto p = static_cast<std::size_t>(plan.size);
  bool as_bytes = is_contiguous(recvtype);
  for (std::size_t u = 0; u < p && as_bytes; ++u)
    as_bytes = static_cast<long long>(recvcounts[u]) * recv.extent <= INT_MAX;
  VarBlocks blocks;
  blocks.counts.resize(p);
  blocks.displs.resize(p);
  for (std::size_t t = 0; t < p; ++t) {
    const std::size_t u = plan.user_rank.empty() ? t : static_cast<std::size_t>(plan.user_rank[t]);
    blocks.counts[t] = as_bytes ? static_cast<int>(recvcounts[u] * recv.extent) : recvcounts[u];
    blocks.displs[t] = static_cast<MPI_Aint>(displs[u]) * recv.extent;
  }
  const MPI_Datatype type = as_bytes ? MPI_BYTE : recvtype;
  auto& list = plan.calls.prepared_v;
  if (keep && is_named(type))
    for (auto it = list.begin(); it != list.end(); ++it)
      if (it->schedule == &schedule && it->type == type && it->blocks.counts == blocks.counts &&
          it->blocks.displs == blocks.displs) {
        if (it != list.begin()) list.splice(list.begin(), list, it);
        return list.front().calls->run(plan.comm, recvbuf);
      }
  std::unique_ptr<Prepared> calls;
  if (const int err = prepare_v(schedule, plan.comm, blocks, type, &calls); err != MPI_SUCCESS) return err;
  const int err = calls->run(plan.comm, recvbuf);
  if (keep && is_named(type)) {
    list.push_front({&schedule, type, std::move(blocks), std::move(calls)});
    if (list.size() > CallCache::kPreparedV) list.pop_back();
  }
  return err;
}

/// MPI_Allgatherv on the plan's schedules, every block of its own size and
/// place. The algorithm is chosen (auto, TORUSGATHER_TUNE, a forced one) as
/// for an allgather of the largest block: every schedule moves each block
/// along the same paths whatever its size, so the largest bounds the time,
/// and the vendor's allgatherv is priced alike. Errors as allgather().
int allgatherv(bool handle, const char* algorithm, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
               void* recvbuf, const int* recvcounts, const int* displs, MPI_Datatype recvtype, MPI_Comm comm) {
  auto raise = [handle](MPI_Comm c, int err) { return handle ? torusgather::raise(c, err) : err; };
  if (comm == MPI_COMM_NULL) return raise(MPI_COMM_WORLD, MPI_ERR_COMM);
  auto vendor = [&] { return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm); };
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) return vendor();
  const std::string requested = algorithm ? algorithm : environment().algorithm;
  if (!usable_name(requested, comm)) return raise(comm, MPI_ERR_ARG);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (!recvcounts || !displs) return raise(comm, MPI_ERR_ARG);
  int size = 0, rank = 0;
  PMPI_Comm_size(comm, &size);
  PMPI_Comm_rank(comm, &rank);
  if (!in_place && sendcount < 0) return raise(comm, MPI_ERR_COUNT);
  long long total = 0;
  int largest = 0;
  for (int u = 0; u < size; ++u) {
    if (recvcounts[u] < 0) return raise(comm, MPI_ERR_COUNT);
    total += recvcounts[u];
    largest = std::max(largest, recvcounts[u]);
  }
  if (recvtype == MPI_DATATYPE_NULL || (!in_place && sendtype == MPI_DATATYPE_NULL)) return raise(comm, MPI_ERR_TYPE);
  if (is_vendor(requested)) return vendor();
  if (total == 0) return MPI_SUCCESS;  // nothing to gather (every send signature is empty too)

  Plan* plan = nullptr;
  int err = get_plan(comm, &plan);
  if (err != MPI_SUCCESS) return raise(comm, err);
  Layout send, recv;
  if ((err = check_buffers_v(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, size, rank,
                             plan->comm, &send, &recv)) != MPI_SUCCESS)
    return raise(comm, err);
  int rsize = 0;
  PMPI_Type_size(recvtype, &rsize);
  if (recv.extent <= 0) return vendor();  // blocks that run backwards: rare enough for the vendor

  Choice c;
  if (size > 1) {
    // Every rank has the same counts, so the same largest block, size class
    // and trial sequence: auto times allgatherv calls as allgather calls.
    const long long block_bytes = static_cast<long long>(largest) * rsize;
    if ((err = choose(*plan, requested, block_bytes, Purpose::call, &c)) != MPI_SUCCESS) return raise(comm, err);
    report_choice(*plan, "allgatherv", requested, c, block_bytes);
  }
  const Schedule* schedule = c.schedule;
  const long trial = c.trial_class;
  double t0 = 0;
  if (trial != kNoTrial && (err = trial_start(*plan, &t0)) != MPI_SUCCESS) return raise(comm, err);
  const bool timed_wait = c.waiting && time_waiting_call(*plan);
  if (timed_wait) t0 = PMPI_Wtime();
  // A timed trial's time is recorded (collectively on its last call); a
  // call while auto waits to learn is counted (collectively at check points).
  auto recorded = [&](int result) {
    if (trial == kNoTrial && !c.waiting) return result;
    const int e = c.waiting ? count_waiting_call(*plan, timed_wait ? PMPI_Wtime() - t0 : -1)
                            : record_trial(*plan, trial, PMPI_Wtime() - t0);
    return result != MPI_SUCCESS ? result : raise(comm, e);
  };
  if (size > 1 && !schedule) return recorded(vendor());
  char* own = static_cast<char*>(recvbuf) + static_cast<MPI_Aint>(displs[rank]) * recv.extent;
  if (!in_place) {
    if (sendtype == recvtype && sendcount == recvcounts[rank] && is_contiguous(recvtype))
      std::memcpy(own, sendbuf, static_cast<std::size_t>(sendcount) * static_cast<std::size_t>(recv.extent));
    else if ((err = PMPI_Sendrecv(sendbuf, sendcount, sendtype, plan->rank, kSelfCopyTag, own, recvcounts[rank],
                                  recvtype, plan->rank, kSelfCopyTag, plan->comm, MPI_STATUS_IGNORE)) != MPI_SUCCESS)
      return raise(comm, err);
  }
  if (!schedule) return MPI_SUCCESS;  // one rank
  return recorded(raise(comm, run_schedule_v(*plan, *schedule, recvcounts, displs, recvtype, recv, recvbuf)));
}

}  // namespace
}  // namespace torusgather

extern "C" int TG_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                             const int* recvcounts, const int* displs, MPI_Datatype recvtype, MPI_Comm comm) {
  return torusgather::guarded(true, comm, "TG_Allgatherv", [&] {
    return torusgather::allgatherv(true, nullptr, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                                   comm);
  });
}

extern "C" int TG_Allgatherv_noraise(const char* algorithm, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                     void* recvbuf, const int* recvcounts, const int* displs, MPI_Datatype recvtype,
                                     MPI_Comm comm) {
  return torusgather::guarded(false, comm, "TG_Allgatherv_noraise", [&] {
    return torusgather::allgatherv(false, algorithm, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                   recvtype, comm);
  });
}

extern "C" int TG_Allgatherv_algorithm(const char* algorithm, const void* sendbuf, int sendcount,
                                       MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* displs,
                                       MPI_Datatype recvtype, MPI_Comm comm) {
  return torusgather::guarded(true, comm, "TG_Allgatherv_algorithm", [&] {
    return torusgather::allgatherv(true, algorithm, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                   recvtype, comm);
  });
}
