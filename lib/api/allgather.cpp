// TG_Allgather: argument checks, the per-communicator plan, the choice of
// algorithm, the local copy of the own block, and the executor.
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <utility>

#include "api/plan.hpp"
#include "exec/executor.hpp"
#include "schedule/bridgehead.hpp"
#include "schedule/registry.hpp"
#include "torusgather/torusgather.h"

namespace torusgather {
namespace {

constexpr int kSelfCopyTag = 32000;  // below the MPI minimum of MPI_TAG_UB (32767)

/// Environment parameters, read once (as NCCL's param.h does).
struct Environment {
  std::string algorithm = "auto";
  bool verbose = false;
  /// The start-up α (seconds) and bandwidth 1/β (bytes/s) of the cost model
  /// r = α/(sβ); defaults: the simulated platform of the benchmarks (1 µs,
  /// 10 GB/s). Unparsable or non-positive values keep the defaults.
  double alpha = 1e-6;
  double bandwidth = 1e10;
  std::string bridgehead;  ///< TORUSGATHER_BRIDGEHEAD: a,b,k[;a,b,k...]
  Environment() {
    if (const char* a = std::getenv("TORUSGATHER_ALGORITHM"); a && *a) algorithm = a;
    if (const char* v = std::getenv("TORUSGATHER_VERBOSE"); v && *v && std::strcmp(v, "0") != 0) verbose = true;
    positive("TORUSGATHER_ALPHA", &alpha);
    positive("TORUSGATHER_BANDWIDTH", &bandwidth);
    if (const char* b = std::getenv("TORUSGATHER_BRIDGEHEAD"); b && *b) bridgehead = b;
  }
  static void positive(const char* name, double* value) {
    const char* text = std::getenv(name);
    if (!text || !*text) return;
    char* end = nullptr;
    const double v = std::strtod(text, &end);
    if (end != text && *end == '\0' && v > 0 && std::isfinite(v)) *value = v;
  }
};
const Environment& environment() {
  static const Environment env;
  return env;
}

/// Raises err through comm's error handler, as MPI_Allgather would, and
/// returns it (reached only when the handler returns).
int raise(MPI_Comm comm, int err) {
  if (err == MPI_SUCCESS) return err;
  // SimGrid 3.32's MPI_Comm_call_errhandler crashes on MPI_ERRORS_RETURN and
  // reports its default handler as MPI_ERRHANDLER_NULL: handle both here.
  MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
  MPI_Comm_get_errhandler(comm, &handler);
  if (handler == MPI_ERRORS_RETURN) {
#ifndef SMPI_SHARED_MALLOC  // SimGrid hands out the predefined handler itself
    MPI_Errhandler_free(&handler);
#endif
    return err;
  }
  if (handler == MPI_ERRHANDLER_NULL) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(err, text, &len);
    std::fprintf(stderr, "torusgather: TG_Allgather: %s\n", text);
    MPI_Abort(comm, err);
    return err;
  }
  MPI_Errhandler_free(&handler);
  MPI_Comm_call_errhandler(comm, err);
  return err;
}

int g_committed_keyval = MPI_KEYVAL_INVALID;

/// Whether a derived datatype is committed. MPI has no query for it, so ask
/// the MPI with local zero-count operations that must refuse an uncommitted
/// type: MPI_Pack (Open MPI and MPICH refuse; MPICH accepts a zero-count
/// send-receive and then leaks a reference to the type, so Pack goes first),
/// then a send-receive to self (refused by Open MPI and SimGrid SMPI, whose
/// MPI_Pack aborts instead). A committed type stays
/// committed, so the answer is cached on the type in an attribute.
int check_committed(MPI_Datatype t, MPI_Comm priv) {
  int ni = 0, na = 0, nd = 0, combiner = MPI_COMBINER_NAMED;
  MPI_Type_get_envelope(t, &ni, &na, &nd, &combiner);
  if (combiner == MPI_COMBINER_NAMED) return MPI_SUCCESS;  // predefined types are committed
  // Created once, thread-safely (MPI_THREAD_MULTIPLE), freed at MPI_Finalize.
  static std::once_flag once;
  std::call_once(once, [] {
    MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &g_committed_keyval, nullptr);
    at_finalize([] { MPI_Type_free_keyval(&g_committed_keyval); });
  });
  const int keyval = g_committed_keyval;
  void* value = nullptr;
  int found = 0;
  MPI_Type_get_attr(t, keyval, &value, &found);
  if (found) return MPI_SUCCESS;
  int rank = 0;
  MPI_Comm_rank(priv, &rank);
  char dummy = 0;
#ifndef SMPI_SHARED_MALLOC  // SimGrid SMPI's MPI_Pack aborts on an uncommitted type
  char packed = 0;
  int position = 0;
  if (MPI_Pack(&dummy, 0, t, &packed, 1, &position, priv) != MPI_SUCCESS) return MPI_ERR_TYPE;
#endif
  if (MPI_Sendrecv(&dummy, 0, t, rank, kSelfCopyTag, &dummy, 0, t, rank, kSelfCopyTag, priv, MPI_STATUS_IGNORE) !=
      MPI_SUCCESS)
    return MPI_ERR_TYPE;
  MPI_Type_set_attr(t, keyval, reinterpret_cast<void*>(1));
  return MPI_SUCCESS;
}

/// The bytes [first, last) that count elements of t touch from buf.
std::pair<const char*, const char*> span(const void* buf, long long count, MPI_Datatype t) {
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  MPI_Type_get_extent(t, &lb, &extent);
  MPI_Type_get_true_extent(t, &true_lb, &true_extent);
  const char* first = static_cast<const char*>(buf) + true_lb;
  return {first, first + (count - 1) * extent + true_extent};
}

/// The checks of MPI_Allgather's arguments that need the plan (committed
/// types) or the data layout; all are local to this rank, as in MPI
/// libraries, and programs pass the same bad arguments on every rank.
int check_buffers(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, int size, MPI_Comm priv) {
  const bool in_place = sendbuf == MPI_IN_PLACE;
  int err = check_committed(recvtype, priv);
  if (err == MPI_SUCCESS && !in_place) err = check_committed(sendtype, priv);
  if (err != MPI_SUCCESS) return err;
  // A null buffer is only legal as MPI_BOTTOM, with absolute addresses in
  // the type (a true lower bound other than 0).
  auto null_buffer = [](const void* buf, int count, MPI_Datatype t) {
    MPI_Aint true_lb = 0, true_extent = 0;
    MPI_Type_get_true_extent(t, &true_lb, &true_extent);
    return buf == nullptr && count > 0 && true_lb == 0;
  };
  if (null_buffer(recvbuf, recvcount, recvtype) || (!in_place && null_buffer(sendbuf, sendcount, sendtype)))
    return MPI_ERR_BUFFER;
  if (in_place) return MPI_SUCCESS;
  // Every rank receives from this one recvcount elements of recvtype: the
  // type signatures must carry the same number of bytes.
  int ssize = 0, rsize = 0;
  MPI_Type_size(sendtype, &ssize);
  MPI_Type_size(recvtype, &rsize);
  const long long sbytes = static_cast<long long>(sendcount) * ssize, rbytes = static_cast<long long>(recvcount) * rsize;
  if (sbytes > rbytes) return MPI_ERR_TRUNCATE;
  if (sbytes < rbytes) return MPI_ERR_ARG;
  // Send and receive buffers may not overlap unless MPI_IN_PLACE is used.
  if (sendcount > 0) {
    const auto s = span(sendbuf, sendcount, sendtype);
    const auto r = span(recvbuf, static_cast<long long>(recvcount) * size, recvtype);
    if (s.first < r.second && r.first < s.second) return MPI_ERR_BUFFER;
  }
  return MPI_SUCCESS;
}

/// True if count elements of t are count*extent contiguous bytes from the buffer start.
bool is_contiguous(MPI_Datatype t) {
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  int size = 0;
  MPI_Type_get_extent(t, &lb, &extent);
  MPI_Type_get_true_extent(t, &true_lb, &true_extent);
  MPI_Type_size(t, &size);
  return lb == 0 && true_lb == 0 && size == extent && true_extent == extent;
}

bool known_name(const std::string& name) {
  return name == "auto" || name == "vendor" || find_algorithm(name) != nullptr;
}

/// `bridgehead` for blocks of `block_bytes`: a, b, k from
/// TORUSGATHER_BRIDGEHEAD, else those minimising the cost formula at r =
/// α/(sβ), with r rounded to a power of 2 so that a few schedules serve all
/// block sizes (every rank rounds the same r: the type signature's size is
/// the same on all ranks). Looked up per call by log2 r alone; schedules
/// are built once per parameter set.
const Schedule* bridgehead_of(Plan& plan, long long block_bytes, std::string* why) {
  const Environment& env = environment();
  const double r = env.alpha * env.bandwidth / static_cast<double>(std::max(1LL, block_bytes));
  const long bucket = env.bridgehead.empty() ? std::lround(std::log2(r)) : LONG_MIN;
  if (auto it = plan.bridgehead_by_r.find(bucket); it != plan.bridgehead_by_r.end()) return it->second;
  std::vector<RingParams> params;
  if (!env.bridgehead.empty()) {
    if (!BridgeheadSchedule::parse(env.bridgehead, plan.torus, &params, why)) return nullptr;
  } else {
    params = BridgeheadSchedule::best(plan.torus, std::exp2(static_cast<double>(bucket)));
  }
  const std::string key = "bridgehead " + BridgeheadSchedule::to_string(params);
  const Schedule* s = nullptr;
  if (auto it = plan.schedules.find(key); it != plan.schedules.end()) {
    s = it->second.get();
  } else {
    if (*why = BridgeheadSchedule::not_applicable(plan.torus); !why->empty()) return nullptr;
    s = (plan.schedules[key] = std::make_unique<BridgeheadSchedule>(plan.torus, params)).get();
  }
  return plan.bridgehead_by_r[bucket] = s;
}

/// The schedule named `name` on this plan's torus, built once and cached;
/// nullptr (and the reason in *why) if the algorithm declines the shape.
const Schedule* schedule_of(Plan& plan, const std::string& name, std::string* why) {
  if (auto it = plan.schedules.find(name); it != plan.schedules.end()) return it->second.get();
  if (auto it = plan.declined.find(name); it != plan.declined.end()) {
    *why = it->second;
    return nullptr;
  }
  auto schedule = try_build(*find_algorithm(name), plan.torus, why);
  if (!schedule) {
    plan.declined[name] = *why;
    return nullptr;
  }
  return (plan.schedules[name] = std::move(schedule)).get();
}

/// What runs for `requested`: its schedule, or nullptr for the vendor's
/// allgather; *chosen names it, *note says why it differs from the request.
/// auto: hamiltonian where a decomposition exists, else dim-rings (the
/// cost-model selector is a later stage). A forced algorithm that declines
/// the shape falls back to dim-rings, which applies to every shape.
const Schedule* choose(Plan& plan, const std::string& requested, long long block_bytes, std::string* chosen,
                       std::string* note) {
  *chosen = requested;
  if (requested == "vendor") return nullptr;
  const std::string first = requested == "auto" ? "hamiltonian" : requested;
  std::string why;
  const Schedule* s = first == "bridgehead" ? bridgehead_of(plan, block_bytes, &why) : schedule_of(plan, first, &why);
  if (s) {
    *chosen = first;
    return s;
  }
  *note = first + " does not apply: " + why;
  *chosen = "dim-rings";
  return schedule_of(plan, "dim-rings", &why);
}

/// The allgather; errors are returned, or also raised through the error
/// handler (of comm, or of MPI_COMM_WORLD for MPI_COMM_NULL) if `handle`.
int allgather(bool handle, const char* algorithm, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
              void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  auto raise = [handle](MPI_Comm c, int err) { return handle ? torusgather::raise(c, err) : err; };
  if (comm == MPI_COMM_NULL) return raise(MPI_COMM_WORLD, MPI_ERR_COMM);
  int inter = 0;
  MPI_Comm_test_inter(comm, &inter);
  if (inter) return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);

  const std::string requested = algorithm ? algorithm : environment().algorithm;
  if (!known_name(requested)) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0)
      std::fprintf(stderr, "torusgather: unknown algorithm '%s' (known: auto, vendor, %s)\n", requested.c_str(),
                   algorithm_names().c_str());
    return raise(comm, MPI_ERR_ARG);
  }
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (recvcount < 0 || (!in_place && sendcount < 0)) return raise(comm, MPI_ERR_COUNT);
  if (recvtype == MPI_DATATYPE_NULL || (!in_place && sendtype == MPI_DATATYPE_NULL)) return raise(comm, MPI_ERR_TYPE);
  if (requested == "vendor")
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);

  int size = 0, rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  if (recvcount == 0) return MPI_SUCCESS;  // nothing to gather (the send signature is empty too)

  Plan* plan = nullptr;
  int err = get_plan(comm, &plan);
  if (err != MPI_SUCCESS) return raise(comm, err);

  if ((err = check_buffers(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, size, plan->comm)) !=
      MPI_SUCCESS)
    return raise(comm, err);

  MPI_Aint lb = 0, extent = 0;
  MPI_Type_get_extent(recvtype, &lb, &extent);
  char* own = static_cast<char*>(recvbuf) + static_cast<MPI_Aint>(rank) * recvcount * extent;
  if (!in_place && sendtype == recvtype && sendcount == recvcount && is_contiguous(recvtype)) {
    std::memcpy(own, static_cast<const char*>(sendbuf), static_cast<std::size_t>(recvcount) * extent);
  } else if (!in_place) {
    // Through MPI so that any pair of datatypes with matching signatures works.
    err = MPI_Sendrecv(sendbuf, sendcount, sendtype, rank, kSelfCopyTag, own, recvcount, recvtype, rank,
                       kSelfCopyTag, plan->comm, MPI_STATUS_IGNORE);
    if (err != MPI_SUCCESS) return raise(comm, err);
  }
  if (size == 1) return MPI_SUCCESS;

  std::string note, chosen;
  int type_size = 0;
  MPI_Type_size(recvtype, &type_size);
  const Schedule* schedule = choose(*plan, requested, static_cast<long long>(recvcount) * type_size, &chosen, &note);
  // bridgehead's a, b, k depend on the block size: name them.
  if (environment().verbose && chosen == "bridgehead")
    chosen += " (" + BridgeheadSchedule::to_string(static_cast<const BridgeheadSchedule*>(schedule)->params()) + ")";
  if (environment().verbose && rank == 0 && plan->announced.insert(requested + "/" + chosen).second)
    std::fprintf(stderr, "torusgather: allgather on a %s torus (%d ranks): %s%s%s\n", plan->torus.to_string().c_str(),
                 size, chosen.c_str(), note.empty() ? "" : " -- ", note.c_str());
  err = execute(*schedule, plan->comm, recvbuf, recvcount, recvtype);
  return raise(comm, err);
}

}  // namespace
}  // namespace torusgather

extern "C" int TG_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm) {
  return torusgather::allgather(true, nullptr, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

extern "C" int TG_Allgather_algorithm(const char* algorithm, const void* sendbuf, int sendcount,
                                      MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                      MPI_Comm comm) {
  return torusgather::allgather(true, algorithm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

extern "C" int TG_Allgather_noraise(const char* algorithm, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                    void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return torusgather::allgather(false, algorithm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

extern "C" int TG_Algorithm_chosen(const char* algorithm, MPI_Comm comm, char* name, int len) {
  using namespace torusgather;
  const std::string requested = algorithm ? algorithm : environment().algorithm;
  if (!known_name(requested)) return MPI_ERR_ARG;
  std::string chosen = requested;
  if (requested != "vendor") {
    Plan* plan = nullptr;
    if (const int err = get_plan(comm, &plan); err != MPI_SUCCESS) return err;
    std::string note;
    choose(*plan, requested, 1, &chosen, &note);
  }
  if (len > 0) {
    std::strncpy(name, chosen.c_str(), static_cast<std::size_t>(len) - 1);
    name[len - 1] = '\0';
  }
  return MPI_SUCCESS;
}

extern "C" int TG_Algorithm_list(char* names, int len) {
  const std::string list = torusgather::algorithm_names(",");
  if (names == nullptr || len < static_cast<int>(list.size()) + 1) return MPI_ERR_ARG;
  std::memcpy(names, list.c_str(), list.size() + 1);
  return MPI_SUCCESS;
}
