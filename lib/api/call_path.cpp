// SPDX-License-Identifier: BSD-3-Clause
#include "api/call_path.hpp"

#include <climits>
#include <cstring>
#include <memory>

#include "api/errors.hpp"
#include "api/validate.hpp"
#include "exec/executor.hpp"

namespace torusgather {

namespace {

/// Runs call.schedule on the plan's communicator into buf, as bytes where
/// the type is contiguous: from the plan's made calls where the type it
/// moves is predefined (a freed derived type's handle may come back as
/// another), else made for this call alone.
int run_schedule(const Plan& plan, const CallMemo& call, void* buf) {
#ifdef TORUSGATHER_SMPI
  constexpr bool keep = false;
#else
  constexpr bool keep = true;
#endif
  const int count = call.bytes > 0 ? call.bytes : call.recvcount;
  const MPI_Datatype type = call.bytes > 0 ? MPI_BYTE : call.recvtype;
  if (!keep || !is_named(type)) return execute(*call.schedule, plan.comm, buf, count, type);
  const bool traffic = traffic_only_mode();
  auto& list = plan.calls.prepared;
  for (auto it = list.begin(); it != list.end(); ++it)
    if (it->schedule == call.schedule && it->recvcount == count && it->recvtype == type &&
        it->traffic_only == traffic) {
      if (it != list.begin()) list.splice(list.begin(), list, it);
      return list.front().calls->run(plan.comm, buf);
    }
  std::unique_ptr<Prepared> calls;
  if (const int err = prepare(*call.schedule, plan.comm, count, type, &calls); err != MPI_SUCCESS) return err;
  const int err = calls->run(plan.comm, buf);
  if (calls->messages() <= CallCache::kPreparedMessages && calls->type_entries() <= CallCache::kPreparedEntries) {
    list.push_front({call.schedule, count, type, traffic, std::move(calls)});
    if (list.size() > CallCache::kPrepared) list.pop_back();
  }
  return err;
}

int run_permuted(const Plan& plan, const CallMemo& call, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                 void* recvbuf, MPI_Comm comm) {
  if (call.recv.extent <= 0)  // blocks that run backwards: rare enough for the vendor
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, call.recvcount, call.recvtype, comm);
  const MPI_Aint block = static_cast<MPI_Aint>(call.recvcount) * call.recv.extent;
  plan.calls.permuted_scratch.resize(scratch_bytes(plan.size, call));
  char* base = plan.calls.permuted_scratch.data() - call.recv.true_lb;
  char* user = static_cast<char*>(recvbuf);
  const int me = plan.user_rank[static_cast<std::size_t>(plan.rank)];
  int err = copy_own(plan.comm, plan.rank, call, sendbuf, sendcount, sendtype, user + me * block, base + plan.rank * block);
  if (err == MPI_SUCCESS) err = run_schedule(plan, call, base);
  if (err != MPI_SUCCESS) return err;
  return copy_out(plan.comm, plan.rank, plan.user_rank, call, base, user);
}

}  // namespace

int copy_own(MPI_Comm comm, int rank, const CallMemo& call, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
             const char* in_place_from, char* to) {
  const auto bytes = static_cast<std::size_t>(call.recvcount) * static_cast<std::size_t>(call.recv.extent);
  if (call.in_place) {
    if (in_place_from == to) return MPI_SUCCESS;
    if (call.contiguous) {
      std::memcpy(to, in_place_from, bytes);
      return MPI_SUCCESS;
    }
    return PMPI_Sendrecv(in_place_from, call.recvcount, call.recvtype, rank, kSelfCopyTag, to, call.recvcount,
                         call.recvtype, rank, kSelfCopyTag, comm, MPI_STATUS_IGNORE);
  }
  if (call.memcpy_own) {
    std::memcpy(to, sendbuf, bytes);
    return MPI_SUCCESS;
  }
  return PMPI_Sendrecv(sendbuf, sendcount, sendtype, rank, kSelfCopyTag, to, call.recvcount, call.recvtype, rank,
                       kSelfCopyTag, comm, MPI_STATUS_IGNORE);
}

std::size_t scratch_bytes(long long p, const CallMemo& call) {
  return static_cast<std::size_t>(static_cast<MPI_Aint>(p * call.recvcount - 1) * call.recv.extent +
                                  call.recv.true_extent);
}

int copy_out(MPI_Comm comm, int rank, const std::vector<int>& user_rank, const CallMemo& call, const char* base,
             char* user) {
  const MPI_Aint block = static_cast<MPI_Aint>(call.recvcount) * call.recv.extent;
  const auto p = static_cast<long long>(user_rank.size());
  if (call.contiguous) {
    for (long long t = 0; t < p; ++t)
      if (!(call.in_place && t == rank))
        std::memcpy(user + user_rank[static_cast<std::size_t>(t)] * block, base + t * block,
                    static_cast<std::size_t>(block));
    return MPI_SUCCESS;
  }
  std::vector<MPI_Aint> from, to;
  for (long long t = 0; t < p; ++t)
    if (!(call.in_place && t == rank)) {
      from.push_back(t * block);
      to.push_back(user_rank[static_cast<std::size_t>(t)] * block);
    }
  MPI_Datatype from_type = MPI_DATATYPE_NULL, to_type = MPI_DATATYPE_NULL;
  const int n = static_cast<int>(from.size());
  int err = PMPI_Type_create_hindexed_block(n, call.recvcount, from.data(), call.recvtype, &from_type);
  if (err == MPI_SUCCESS) err = PMPI_Type_create_hindexed_block(n, call.recvcount, to.data(), call.recvtype, &to_type);
  if (err == MPI_SUCCESS) err = PMPI_Type_commit(&from_type);
  if (err == MPI_SUCCESS) err = PMPI_Type_commit(&to_type);
  if (err == MPI_SUCCESS)
    err = PMPI_Sendrecv(base, 1, from_type, rank, kSelfCopyTag, user, 1, to_type, rank, kSelfCopyTag, comm,
                        MPI_STATUS_IGNORE);
  if (from_type != MPI_DATATYPE_NULL) PMPI_Type_free(&from_type);
  if (to_type != MPI_DATATYPE_NULL) PMPI_Type_free(&to_type);
  return err;
}

int run_decided(bool handle, const Plan& plan, const CallMemo& call, const void* sendbuf, int sendcount,
                MPI_Datatype sendtype, void* recvbuf, MPI_Comm comm) {
  auto raise = [handle](MPI_Comm c, int err) { return handle ? torusgather::raise(c, err) : err; };
  if (!call.schedule && plan.size > 1)
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, call.recvcount, call.recvtype, comm);
  if (call.schedule && !plan.user_rank.empty())
    return raise(comm, run_permuted(plan, call, sendbuf, sendcount, sendtype, recvbuf, comm));
  char* own = static_cast<char*>(recvbuf) + static_cast<MPI_Aint>(plan.rank) * call.recvcount * call.recv.extent;
  if (const int err = copy_own(plan.comm, plan.rank, call, sendbuf, sendcount, sendtype, own, own); err != MPI_SUCCESS)
    return raise(comm, err);
  if (!call.schedule) return MPI_SUCCESS;  // one rank
  return raise(comm, run_schedule(plan, call, recvbuf));
}

int run_repeated(bool handle, const Plan& plan, const CallMemo& m, const void* sendbuf, int sendcount,
                 MPI_Datatype sendtype, void* recvbuf, MPI_Comm comm) {
  if (!buffers_fit(plan, m, sendbuf, recvbuf)) return handle ? raise(comm, MPI_ERR_BUFFER) : MPI_ERR_BUFFER;
  return run_decided(handle, plan, m, sendbuf, sendcount, sendtype, recvbuf, comm);
}

void fill_memo(CallMemo* call, const std::string& requested, const void* sendbuf, int sendcount,
               MPI_Datatype sendtype, int recvcount, MPI_Datatype recvtype, const Schedule* schedule) {
  const bool in_place = sendbuf == MPI_IN_PLACE;
  call->requested = requested;
  call->in_place = in_place;
  call->sendcount = in_place ? 0 : sendcount;
  call->sendtype = in_place ? MPI_DATATYPE_NULL : sendtype;
  call->recvcount = recvcount;
  call->recvtype = recvtype;
  call->contiguous = is_contiguous(recvtype);
  call->memcpy_own = !in_place && sendtype == recvtype && sendcount == recvcount && call->contiguous;
  if (call->contiguous && static_cast<long long>(recvcount) * call->recv.extent <= INT_MAX)
    call->bytes = static_cast<int>(static_cast<long long>(recvcount) * call->recv.extent);
  call->schedule = schedule;
  call->hand_off = schedule == nullptr;
  call->valid = true;
}

}  // namespace torusgather
