// SPDX-License-Identifier: BSD-3-Clause
// TG_Allgather_init and its requests: every message made once, then each
// TG_Start/TG_Wait runs it.
#include <memory>
#include <string>
#include <vector>

#include "api/call_path.hpp"
#include "api/decide.hpp"
#include "api/env.hpp"
#include "api/errors.hpp"
#include "api/report.hpp"
#include "api/validate.hpp"
#include "exec/executor.hpp"
#include "torusgather/torusgather.h"

/// A persistent allgather (TG_Allgather_init).
struct TG_Request_s {
  enum class Kind { local, vendor, schedule } kind = Kind::local;
  MPI_Comm comm = MPI_COMM_NULL;  ///< the user's (the vendor's calls)
  MPI_Comm own = MPI_COMM_NULL;   ///< a duplicate of the plan's: this request's messages alone
  int rank = 0;                   ///< in own: the torus rank
  torusgather::CallMemo call;
  const void* sendbuf = nullptr;
  int sendcount = 0;
  MPI_Datatype sendtype = MPI_DATATYPE_NULL;
  void* recvbuf = nullptr;
  std::unique_ptr<torusgather::Prepared> calls;  ///< bound to recvbuf, or to scratch
  std::vector<int> user_rank;  ///< a reordered torus: torus rank -> the user's rank
  std::vector<char> scratch;   ///< the reordered torus's blocks, in torus order
  MPI_Request vendor = MPI_REQUEST_NULL;
  bool active = false;

  char* base() { return scratch.data() - call.recv.true_lb; }
  ~TG_Request_s() {
    calls.reset();  // its datatypes before the communicator
    if (own != MPI_COMM_NULL) PMPI_Comm_free(&own);
  }
};

namespace torusgather {

namespace {

int allgather_init(bool handle, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, TG_Request* request) {
  auto raise = [handle](MPI_Comm c, int err) { return handle ? torusgather::raise(c, err) : err; };
  if (!request) return raise(comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm, MPI_ERR_ARG);
  *request = TG_REQUEST_NULL;
  if (comm == MPI_COMM_NULL) return raise(MPI_COMM_WORLD, MPI_ERR_COMM);
  std::string requested = environment().algorithm;
  if (info != MPI_INFO_NULL) {
    char value[128] = "";
    int flag = 0;
    PMPI_Info_get(info, "torusgather_algorithm", sizeof value - 1, value, &flag);
    if (flag) requested = value;
  }
  int rank = 0, size = 0, inter = 0;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  PMPI_Comm_test_inter(comm, &inter);
  if (!usable_name(requested, comm)) return raise(comm, MPI_ERR_ARG);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (recvcount < 0 || (!in_place && sendcount < 0)) return raise(comm, MPI_ERR_COUNT);
  if (recvtype == MPI_DATATYPE_NULL || (!in_place && sendtype == MPI_DATATYPE_NULL)) return raise(comm, MPI_ERR_TYPE);
  auto r = std::make_unique<TG_Request_s>();
  r->comm = comm;
  r->sendbuf = sendbuf;
  r->sendcount = sendcount;
  r->sendtype = sendtype;
  r->recvbuf = recvbuf;
  r->call.recvcount = recvcount;
  r->call.recvtype = recvtype;
  // The vendor's allgather runs as MPI_Iallgather at each start, under MPI
  // 4 too: MPICH 4.0.2's MPI_Allgather_init gave every later start the
  // first start's data.
  auto vendor = [&]() -> int {
    r->kind = TG_Request_s::Kind::vendor;
    *request = r.release();
    return MPI_SUCCESS;
  };
  if (inter || is_vendor(requested)) return vendor();
  if (recvcount == 0) {  // nothing to gather: start and wait do nothing
    *request = r.release();
    return MPI_SUCCESS;
  }
  Plan* plan = nullptr;
  int err = get_plan(comm, &plan);
  if (err != MPI_SUCCESS) return raise(comm, err);
  if ((err = check_buffers(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, size, plan->comm, &r->call.send,
                           &r->call.recv)) != MPI_SUCCESS)
    return raise(comm, err);
  const Schedule* schedule = nullptr;
  if (size > 1) {
    int type_size = 0;
    PMPI_Type_size(recvtype, &type_size);
    Choice c;
    if ((err = choose(*plan, requested, static_cast<long long>(recvcount) * type_size, Purpose::persistent, &c)) !=
        MPI_SUCCESS)
      return raise(comm, err);
    report_choice(*plan, "allgather_init", requested, c);
    schedule = c.schedule;
    if (!schedule || r->call.recv.extent <= 0) return vendor();  // extent <= 0: blocks that run backwards
  }
  fill_memo(&r->call, requested, sendbuf, sendcount, sendtype, recvcount, recvtype, schedule);
  if ((err = PMPI_Comm_dup(plan->comm, &r->own)) != MPI_SUCCESS) return raise(comm, err);
  r->rank = plan->rank;
  if (schedule) {
    r->kind = TG_Request_s::Kind::schedule;
    void* buf = recvbuf;
    if (!plan->user_rank.empty()) {
      r->user_rank = plan->user_rank;
      r->scratch.resize(scratch_bytes(size, r->call));
      buf = r->base();
    }
    const CallMemo& call = r->call;
    err = prepare(*schedule, r->own, call.bytes > 0 ? call.bytes : call.recvcount,
                  call.bytes > 0 ? MPI_BYTE : call.recvtype, &r->calls);
    if (err == MPI_SUCCESS) err = r->calls->bind(r->own, buf);
    // A rank that failed would leave the others waiting at the first start.
    if ((err = agree(r->own, err)) != MPI_SUCCESS) return raise(comm, err);
  }
  *request = r.release();
  return MPI_SUCCESS;
}

int start(TG_Request* request) {
  if (!request || !*request || (*request)->active) return MPI_ERR_REQUEST;
  TG_Request_s& r = **request;
  int err = MPI_SUCCESS;
  switch (r.kind) {
    case TG_Request_s::Kind::vendor:
      err = PMPI_Iallgather(r.sendbuf, r.sendcount, r.sendtype, r.recvbuf, r.call.recvcount, r.call.recvtype, r.comm,
                            &r.vendor);
      break;
    case TG_Request_s::Kind::local:
    case TG_Request_s::Kind::schedule: {
      if (r.own == MPI_COMM_NULL) break;  // count 0
      const MPI_Aint block = static_cast<MPI_Aint>(r.call.recvcount) * r.call.recv.extent;
      char* user = static_cast<char*>(r.recvbuf);
      char* slot = r.user_rank.empty() ? user + r.rank * block : r.base() + r.rank * block;
      const char* from = r.user_rank.empty() ? slot : user + r.user_rank[static_cast<std::size_t>(r.rank)] * block;
      err = copy_own(r.own, r.rank, r.call, r.sendbuf, r.sendcount, r.sendtype, from, slot);
      if (err == MPI_SUCCESS && r.calls) err = r.calls->start();
      break;
    }
  }
  if (err == MPI_SUCCESS) r.active = true;
  return err;
}

/// TG_Test (block false) and TG_Wait (block true).
int complete(TG_Request* request, bool block, int* flag) {
  if (!request || !*request) return MPI_ERR_REQUEST;
  TG_Request_s& r = **request;
  *flag = 1;
  if (!r.active) return MPI_SUCCESS;
  int err = MPI_SUCCESS;
  if (r.kind == TG_Request_s::Kind::vendor) {
    err = block ? PMPI_Wait(&r.vendor, MPI_STATUS_IGNORE) : PMPI_Test(&r.vendor, flag, MPI_STATUS_IGNORE);
  } else if (r.calls) {
    bool done = false;
    err = r.calls->progress(block, &done);
    *flag = done ? 1 : 0;
    if (err == MPI_SUCCESS && done && !r.user_rank.empty())
      err = copy_out(r.own, r.rank, r.user_rank, r.call, r.base(), static_cast<char*>(r.recvbuf));
  }
  if (err != MPI_SUCCESS || *flag) r.active = false;
  return err;
}

int request_free(TG_Request* request) {
  if (!request || !*request || (*request)->active) return MPI_ERR_REQUEST;
  delete *request;
  *request = TG_REQUEST_NULL;
  return MPI_SUCCESS;
}

/// TG_Allgather_init and its _noraise twin at the C ABI's edge.
int init_at_edge(bool handle, const char* routine, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                 TG_Request* request) noexcept {
  return guarded(handle, comm, routine, [&] {
    return allgather_init(handle, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request);
  });
}

}  // namespace
}  // namespace torusgather

extern "C" int TG_Allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                 TG_Request* request) {
  return torusgather::init_at_edge(true, "TG_Allgather_init", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                   recvtype, comm, info, request);
}

extern "C" int TG_Allgather_init_noraise(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                         int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                         TG_Request* request) {
  return torusgather::init_at_edge(false, "TG_Allgather_init_noraise", sendbuf, sendcount, sendtype, recvbuf,
                                   recvcount, recvtype, comm, info, request);
}

extern "C" int TG_Start(TG_Request* request) {
  return torusgather::guarded(false, MPI_COMM_NULL, "TG_Start", [&] { return torusgather::start(request); });
}

extern "C" int TG_Test(TG_Request* request, int* flag) {
  return torusgather::guarded(false, MPI_COMM_NULL, "TG_Test", [&] {
    if (!flag) return static_cast<int>(MPI_ERR_ARG);
    return torusgather::complete(request, false, flag);
  });
}

extern "C" int TG_Wait(TG_Request* request) {
  return torusgather::guarded(false, MPI_COMM_NULL, "TG_Wait", [&] {
    int done = 0;
    return torusgather::complete(request, true, &done);
  });
}

extern "C" int TG_Request_free(TG_Request* request) {
  return torusgather::guarded(false, MPI_COMM_NULL, "TG_Request_free",
                              [&] { return torusgather::request_free(request); });
}
