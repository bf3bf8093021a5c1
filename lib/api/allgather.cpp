// SPDX-License-Identifier: BSD-3-Clause
// TG_Allgather: argument checks, the per-communicator plan, the choice of
// algorithm, the local copy of the own block, and the executor.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "api/plan.hpp"
#include "exec/executor.hpp"
#include "model/choice.hpp"
#include "model/closed_form.hpp"
#include "model/selector.hpp"
#include "model/trials.hpp"
#include "schedule/bridgehead.hpp"
#include "schedule/circulant.hpp"
#include "schedule/registry.hpp"
#include "schedule/three_phase.hpp"
#include "torusgather/torusgather.h"
#ifdef TORUSGATHER_SMPI
#include <xbt/config.hpp>
#endif

namespace torusgather {
namespace {

constexpr int kSelfCopyTag = 32000;  // below the MPI minimum of MPI_TAG_UB (32767)
constexpr long kNoTrial = -1;          // choose(): the call is not one of auto's timed trials
constexpr double kVendorMargin = 0.95;  // auto's measurement: a candidate must beat the vendor by 5 %

/// Environment parameters, read once (as NCCL's param.h does). The cost
/// model's α, β, δ and overhead are read by calibrate().
struct Environment {
  std::string algorithm = "auto";
  bool verbose = false;
  /// Fixed parameters of the size-tuned algorithms, by name, from each
  /// one's variable (TORUSGATHER_BRIDGEHEAD, TORUSGATHER_CUBGOS,
  /// TORUSGATHER_BRUCK_RADIX).
  std::map<std::string, std::string> fixed_params;
  int circulant_packets = 0;  ///< TORUSGATHER_CIRCULANT_PACKETS: p-gossip (Monakhova & Monakhov §5.2); 0: no limit
  std::string vendor_model;  ///< TORUSGATHER_VENDOR_MODEL: ompi, mpich, ring, rdb, bruck, neighbor, linear
  std::vector<TuneRule> tune;  ///< TORUSGATHER_TUNE
  std::string tune_error;      ///< why TORUSGATHER_TUNE is malformed
  /// TORUSGATHER_TRIALS: timed calls per candidate when auto measures (0:
  /// the model alone; -1, unset: trials_per_candidate's default). Off under
  /// SimGrid, whose simulated platform is the model's own machine.
#ifdef TORUSGATHER_SMPI
  int trials = 0;
#else
  int trials = -1;
#endif
  std::string tuning_file;  ///< TORUSGATHER_TUNING_FILE
  Environment() {
    if (const char* n = std::getenv("TORUSGATHER_TRIALS"); n && *n) {
      char* end = nullptr;
      const long v = std::strtol(n, &end, 10);
      if (*end == '\0' && v >= 0 && v <= 100) trials = static_cast<int>(v);  // else the default
    }
    if (const char* f = std::getenv("TORUSGATHER_TUNING_FILE"); f && *f) tuning_file = f;
    if (const char* a = std::getenv("TORUSGATHER_ALGORITHM"); a && *a) algorithm = a;
    if (const char* v = std::getenv("TORUSGATHER_VERBOSE"); v && *v && std::strcmp(v, "0") != 0) verbose = true;
    for (const auto& info : algorithms())
      if (info.tuned)
        if (const char* v = std::getenv(info.tuned->env); v && *v) fixed_params[info.name] = v;
    if (const char* p = std::getenv("TORUSGATHER_CIRCULANT_PACKETS"); p && *p) {
      char* end = nullptr;
      const long v = std::strtol(p, &end, 10);
      if (*end == '\0' && v > 0 && v <= INT_MAX) circulant_packets = static_cast<int>(v);  // else ignored
    }
    if (const char* m = std::getenv("TORUSGATHER_VENDOR_MODEL"); m && *m) vendor_model = m;
    if (const char* t = std::getenv("TORUSGATHER_TUNE"); t && *t) {
      std::vector<std::string> known = {"vendor"};
      for (const auto& info : algorithms()) known.emplace_back(info.name);
      if (!parse_tune(t, known, &tune, &tune_error)) tune.clear();
    }
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
  PMPI_Comm_get_errhandler(comm, &handler);
  if (handler == MPI_ERRORS_RETURN) {
#ifndef SMPI_SHARED_MALLOC  // SimGrid hands out the predefined handler itself
    PMPI_Errhandler_free(&handler);
#endif
    return err;
  }
  if (handler == MPI_ERRHANDLER_NULL) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    PMPI_Error_string(err, text, &len);
    std::fprintf(stderr, "torusgather: TG_Allgather: %s\n", text);
    PMPI_Abort(comm, err);
    return err;
  }
  PMPI_Errhandler_free(&handler);
  PMPI_Comm_call_errhandler(comm, err);
  return err;
}

int g_committed_keyval = MPI_KEYVAL_INVALID;

/// Whether t is a predefined datatype (committed, never freed, so its
/// handle is stable).
bool is_named(MPI_Datatype t) {
  int ni = 0, na = 0, nd = 0, combiner = MPI_COMBINER_NAMED;
  PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner);
  return combiner == MPI_COMBINER_NAMED;
}

/// Whether a derived datatype is committed. MPI has no query for it, so ask
/// the MPI with local zero-count operations that must refuse an uncommitted
/// type: MPI_Pack (Open MPI and MPICH refuse; MPICH accepts a zero-count
/// send-receive and then leaks a reference to the type, so Pack goes first),
/// then a send-receive to self (refused by Open MPI and SimGrid SMPI, whose
/// MPI_Pack aborts instead). A committed type stays
/// committed, so the answer is cached on the type in an attribute.
int check_committed(MPI_Datatype t, MPI_Comm priv) {
  if (is_named(t)) return MPI_SUCCESS;
  // Created once, thread-safely (MPI_THREAD_MULTIPLE), freed at MPI_Finalize.
  static std::once_flag once;
  std::call_once(once, [] {
    PMPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &g_committed_keyval, nullptr);
    at_finalize([] { PMPI_Type_free_keyval(&g_committed_keyval); });
  });
  const int keyval = g_committed_keyval;
  void* value = nullptr;
  int found = 0;
  PMPI_Type_get_attr(t, keyval, &value, &found);
  if (found) return MPI_SUCCESS;
  int rank = 0;
  PMPI_Comm_rank(priv, &rank);
  char dummy = 0;
#ifndef SMPI_SHARED_MALLOC  // SimGrid SMPI's MPI_Pack aborts on an uncommitted type
  char packed = 0;
  int position = 0;
  if (PMPI_Pack(&dummy, 0, t, &packed, 1, &position, priv) != MPI_SUCCESS) return MPI_ERR_TYPE;
#endif
  if (PMPI_Sendrecv(&dummy, 0, t, rank, kSelfCopyTag, &dummy, 0, t, rank, kSelfCopyTag, priv, MPI_STATUS_IGNORE) !=
      MPI_SUCCESS)
    return MPI_ERR_TYPE;
  PMPI_Type_set_attr(t, keyval, reinterpret_cast<void*>(1));
  return MPI_SUCCESS;
}

Layout layout_of(MPI_Datatype t) {
  Layout l;
  MPI_Aint lb = 0;
  PMPI_Type_get_extent(t, &lb, &l.extent);
  PMPI_Type_get_true_extent(t, &l.true_lb, &l.true_extent);
  return l;
}

/// A null buffer is only legal as MPI_BOTTOM, with absolute addresses in
/// the type (a true lower bound other than 0).
bool null_buffer(const void* buf, long long count, const Layout& l) {
  return buf == nullptr && count > 0 && l.true_lb == 0;
}

/// Whether ns elements of layout ls from s and nr of layout lr from r share
/// bytes (send and receive buffers may not overlap unless MPI_IN_PLACE).
bool overlap(const void* s, long long ns, const Layout& ls, const void* r, long long nr, const Layout& lr) {
  if (ns <= 0 || nr <= 0) return false;
  const char* s0 = static_cast<const char*>(s) + ls.true_lb;
  const char* r0 = static_cast<const char*>(r) + lr.true_lb;
  return s0 < r0 + (nr - 1) * lr.extent + lr.true_extent && r0 < s0 + (ns - 1) * ls.extent + ls.true_extent;
}

/// The checks of MPI_Allgather's arguments that need the plan (committed
/// types) or the data layout; all are local to this rank, as in MPI
/// libraries, and programs pass the same bad arguments on every rank.
/// *send and *recv get the types' layouts.
int check_buffers(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, int size, MPI_Comm priv, Layout* send, Layout* recv) {
  const bool in_place = sendbuf == MPI_IN_PLACE;
  int err = check_committed(recvtype, priv);
  if (err == MPI_SUCCESS && !in_place) err = check_committed(sendtype, priv);
  if (err != MPI_SUCCESS) return err;
  *recv = layout_of(recvtype);
  if (!in_place) *send = layout_of(sendtype);
  if (null_buffer(recvbuf, recvcount, *recv) || (!in_place && null_buffer(sendbuf, sendcount, *send)))
    return MPI_ERR_BUFFER;
  if (in_place) return MPI_SUCCESS;
  // Every rank receives from this one recvcount elements of recvtype: the
  // type signatures must carry the same number of bytes.
  int ssize = 0, rsize = 0;
  PMPI_Type_size(sendtype, &ssize);
  PMPI_Type_size(recvtype, &rsize);
  const long long sbytes = static_cast<long long>(sendcount) * ssize, rbytes = static_cast<long long>(recvcount) * rsize;
  if (sbytes > rbytes) return MPI_ERR_TRUNCATE;
  if (sbytes < rbytes) return MPI_ERR_ARG;
  if (overlap(sendbuf, sendcount, *send, recvbuf, static_cast<long long>(recvcount) * size, *recv))
    return MPI_ERR_BUFFER;
  return MPI_SUCCESS;
}

/// True if count elements of t are count*extent contiguous bytes from the buffer start.
bool is_contiguous(MPI_Datatype t) {
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  int size = 0;
  PMPI_Type_get_extent(t, &lb, &extent);
  PMPI_Type_get_true_extent(t, &true_lb, &true_extent);
  PMPI_Type_size(t, &size);
  return lb == 0 && true_lb == 0 && size == extent && true_extent == extent;
}

bool known_name(const std::string& name) {
  return name == "auto" || name == "vendor" || find_algorithm(name) != nullptr;
}

/// The MPI error class of an exception caught at the library's edge, said
/// on stderr: no C++ exception crosses the C ABI.
int error_of(std::exception_ptr e, const char* doing) {
  int err = MPI_ERR_INTERN;
  std::string what = "unknown exception";
  try {
    std::rethrow_exception(e);
  } catch (const std::bad_alloc&) {
    err = MPI_ERR_NO_MEM;
    what = "out of memory";
  } catch (const std::exception& x) {
    what = x.what();
  } catch (...) {
  }
  std::fprintf(stderr, "torusgather: %s failed: %s\n", doing, what.c_str());
  return err;
}

/// A test hook: TORUSGATHER_TEST_FAULT=SITE[:RANK] makes SITE ("profile":
/// rank 0 computing a cost profile the others wait for; "build": building a
/// schedule) run out of memory, on RANK only if given. Read at each of those
/// (rare) steps, so a test can set and unset it.
void inject_fault(const char* site, int rank) {
  const char* spec = std::getenv("TORUSGATHER_TEST_FAULT");
  if (!spec || !*spec) return;
  const std::string s = spec, name = s.substr(0, s.find(':'));
  if (name != site) return;
  if (const auto colon = s.find(':'); colon != std::string::npos && std::atoi(s.c_str() + colon + 1) != rank) return;
  throw std::bad_alloc();
}

/// Collective: an error on any rank becomes an error on every rank (the
/// rank's own, else the largest class seen), so no rank waits on one that
/// gave up.
int agree(MPI_Comm comm, int err) {
  int local = err == MPI_SUCCESS ? 0 : err, worst = 0;
  if (const int e = PMPI_Allreduce(&local, &worst, 1, MPI_INT, MPI_MAX, comm); e != MPI_SUCCESS) return e;
  return worst == 0 ? MPI_SUCCESS : (err != MPI_SUCCESS ? err : worst);
}

int schedule_of(Plan& plan, const std::string& name, const Schedule** out, std::string* why);
int tuned_of(Plan& plan, const AlgorithmInfo& info, long long block_bytes, const Schedule** out, std::string* why);
int profile_of(Plan& plan, const std::string& key, const ProfileCompute& compute, const CostProfile** out,
               std::string* why);
std::string vendor_model();
ChoiceContext context_of(Plan& plan, const Machine& m);
const ChoiceContext& choice_of(Plan& plan);

/// The profile of the vendor's algorithm `alg` on the plan's torus, a
/// node's ranks sharing its links: the same key and value as the choice's.
int vendor_profile_of(Plan& plan, VendorAlgorithm alg, const CostProfile** out, std::string* why) {
  const Torus& t = plan.torus;
  const int k = plan.node_ranks;
  return profile_of(plan, std::string("vendor ") + to_string(alg), [&t, alg, k](CostProfile* p, std::string*) {
    *p = vendor_profile(t, alg, k);
    return MPI_SUCCESS;
  }, out, why);
}

/// Collective the first time `key` is seen on this plan (every rank takes
/// the step with the same key): agree(), and remember success. After a
/// failure all ranks ask again next time.
int agree_once(Plan& plan, const std::string& key, int err) {
  if (plan.agreed.count(key)) return err;
  err = agree(plan.comm, err);
  if (err == MPI_SUCCESS) plan.agreed.insert(key);
  return err;
}

/// schedule_of, and every rank learns whether the build succeeded on all
/// (once per name and plan): collective, for the steps every rank takes.
int agreed_schedule_of(Plan& plan, const std::string& name, const Schedule** out, std::string* why) {
  return agree_once(plan, name, schedule_of(plan, name, out, why));
}

/// The time of one `call`: the fastest of `reps` runs of two calls in a
/// row less the fastest of one, each the slowest rank's, so that how far
/// apart the ranks leave the barrier cancels out.
double timed(MPI_Comm comm, int reps, const std::function<int()>& call, int* err) {
  double best[2] = {1e30, 1e30};
  for (int k = 0; k < reps && *err == MPI_SUCCESS; ++k)
    for (int calls = 1; calls <= 2 && *err == MPI_SUCCESS; ++calls) {
      PMPI_Barrier(comm);
      const double t0 = PMPI_Wtime();
      for (int c = 0; c < calls && *err == MPI_SUCCESS; ++c) *err = call();
      best[calls - 1] = std::min(best[calls - 1], PMPI_Wtime() - t0);
    }
  if (*err == MPI_SUCCESS) *err = PMPI_Allreduce(MPI_IN_PLACE, best, 2, MPI_DOUBLE, MPI_MAX, comm);
  return best[1] - best[0];
}

/// What a round costs beyond the machine model in torusgather's executor
/// and in the vendor's allgather: each runs with 8-byte blocks, and the
/// time not predicted is spread over its rounds. On a network these are
/// near 0; on one oversubscribed node they are what decides small blocks.
int measure_software(Plan& plan, Calibration* c) {
#ifdef TORUSGATHER_SMPI
  // Without simulated computation, software takes no simulated time: the
  // cost is 0 by construction, and measuring the vendor's allgather would
  // simulate its flows for nothing (SimGrid's default sends P² at once).
  if (!simgrid::config::get_value<bool>("smpi/simulate-computation")) return MPI_SUCCESS;
  const int reps = 1;  // simulated time is deterministic
#else
  const int reps = 10;
#endif
  constexpr int kBytes = 8;
  std::vector<char> buf(static_cast<std::size_t>(plan.torus.size()) * kBytes, 0);
  std::string why;
  const Schedule* rings = nullptr;
  int err = agreed_schedule_of(plan, "dim-rings", &rings, &why);
  if (err != MPI_SUCCESS) return err;
  const CostProfile* rp = nullptr;
  err = profile_of(plan, "dim-rings", profiling(plan.torus, "dim-rings", [rings](const Schedule** s, std::string*) {
    *s = rings;
    return MPI_SUCCESS;
  }), &rp, &why);
  if (err != MPI_SUCCESS || !rp || rp->rounds() == 0) return err;  // one rank: nothing to measure
  // A repeated call runs its made calls (run_schedule): time those.
  std::unique_ptr<Prepared> calls;
  if ((err = agree(plan.comm, prepare(*rings, plan.comm, kBytes, MPI_BYTE, &calls))) != MPI_SUCCESS) return err;
  const double tg = timed(plan.comm, reps, [&] { return calls->run(plan.comm, buf.data()); }, &err);
  if (err != MPI_SUCCESS) return err;
  c->tg_per_round = std::max(0.0, (tg - predict(*rp, c->machine, kBytes)) / static_cast<double>(rp->rounds()));
  VendorAlgorithm alg;
  if (!vendor_algorithm(context_of(plan, c->machine), kBytes, &alg)) return MPI_SUCCESS;
  const CostProfile* vp = nullptr;
  err = vendor_profile_of(plan, alg, &vp, &why);
  if (err != MPI_SUCCESS || !vp || vp->rounds() == 0) return err;
  const double vendor = timed(plan.comm, reps, [&] {
    return PMPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf.data(), kBytes, MPI_BYTE, plan.comm);
  }, &err);
  if (err != MPI_SUCCESS) return err;
  c->vendor_per_round = std::max(0.0, (vendor - predict(*vp, c->machine, kBytes)) / static_cast<double>(vp->rounds()));
  return MPI_SUCCESS;
}

/// The plan's machine (α, β, δ, overhead) and software costs, calibrated
/// on first need: collective on the plan's communicator.
int machine_of(Plan& plan, const Machine** m) {
  if (!plan.calibration) {
    // Process-wide, by the group's ranks in MPI_COMM_WORLD: α, β, δ, the
    // overhead and the software costs belong to the machine and the
    // implementations, not to the torus shape laid over the ranks (the
    // profiles hold that), so a program that duplicates communicators or
    // tries several shapes calibrates once per group. The
    // ranks agree on a hit (threads may be calibrating the same group on
    // another communicator at this moment, so one rank may hold it already).
    static std::mutex mutex;
    static std::map<std::string, Calibration> known;
    MPI_Group group = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
    PMPI_Comm_group(plan.comm, &group);
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    const int n = static_cast<int>(plan.torus.size());
    std::vector<int> ranks(static_cast<std::size_t>(n)), in_world(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) ranks[static_cast<std::size_t>(i)] = i;
    PMPI_Group_translate_ranks(group, n, ranks.data(), world, in_world.data());
    PMPI_Group_free(&group);
    PMPI_Group_free(&world);
    // Ranks outside this process's MPI_COMM_WORLD (dynamic processes): each
    // member sees some, so all skip the cache alike.
    const bool cacheable = std::find(in_world.begin(), in_world.end(), MPI_UNDEFINED) == in_world.end();
    // The group as a 64-bit hash of its world ranks (FNV-1a) and its size:
    // a list of a million ranks would keep 7 MB per process.
    std::uint64_t hash = 14695981039346656037ull;
    for (int r : in_world) hash = (hash ^ static_cast<std::uint32_t>(r)) * 1099511628211ull;
    const std::string key = std::to_string(n) + ":" + std::to_string(hash);
    std::unique_ptr<Calibration> cached;
    if (cacheable) {
      std::lock_guard<std::mutex> lock(mutex);
      if (auto it = known.find(key); it != known.end()) cached = std::make_unique<Calibration>(it->second);
    }
    int everywhere = cached ? 1 : 0;
    if (const int err = PMPI_Allreduce(MPI_IN_PLACE, &everywhere, 1, MPI_INT, MPI_MIN, plan.comm); err != MPI_SUCCESS)
      return err;
    if (everywhere) plan.calibration = std::move(cached);
    if (!plan.calibration) {
      auto c = std::make_unique<Calibration>();
      int err = calibrate(plan.comm, plan.torus, plan.node_ranks, c.get());
      if (err == MPI_SUCCESS) err = measure_software(plan, c.get());
      if (err != MPI_SUCCESS) return err;
      if (cacheable) {
        std::lock_guard<std::mutex> lock(mutex);
        known[key] = *c;
      }
      plan.calibration = std::move(c);
    }
  }
  *m = &plan.calibration->machine;
  return MPI_SUCCESS;
}

/// The selector's view of this plan: its torus, machine and software
/// costs, the environment's fixed parameters, and where profiles come from
/// (profile_of: rank 0 computes, all receive) and schedules (built here).
ChoiceContext context_of(Plan& plan, const Machine& m) {
  ChoiceContext ctx;
  ctx.torus = &plan.torus;
  ctx.machine = m;
  // The plan's, not the calibration's: a calibration serves every shape laid
  // over the same ranks (machine_of).
  ctx.machine.node_ranks = plan.node_ranks;
  ctx.vendor_model = vendor_model();
  ctx.root = plan.rank == 0;
#ifdef TORUSGATHER_SMPI
  ctx.simgrid = true;
#endif
  if (plan.calibration) {
    ctx.tg_per_round = plan.calibration->tg_per_round;
    ctx.vendor_per_round = plan.calibration->vendor_per_round;
  }
  ctx.fixed_params = environment().fixed_params;
  ctx.params_cache = &plan.tuned_params;
  ctx.profile_of = [&plan](const std::string& key, const ProfileCompute& compute, const CostProfile** out,
                           std::string* why) { return profile_of(plan, key, compute, out, why); };
  // Rank 0 profiles schedules it may never run: one at a time, built aside
  // (a schedule that runs is cached in plan.schedules when it is chosen).
  ctx.schedule_of = [&plan](const std::string& name, long long block_bytes, const Schedule** out,
                               std::string* why) -> int {
    *out = nullptr;
    const AlgorithmInfo& info = *find_algorithm(name);
    BuildContext build;
    build.packets = environment().circulant_packets;
    if (name == "three-phase" && plan.node_of.empty()) return MPI_ERR_INTERN;  // predictions() gathers it
    build.node_of = &plan.node_of;
    build.node_ranks = plan.node_ranks;
    std::string key = name;
    if (info.tuned) {
      if (!params_for(choice_of(plan), info, block_bytes, &build.params, why)) return MPI_SUCCESS;
      key += " " + build.params;
    }
    if (auto it = plan.schedules.find(key); it != plan.schedules.end()) {
      *out = it->second.get();
      return MPI_SUCCESS;
    }
    if (auto it = plan.declined.find(key); it != plan.declined.end()) {
      *why = it->second;
      return MPI_SUCCESS;
    }
    try {
      inject_fault("build", plan.rank);
      plan.profiling_scratch = try_build(info, plan.torus, why, build);
      if (!plan.profiling_scratch) plan.declined[key] = *why;
      *out = plan.profiling_scratch.get();
      return MPI_SUCCESS;
    } catch (...) {
      return error_of(std::current_exception(), ("building " + name).c_str());
    }
  };
  return ctx;
}

/// context_of(plan, its calibrated machine), made once per plan: the
/// size-tuned lookups of every call that is not a repeat go through it.
const ChoiceContext& choice_of(Plan& plan) {
  if (!plan.choice) plan.choice = std::make_unique<ChoiceContext>(context_of(plan, plan.calibration->machine));
  return *plan.choice;
}

/// Size-tuned `info` for blocks of `block_bytes` (see params_for), looked
/// up per call by log2 r alone; schedules are built once per parameter set.
/// Local; an error (out of memory, a failed construction) is returned,
/// never thrown.
int tuned_of(Plan& plan, const AlgorithmInfo& info, long long block_bytes, const Schedule** out, std::string* why) {
  *out = nullptr;
  const ChoiceContext& ctx = choice_of(plan);
  const long bucket = tuned_bucket(ctx, info, block_bytes);
  auto& by_r = plan.tuned_by_r[info.name];
  if (auto it = by_r.find(bucket); it != by_r.end()) {
    *out = it->second;
    return MPI_SUCCESS;
  }
  if (*why = info.not_applicable(plan.torus); !why->empty()) return MPI_SUCCESS;
  try {
    inject_fault("build", plan.rank);
    BuildContext build;
    build.node_ranks = plan.node_ranks;
    if (!params_for(ctx, info, block_bytes, &build.params, why)) return MPI_SUCCESS;
    const std::string key = std::string(info.name) + " " + build.params;
    const Schedule* s = nullptr;
    if (auto it = plan.schedules.find(key); it != plan.schedules.end()) {
      s = it->second.get();
    } else {
      auto built = try_build(info, plan.torus, why, build);
      if (!built) return MPI_SUCCESS;
      s = (plan.schedules[key] = std::move(built)).get();
    }
    *out = by_r[bucket] = s;
    return MPI_SUCCESS;
  } catch (...) {
    return error_of(std::current_exception(), ("building " + std::string(info.name)).c_str());
  }
}

/// The schedule named `name` on this plan's torus, built once and cached
/// in *out; nullptr (and the reason in *why) if the algorithm declines the
/// shape. Local; an error (out of memory, a failed construction) is
/// returned, never thrown.
int schedule_of(Plan& plan, const std::string& name, const Schedule** out, std::string* why) {
  *out = nullptr;
  if (auto it = plan.schedules.find(name); it != plan.schedules.end()) {
    *out = it->second.get();
    return MPI_SUCCESS;
  }
  if (auto it = plan.declined.find(name); it != plan.declined.end()) {
    *why = it->second;
    return MPI_SUCCESS;
  }
  std::unique_ptr<Schedule> schedule;
  try {
    inject_fault("build", plan.rank);
    BuildContext build;
    build.packets = environment().circulant_packets;  // p-gossip: at most p blocks per link per round
    if (name == "three-phase" && plan.node_of.empty()) return MPI_ERR_INTERN;  // choose() gathers it
    build.node_of = &plan.node_of;                     // the communicator's own nodes
    build.node_ranks = plan.node_ranks;
    schedule = try_build(*find_algorithm(name), plan.torus, why, build);
    if (!schedule) {
      plan.declined[name] = *why;
      return MPI_SUCCESS;
    }
    *out = (plan.schedules[name] = std::move(schedule)).get();
    return MPI_SUCCESS;
  } catch (...) {
    return error_of(std::current_exception(), ("building " + name).c_str());
  }
}

/// The cost profile stored under `key`, computed by rank 0 alone and
/// broadcast: the other ranks need not build schedules they will not run,
/// and every rank predicts from the same numbers. `compute` returns an
/// error, or success with why there is no profile in *why (or ""). A
/// failure on rank 0 reaches every rank as its error class. Collective on
/// the plan's communicator the first time a key is asked for.
int profile_of(Plan& plan, const std::string& key, const ProfileCompute& compute, const CostProfile** out,
               std::string* why) {
  *out = nullptr;
  if (auto it = plan.profiles.find(key); it != plan.profiles.end()) {
    *out = &it->second;
    return MPI_SUCCESS;
  }
  if (auto it = plan.profile_declined.find(key); it != plan.profile_declined.end()) {
    *why = it->second;
    return MPI_SUCCESS;
  }
  int rank = 0;
  PMPI_Comm_rank(plan.comm, &rank);
  std::vector<double> flat;
  // header[0]: the profile's length, -1 if declined; header[1]: rank 0's error.
  long long header[2] = {-1, MPI_SUCCESS};
  std::string reason;
  if (rank == 0) {
    try {
      inject_fault("profile", rank);
      CostProfile p;
      header[1] = compute(&p, &reason);
      if (header[1] == MPI_SUCCESS && reason.empty()) {
        flat = p.serialize();
        header[0] = static_cast<long long>(flat.size());
      }
    } catch (...) {
      header[1] = error_of(std::current_exception(), ("the cost profile of " + key).c_str());
    }
  }
  int err = PMPI_Bcast(header, 2, MPI_LONG_LONG, 0, plan.comm);
  if (err != MPI_SUCCESS) return err;
  if (header[1] != MPI_SUCCESS) return static_cast<int>(header[1]);
  const long long n = header[0];
  if (n < 0) {
    *why = plan.profile_declined[key] = rank == 0 ? reason : "declined on rank 0";
    return MPI_SUCCESS;
  }
  flat.resize(static_cast<std::size_t>(n));
  if (n > 0 && (err = PMPI_Bcast(flat.data(), static_cast<int>(n), MPI_DOUBLE, 0, plan.comm)) != MPI_SUCCESS) return err;
  *out = &(plan.profiles[key] = CostProfile::deserialize(flat));
  return MPI_SUCCESS;
}

/// The vendor allgather's model: TORUSGATHER_VENDOR_MODEL, else what the
/// MPI library is (under SimGrid SMPI: its smpi/allgather setting).
std::string vendor_model() {
  if (!environment().vendor_model.empty()) return environment().vendor_model;
#ifdef TORUSGATHER_SMPI
  std::string name = simgrid::config::get_value<std::string>("smpi/allgather");
  if (name.empty()) name = simgrid::config::get_value<std::string>("smpi/coll-selector");
  return name;
#else
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int len = 0;
  PMPI_Get_library_version(version, &len);
  const std::string v = version;
  if (v.find("Open MPI") != std::string::npos) return "ompi";
  if (v.find("MPICH") != std::string::npos) return "mpich";
  return {};
#endif
}

/// Every algorithm and the vendor's, each with its predicted time for
/// blocks of `block_bytes` or why it does not apply; returns (in *best)
/// the index of the fastest, -1 if none applies. An algorithm `auto` never
/// considers is predicted only when it is `named`. Collective.
int predictions(Plan& plan, long long block_bytes, std::vector<Candidate>* out, int* best,
                const std::string& named = {}) {
  const Machine* m = nullptr;
  const int err = machine_of(plan, &m);
  if (err != MPI_SUCCESS) return err;
  // three-phase competes up to the limit (or when named): its node map.
  if (plan.torus.size() <= kSteppedProfileLimit || named == "three-phase")
    if (const int e = ensure_node_map(plan); e != MPI_SUCCESS) return e;
  const int result = predict_all(choice_of(plan), block_bytes, named, out, best);
  plan.profiling_scratch.reset();
  return result;
}

/// auto's size classes: floor(log2 bytes).
long size_class(long long block_bytes) {
  long c = 0;
  for (long long b = std::max(1LL, block_bytes); b > 1; b >>= 1) ++c;
  return c;
}

/// Under TORUSGATHER_VERBOSE, rank 0 prints the model's table once per
/// communicator and size class.
void announce_predictions(Plan& plan, long long block_bytes, const std::vector<Candidate>& candidates, int best) {
  if (!environment().verbose || plan.rank != 0 ||
      !plan.announced.insert("auto/" + std::to_string(size_class(block_bytes))).second)
    return;
  const Machine& m = plan.calibration->machine;
  char node[240] = "";
  int used = 0;
  if (plan.node_ranks > 1)
    used = std::snprintf(node, sizeof node, "; node axis (%d ranks per node, shared memory): alpha %.3g us, beta %.3g ns/B",
                         plan.node_ranks, (m.node_alpha > 0 ? m.node_alpha : m.alpha) * 1e6,
                         (m.node_beta > 0 ? m.node_beta : m.beta) * 1e9);
  if (m.inject_beta > 0 && used >= 0 && static_cast<std::size_t>(used) < sizeof node)
    std::snprintf(node + used, sizeof node - static_cast<std::size_t>(used),
                  "; injection limit %.3g GB/s per node, in and out together", 1e-9 / m.inject_beta);
  std::fprintf(stderr,
               "torusgather: auto on a %s torus (%lld ranks), blocks of %lld B; machine (%s): alpha %.3g us, "
               "beta %.3g ns/B, delta %.3g us/hop, overhead %.3g us/message%s%s; software per round: torusgather "
               "%.3g us, vendor %.3g us; predicted:\n%s",
               plan.torus.to_string().c_str(), static_cast<long long>(plan.torus.size()), block_bytes,
               plan.calibration->source.c_str(), m.alpha * 1e6, m.beta * 1e9, m.delta * 1e6, m.overhead * 1e6,
               m.shared_memory ? ", shared memory" : "", node, plan.calibration->tg_per_round * 1e6,
               plan.calibration->vendor_per_round * 1e6, format_table(candidates, best).c_str());
}

/// What `auto` runs for blocks of `block_bytes` where nothing is measured:
/// the candidate the cost model predicts fastest. Collective.
int auto_choice(Plan& plan, long long block_bytes, std::string* chosen) {
  if (auto it = plan.auto_choice.find(block_bytes); it != plan.auto_choice.end()) {
    *chosen = it->second;
    return MPI_SUCCESS;
  }
  std::vector<Candidate> candidates;
  int best = -1;
  if (const int err = predictions(plan, block_bytes, &candidates, &best); err != MPI_SUCCESS) return err;
  *chosen = best < 0 ? "dim-rings" : candidates[static_cast<std::size_t>(best)].name;
  if (plan.auto_choice.size() > 4096) plan.auto_choice.clear();  // programs with many sizes: bounded memory
  plan.auto_choice[block_bytes] = *chosen;
  announce_predictions(plan, block_bytes, candidates, best);
  return MPI_SUCCESS;
}

/// Timed calls per candidate for size class `cls`, besides a first untimed
/// one (its schedule and calls are made then). By default 15 below 64 KiB,
/// where calls are cheap and their noise is large against them (with 5, on
/// 4 ranks of 2 cores, a candidate that won its trials by 30 % was 8 %
/// slower later), and 5 from 64 KiB. A calibration rejected as implausible
/// leaves the model's ranking in doubt: it measures even where it is off.
int trials_per_candidate(const Plan& plan, long cls) {
  const int n = environment().trials;
  if (n < 0) return cls < 16 ? 15 : 5;
  if (n == 0 && plan.calibration && plan.calibration->rejected) return 5;
  return n;
}

/// TORUSGATHER_TUNING_FILE's lines for this communicator, read by rank 0
/// once per plan and broadcast (collective the first time). Lines for other
/// rank counts or tori are ignored, and rank 0 says so.
int read_tuning(Plan& plan) {
  if (plan.tuning_read) return MPI_SUCCESS;
  const std::string& path = environment().tuning_file;
  std::string mine;  // "lo hi name\n" per matching line
  if (plan.rank == 0 && !path.empty()) {
    if (FILE* f = std::fopen(path.c_str(), "r")) {
      char line[1024];
      long others = 0, bad = 0;
      const std::string torus = plan.torus.to_string();
      while (std::fgets(line, sizeof line, f)) {
        long long ranks = 0, lo = 0, hi = 0;
        char dims[256] = "", name[128] = "";
        if (line[0] == '#' || line[0] == '\n') continue;
        if (std::sscanf(line, "%lld %255s %lld %lld %127s", &ranks, dims, &lo, &hi, name) != 5 || lo > hi ||
            !known_name(name) || std::string(name) == "auto") {
          ++bad;
          continue;
        }
        if (ranks != plan.size || torus != dims) {
          ++others;
          continue;
        }
        mine += std::to_string(lo) + " " + std::to_string(hi) + " " + name + "\n";
      }
      std::fclose(f);
      if (mine.empty() && (others > 0 || bad > 0))
        std::fprintf(stderr,
                     "torusgather: TORUSGATHER_TUNING_FILE %s: no line for %d ranks on a %s torus (%ld for other "
                     "shapes, %ld malformed): ignored for this communicator\n",
                     path.c_str(), plan.size, torus.c_str(), others, bad);
    }
  }
  long long n = static_cast<long long>(mine.size());
  int err = PMPI_Bcast(&n, 1, MPI_LONG_LONG, 0, plan.comm);
  if (err != MPI_SUCCESS) return err;
  mine.resize(static_cast<std::size_t>(n));
  if (n > 0 && (err = PMPI_Bcast(&mine[0], static_cast<int>(n), MPI_CHAR, 0, plan.comm)) != MPI_SUCCESS) return err;
  for (std::size_t at = 0; at < mine.size();) {
    const std::size_t end = mine.find('\n', at);
    Plan::TuningLine l;
    char name[128] = "";
    if (std::sscanf(mine.substr(at, end - at).c_str(), "%lld %lld %127s", &l.lo, &l.hi, name) == 3) {
      l.algorithm = name;
      plan.tuning.push_back(l);
    }
    at = end + 1;
  }
  plan.tuning_read = true;
  return MPI_SUCCESS;
}

/// The tuning file's algorithm for blocks of `block_bytes` (the last line
/// that covers it wins), or nullptr.
const std::string* tuning_lookup(const Plan& plan, long long block_bytes) {
  const std::string* found = nullptr;
  for (const auto& l : plan.tuning)
    if (l.lo <= block_bytes && block_bytes <= l.hi) found = &l.algorithm;
  return found;
}

/// The candidates auto times for a size class: the model's fastest two
/// algorithms (three if the calibration was rejected) and the vendor's
/// allgather, modelled or not. Collective (the predictions).
int start_trial(Plan& plan, long long block_bytes, long cls) {
  if (plan.trials.count(cls)) return MPI_SUCCESS;
  std::vector<Candidate> candidates;
  int best = -1;
  if (const int err = predictions(plan, block_bytes, &candidates, &best); err != MPI_SUCCESS) return err;
  announce_predictions(plan, block_bytes, candidates, best);
  std::vector<const Candidate*> ranked;
  for (const Candidate& c : candidates)
    if (c.why_not.empty() && !c.named_only && c.name != "vendor") ranked.push_back(&c);
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const Candidate* a, const Candidate* b) { return a->predicted < b->predicted; });
  Plan::Trial t;
  const std::size_t keep = plan.calibration && plan.calibration->rejected ? 3 : 2;
  for (std::size_t i = 0; i < ranked.size() && i < keep; ++i) t.names.push_back(ranked[i]->name);
  t.names.push_back("vendor");
  plan.trials[cls] = t;
  return MPI_SUCCESS;
}

/// The start of a timed trial call: the ranks start together, so that a
/// candidate's time is its own and not the skew the previous candidate left
/// (without it, the vendor's 8-byte trial calls on 4 ranks took 4.6-6.0 us
/// against 2.1-2.7 us in a steady run, and the candidates' order flipped).
int trial_start(const Plan& plan, double* t0) {
  const int err = PMPI_Barrier(plan.comm);
  *t0 = PMPI_Wtime();
  return err;
}

/// Records a trial call's time on this rank. After the last one, the ranks
/// agree on every call's slowest rank (one allreduce); each candidate's
/// median over its timed calls decides, rank 0 appends the decision to the
/// tuning file, and the class is measured. Collective on that last call.
int record_trial(Plan& plan, long cls, double seconds) {
  auto it = plan.trials.find(cls);
  if (it == plan.trials.end()) return MPI_SUCCESS;
  Plan::Trial& t = it->second;
  t.seconds.push_back(seconds);
  const std::size_t n = t.names.size(), calls = static_cast<std::size_t>(trials_per_candidate(plan, cls) + 1);
  if (t.seconds.size() < n * calls) return MPI_SUCCESS;
  if (const int err = PMPI_Allreduce(MPI_IN_PLACE, t.seconds.data(), static_cast<int>(t.seconds.size()), MPI_DOUBLE,
                                     MPI_MAX, plan.comm);
      err != MPI_SUCCESS) {
    plan.trials.erase(it);
    return err;
  }
  // The vendor (last) keeps the call unless clearly beaten: the promise is
  // never to be slower than it.
  const TrialDecision d = decide_trial(t.seconds, n, kVendorMargin);
  const std::size_t winner = d.winner;
  plan.measured[cls] = t.names[winner];
  std::string times;
  for (std::size_t i = 0; i < n; ++i) {
    char us[32];
    std::snprintf(us, sizeof us, " %.2f us", d.median[i] * 1e6);
    times += (i ? ", " : "") + t.names[i] + us;
  }
  std::string rounds;  // a challenger's paired rounds against the vendor
  if (d.fastest != n - 1)
    rounds = " (" + t.names[d.fastest] + " faster than the vendor in " + std::to_string(d.wins) + " of " +
             std::to_string(calls - 1) + " rounds, " + std::to_string(d.needed) + " needed)";
  const long long lo = 1LL << cls, hi = (1LL << (cls + 1)) - 1;
  if (plan.rank == 0 && environment().verbose)
    std::fprintf(stderr, "torusgather: auto measured %lld..%lld B on a %s torus (%d ranks): %s; runs %s%s\n", lo, hi,
                 plan.torus.to_string().c_str(), plan.size, times.c_str(), t.names[winner].c_str(), rounds.c_str());
  if (plan.rank == 0 && !environment().tuning_file.empty()) {
    if (FILE* f = std::fopen(environment().tuning_file.c_str(), "a")) {
      std::fprintf(f, "%d %s %lld %lld %s # median of %d calls, slowest rank: %s%s\n", plan.size,
                   plan.torus.to_string().c_str(), lo, hi, t.names[winner].c_str(), trials_per_candidate(plan, cls),
                   times.c_str(), rounds.c_str());
      std::fclose(f);
    } else {
      std::fprintf(stderr, "torusgather: cannot append to TORUSGATHER_TUNING_FILE %s\n",
                   environment().tuning_file.c_str());
    }
  }
  plan.trials.erase(it);
  return MPI_SUCCESS;
}

/// What runs for `requested` with blocks of `block_bytes`: its schedule, or
/// nullptr for the vendor's allgather; *chosen names it, *note says why it
/// differs from the request. auto: a TORUSGATHER_TUNE range's algorithm,
/// else the cost model's choice. A forced algorithm that declines the shape
/// falls back to dim-rings, which applies to every shape. Collective (the
/// calibration and cost profiles are built on first need).
int choose(Plan& plan, const std::string& requested, long long block_bytes, const Schedule** schedule,
           std::string* chosen, std::string* note, long* trial_class) {
  *schedule = nullptr;
  *chosen = requested;
  if (trial_class) *trial_class = kNoTrial;
  std::string first = requested;
  if (requested == "auto") {
    const long cls = size_class(block_bytes);
    if (const TuneRule* rule = tune_lookup(environment().tune, block_bytes)) {
      first = rule->algorithm;
      *note = "TORUSGATHER_TUNE";
    } else if (plan.source == TorusSource::none) {
      // A torus made up from the rank count would model routes that are
      // not the machine's.
      *chosen = "vendor";
      *note = "no torus known: " + plan.torus_note;
      return MPI_SUCCESS;
    } else if (const int err = read_tuning(plan); err != MPI_SUCCESS) {
      return err;
    } else if (const std::string* line = tuning_lookup(plan, block_bytes)) {
      first = *line;
      *note = "TORUSGATHER_TUNING_FILE";
    } else if (auto it = plan.measured.find(cls); it != plan.measured.end()) {
      first = it->second;
      *note = "measured";
    } else if (trial_class && trials_per_candidate(plan, cls) > 0) {
      if (const int e = start_trial(plan, block_bytes, cls); e != MPI_SUCCESS) return e;
      const Plan::Trial& t = plan.trials[cls];
      first = t.names[trial_candidate(t.seconds.size(), t.names.size())];
      *trial_class = cls;
      *note = "measuring " + std::to_string(t.seconds.size() + 1) + " of " +
              std::to_string(t.names.size() * static_cast<std::size_t>(trials_per_candidate(plan, cls) + 1));
    } else if (const int err = auto_choice(plan, block_bytes, &first); err != MPI_SUCCESS) {
      return err;
    }
  }
  *chosen = first;
  if (first == "vendor") return MPI_SUCCESS;
  std::string why;
  const Schedule* s = nullptr;
  int err = MPI_SUCCESS;
  if (const AlgorithmInfo* info = find_algorithm(first); info && info->tuned) {
    const Machine* m = nullptr;
    if ((err = machine_of(plan, &m)) != MPI_SUCCESS) return err;
    err = tuned_of(plan, *info, block_bytes, &s, &why);
    err = agree_once(plan, first + " " + std::to_string(tuned_bucket(choice_of(plan), *info, block_bytes)), err);
  } else {
    if (first == "three-phase" && (err = ensure_node_map(plan)) != MPI_SUCCESS) return err;
    err = agreed_schedule_of(plan, first, &s, &why);
  }
  if (err != MPI_SUCCESS) return err;
  if (!s) {
    *note = first + " does not apply: " + why;
    *chosen = "dim-rings";
    if ((err = agreed_schedule_of(plan, "dim-rings", &s, &why)) != MPI_SUCCESS) return err;
  }
  *schedule = s;
  return MPI_SUCCESS;
}

/// Whether a call repeats the arguments (buffers aside) that a memo
/// holds the decisions of.
/// `algorithm` is the caller's name, or nullptr for TORUSGATHER_ALGORITHM's:
/// then no name is compared (the preloaded MPI_Allgather's path).
bool repeats(const CallMemo& m, const char* algorithm, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
             int recvcount, MPI_Datatype recvtype) {
  const bool in_place = sendbuf == MPI_IN_PLACE;
  return m.valid && m.recvcount == recvcount && m.recvtype == recvtype && m.in_place == in_place &&
         (in_place || (m.sendcount == sendcount && m.sendtype == sendtype)) &&
         (algorithm ? !m.from_environment && std::strcmp(m.requested.c_str(), algorithm) == 0 : m.from_environment);
}

/// Copies this rank's block into the slot at `to`: from sendbuf, or, in
/// place, from `in_place_from` (nothing to do where that is `to`). Through
/// MPI where the types are not one contiguous type, so that any pair with
/// matching signatures works.
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
  auto& list = plan.prepared;
  for (auto it = list.begin(); it != list.end(); ++it)
    if (it->schedule == call.schedule && it->recvcount == count && it->recvtype == type &&
        it->traffic_only == traffic) {
      if (it != list.begin()) list.splice(list.begin(), list, it);
      return list.front().calls->run(plan.comm, buf);
    }
  std::unique_ptr<Prepared> calls;
  if (const int err = prepare(*call.schedule, plan.comm, count, type, &calls); err != MPI_SUCCESS) return err;
  const int err = calls->run(plan.comm, buf);
  if (calls->messages() <= Plan::kPreparedMessages && calls->type_entries() <= Plan::kPreparedEntries) {
    list.push_front({call.schedule, count, type, traffic, std::move(calls)});
    if (list.size() > Plan::kPrepared) list.pop_back();
  }
  return err;
}

/// A schedule on a topology file's torus order: it runs on a scratch buffer
/// whose block t is torus rank t's, then every block goes to its owner's
/// slot of recvbuf (one local copy of the P blocks: the ranks' own order
/// is the launcher's, and a block set of the torus is no longer a strided
/// set of the user's buffer).
/// Bytes of a scratch buffer of p blocks of the call's receive type.
std::size_t scratch_bytes(long long p, const CallMemo& call) {
  return static_cast<std::size_t>(static_cast<MPI_Aint>(p * call.recvcount - 1) * call.recv.extent +
                                  call.recv.true_extent);
}

/// The blocks of a torus-ordered scratch buffer (`base`: block t is torus
/// rank t's) to their owners' slots of the user's buffer: one memcpy per
/// block for a contiguous type, else one send-receive to self of two P-block
/// index types. The own block stays where it is in place.
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

int run_permuted(const Plan& plan, const CallMemo& call, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                 void* recvbuf, MPI_Comm comm) {
  if (call.recv.extent <= 0)  // blocks that run backwards: rare enough for the vendor
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, call.recvcount, call.recvtype, comm);
  const MPI_Aint block = static_cast<MPI_Aint>(call.recvcount) * call.recv.extent;
  plan.permuted_scratch.resize(scratch_bytes(plan.size, call));
  char* base = plan.permuted_scratch.data() - call.recv.true_lb;
  char* user = static_cast<char*>(recvbuf);
  const int me = plan.user_rank[static_cast<std::size_t>(plan.rank)];
  int err = copy_own(plan.comm, plan.rank, call, sendbuf, sendcount, sendtype, user + me * block, base + plan.rank * block);
  if (err == MPI_SUCCESS) err = run_schedule(plan, call, base);
  if (err != MPI_SUCCESS) return err;
  return copy_out(plan.comm, plan.rank, plan.user_rank, call, base, user);
}

/// A call decided (by allgather() below, or repeated from a memo): the
/// vendor's allgather, or the own block copied and the schedule run.
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

/// A call whose arguments repeat memo m's: only the checks that depend on
/// the buffers are left.
int run_repeated(bool handle, const Plan& plan, const CallMemo& m, const void* sendbuf, int sendcount,
                 MPI_Datatype sendtype, void* recvbuf, MPI_Comm comm) {
  if (null_buffer(recvbuf, m.recvcount, m.recv) || (!m.in_place && null_buffer(sendbuf, m.sendcount, m.send)) ||
      (!m.in_place && overlap(sendbuf, m.sendcount, m.send, recvbuf, static_cast<long long>(m.recvcount) * plan.size,
                              m.recv)))
    return handle ? raise(comm, MPI_ERR_BUFFER) : MPI_ERR_BUFFER;
  return run_decided(handle, plan, m, sendbuf, sendcount, sendtype, recvbuf, comm);
}

/// The decisions of a checked call (its layouts already in *call).
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
  call->valid = true;
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
  // instruction here is added to the vendor's time (about 230 per call cost
  // 2 % at 8 B on 4 ranks).
  if (Plan* known = find_plan(comm))
    for (const CallMemo& m : known->memos)
      if (repeats(m, algorithm, sendbuf, sendcount, sendtype, recvcount, recvtype))
        return run_repeated(handle, *known, m, sendbuf, sendcount, sendtype, recvbuf, comm);
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
  if (requested == "auto" && !environment().tune_error.empty()) {
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
  if (requested == "vendor")
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

  std::string note, chosen = "self";
  const Schedule* schedule = nullptr;
  long trial = kNoTrial;
  if (size > 1) {
    int type_size = 0;
    PMPI_Type_size(recvtype, &type_size);
    const long long block_bytes = static_cast<long long>(recvcount) * type_size;
    if ((err = choose(*plan, requested, block_bytes, &schedule, &chosen, &note, &trial)) != MPI_SUCCESS)
      return raise(comm, err);
    // bridgehead's and cubgos' a, b, k depend on the block size: name them.
    if (const AlgorithmInfo* info = find_algorithm(chosen); environment().verbose && info && info->tuned)
      chosen += " (" + info->tuned->of(*schedule) + ")";
    if (environment().verbose && chosen == "circulant" && environment().circulant_packets > 0)
      chosen += " (p-gossip, p = " + std::to_string(environment().circulant_packets) + ", " +
                std::to_string(schedule->rounds()) + " rounds)";
    if (environment().verbose && chosen == "three-phase")
      chosen += " (" + schedule->construction() + ": " + std::to_string(schedule->rounds()) + " rounds)";
    if (environment().verbose && rank == 0 && plan->announced.insert(requested + "/" + chosen).second) {
      // Where no torus is known, a forced algorithm runs on MPI_Dims_create's shape.
      const std::string where =
          plan->source == TorusSource::none && chosen == "vendor"
              ? std::to_string(size) + " ranks"
              : "a " + plan->torus.to_string() + " torus " +
                    (plan->source == TorusSource::topology_file ? "from TORUSGATHER_TOPOLOGY " : "") + "(" +
                    std::to_string(size) + " ranks" +
                    (plan->node_ranks > 1 ? ", " + std::to_string(plan->node_ranks) + " per node on the last axis" : "") +
                    ")";
      const std::string guess = plan->source == TorusSource::none && chosen != "vendor"
                                    ? " -- MPI_Dims_create's shape: no torus known: " + plan->torus_note
                                    : "";
      std::fprintf(stderr, "torusgather: allgather on %s: %s%s%s%s\n", where.c_str(), chosen.c_str(),
                   note.empty() ? "" : " -- ", note.c_str(), guess.c_str());
    }
  }

  fill_memo(&call, requested, sendbuf, sendcount, sendtype, recvcount, recvtype, schedule);
  call.from_environment = algorithm == nullptr;
  if (trial != kNoTrial) {
    // One of auto's timed trials: no memo, so the next call takes the next candidate.
    double t0 = 0;
    if ((err = trial_start(*plan, &t0)) != MPI_SUCCESS) return raise(comm, err);
    err = run_decided(handle, *plan, call, sendbuf, sendcount, sendtype, recvbuf, comm);
    const int e = record_trial(*plan, trial, PMPI_Wtime() - t0);
    return err != MPI_SUCCESS ? err : raise(comm, e);
  }
  if (size > 1 && is_named(recvtype) && (in_place || is_named(sendtype))) {
    plan->memos[plan->next_memo] = call;
    plan->next_memo = (plan->next_memo + 1) % Plan::kMemos;
  }
  return run_decided(handle, *plan, call, sendbuf, sendcount, sendtype, recvbuf, comm);
}

/// Whether `requested` can run: a known name, and for auto a well-formed
/// TORUSGATHER_TUNE; rank 0 of comm says why not.
bool usable_name(const std::string& requested, MPI_Comm comm) {
  if (known_name(requested) && (requested != "auto" || environment().tune_error.empty())) return true;
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  if (rank == 0)
    std::fprintf(stderr, "torusgather: %s\n",
                 known_name(requested) ? ("TORUSGATHER_TUNE: " + environment().tune_error).c_str()
                                       : ("unknown algorithm '" + requested + "'").c_str());
  return false;
}

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
  auto& list = plan.prepared_v;
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
    if (list.size() > Plan::kPreparedV) list.pop_back();
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
  if (requested == "vendor") return vendor();
  if (total == 0) return MPI_SUCCESS;  // nothing to gather (every send signature is empty too)

  Plan* plan = nullptr;
  int err = get_plan(comm, &plan);
  if (err != MPI_SUCCESS) return raise(comm, err);
  Layout send, recv;
  if ((err = check_committed(recvtype, plan->comm)) == MPI_SUCCESS && !in_place)
    err = check_committed(sendtype, plan->comm);
  if (err != MPI_SUCCESS) return raise(comm, err);
  recv = layout_of(recvtype);
  if (!in_place) send = layout_of(sendtype);
  if (null_buffer(recvbuf, total, recv) || (!in_place && null_buffer(sendbuf, sendcount, send)))
    return raise(comm, MPI_ERR_BUFFER);
  int ssize = 0, rsize = 0;
  PMPI_Type_size(recvtype, &rsize);
  if (!in_place) {
    PMPI_Type_size(sendtype, &ssize);
    const long long sbytes = static_cast<long long>(sendcount) * ssize,
                    rbytes = static_cast<long long>(recvcounts[rank]) * rsize;
    if (sbytes > rbytes) return raise(comm, MPI_ERR_TRUNCATE);
    if (sbytes < rbytes) return raise(comm, MPI_ERR_ARG);
    // The receive span: from the lowest displacement of a non-empty block
    // to the end of the highest.
    long long lo = LLONG_MAX, hi = LLONG_MIN;
    for (int u = 0; u < size; ++u)
      if (recvcounts[u] > 0) {
        lo = std::min(lo, static_cast<long long>(displs[u]));
        hi = std::max(hi, static_cast<long long>(displs[u]) + recvcounts[u]);
      }
    if (recv.extent > 0 && overlap(sendbuf, sendcount, send, static_cast<char*>(recvbuf) + lo * recv.extent, hi - lo, recv))
      return raise(comm, MPI_ERR_BUFFER);
  }
  if (recv.extent <= 0) return vendor();  // blocks that run backwards: rare enough for the vendor

  std::string note, chosen = "self";
  const Schedule* schedule = nullptr;
  long trial = kNoTrial;
  if (size > 1) {
    // Every rank has the same counts, so the same largest block, size class
    // and trial sequence: auto times allgatherv calls as allgather calls.
    const long long block_bytes = static_cast<long long>(largest) * rsize;
    if ((err = choose(*plan, requested, block_bytes, &schedule, &chosen, &note, &trial)) != MPI_SUCCESS)
      return raise(comm, err);
    if (environment().verbose && rank == 0 && plan->announced.insert("v/" + requested + "/" + chosen).second)
      std::fprintf(stderr, "torusgather: allgatherv on %s%d ranks%s, largest block %lld B: %s%s%s\n",
                   plan->source == TorusSource::none && chosen == "vendor"
                       ? ""
                       : ("a " + plan->torus.to_string() + " torus (").c_str(),
                   size, plan->source == TorusSource::none && chosen == "vendor" ? "" : ")", block_bytes,
                   chosen.c_str(), note.empty() ? "" : " -- ", note.c_str());
  }
  double t0 = 0;
  if (trial != kNoTrial && (err = trial_start(*plan, &t0)) != MPI_SUCCESS) return raise(comm, err);
  // A timed trial's time is recorded (collectively on its last call).
  auto recorded = [&](int result) {
    if (trial == kNoTrial) return result;
    const int e = record_trial(*plan, trial, PMPI_Wtime() - t0);
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
  if (inter || requested == "vendor") return vendor();
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
  std::string note, chosen = "self";
  const Schedule* schedule = nullptr;
  if (size > 1) {
    int type_size = 0;
    PMPI_Type_size(recvtype, &type_size);
    if ((err = choose(*plan, requested, static_cast<long long>(recvcount) * type_size, &schedule, &chosen, &note,
                      nullptr)) != MPI_SUCCESS)
      return raise(comm, err);
    if (environment().verbose && rank == 0 && plan->announced.insert("init/" + requested + "/" + chosen).second)
      std::fprintf(stderr, "torusgather: allgather_init on a %s torus (%d ranks): %s%s%s\n",
                   plan->torus.to_string().c_str(), size, chosen.c_str(), note.empty() ? "" : " -- ", note.c_str());
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

/// The edge of the C ABI: runs `body`, and turns an exception that escaped
/// it into an MPI error class, raised through comm's handler if `handle`.
template <class Body>
int guarded(bool handle, MPI_Comm comm, const char* routine, Body&& body) noexcept {
  try {
    return body();
  } catch (...) {
    const int err = error_of(std::current_exception(), routine);
    if (!handle) return err;
    try {
      return raise(comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm, err);
    } catch (...) {  // a C++ error handler's exception stops here too
      return err;
    }
  }
}

}  // namespace
}  // namespace torusgather

extern "C" int TG_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm) {
  return torusgather::guarded(true, comm, "TG_Allgather", [&] {
    return torusgather::allgather(true, nullptr, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  });
}

extern "C" int TG_Allgather_algorithm(const char* algorithm, const void* sendbuf, int sendcount,
                                      MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                      MPI_Comm comm) {
  return torusgather::guarded(true, comm, "TG_Allgather_algorithm", [&] {
    return torusgather::allgather(true, algorithm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  });
}

extern "C" int TG_Allgather_noraise(const char* algorithm, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                    void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return torusgather::guarded(false, comm, "TG_Allgather_noraise", [&] {
    return torusgather::allgather(false, algorithm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  });
}

extern "C" int TG_Allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                 TG_Request* request) {
  return torusgather::guarded(true, comm, "TG_Allgather_init", [&] {
    return torusgather::allgather_init(true, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info,
                                       request);
  });
}

extern "C" int TG_Allgather_init_noraise(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                         int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                         TG_Request* request) {
  return torusgather::guarded(false, comm, "TG_Allgather_init_noraise", [&] {
    return torusgather::allgather_init(false, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info,
                                       request);
  });
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

namespace torusgather {
namespace {

int algorithm_for(const char* algorithm, MPI_Comm comm, int count, MPI_Datatype datatype, char* name, int len) {
  const std::string requested = algorithm ? algorithm : environment().algorithm;
  if (!known_name(requested) || count < 0 || datatype == MPI_DATATYPE_NULL || !name) return MPI_ERR_ARG;
  if (requested == "auto" && !environment().tune_error.empty()) return MPI_ERR_ARG;
  std::string chosen = requested;
  if (requested != "vendor") {
    Plan* plan = nullptr;
    if (const int err = get_plan(comm, &plan); err != MPI_SUCCESS) return err;
    int type_size = 0;
    PMPI_Type_size(datatype, &type_size);
    std::string note;
    const Schedule* schedule = nullptr;
    if (const int err = choose(*plan, requested, static_cast<long long>(count) * type_size, &schedule, &chosen, &note,
                               nullptr);
        err != MPI_SUCCESS)
      return err;
  }
  if (len > 0) {
    std::strncpy(name, chosen.c_str(), static_cast<std::size_t>(len) - 1);
    name[len - 1] = '\0';
  }
  return MPI_SUCCESS;
}

int predicted_time(const char* algorithm, MPI_Comm comm, int count, MPI_Datatype datatype, double* seconds) {
  const std::string requested = algorithm ? algorithm : environment().algorithm;
  if (!known_name(requested) || count < 0 || datatype == MPI_DATATYPE_NULL || !seconds) return MPI_ERR_ARG;
  if (requested == "auto" && !environment().tune_error.empty()) return MPI_ERR_ARG;
  *seconds = -1;
  int size = 0;
  if (const int err = PMPI_Comm_size(comm, &size); err != MPI_SUCCESS) return err;
  if (size == 1) return MPI_SUCCESS;  // a local copy: nothing to model
  Plan* plan = nullptr;
  if (const int err = get_plan(comm, &plan); err != MPI_SUCCESS) return err;
  int type_size = 0;
  PMPI_Type_size(datatype, &type_size);
  const long long block_bytes = static_cast<long long>(count) * type_size;
  std::string chosen = requested, note;
  const Schedule* schedule = nullptr;
  if (requested != "vendor") {
    if (const int err = choose(*plan, requested, block_bytes, &schedule, &chosen, &note, nullptr); err != MPI_SUCCESS)
      return err;
  }
  std::vector<Candidate> candidates;
  int best = -1;
  if (const int err = predictions(*plan, block_bytes, &candidates, &best, chosen); err != MPI_SUCCESS) return err;
  for (const Candidate& c : candidates)
    if (c.name == chosen && c.why_not.empty() && c.profile) *seconds = c.predicted;
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace torusgather

extern "C" int TG_Algorithm_for(const char* algorithm, MPI_Comm comm, int count, MPI_Datatype datatype, char* name,
                                int len) {
  return torusgather::guarded(false, comm, "TG_Algorithm_for", [&] {
    return torusgather::algorithm_for(algorithm, comm, count, datatype, name, len);
  });
}

extern "C" int TG_Predicted_time(const char* algorithm, MPI_Comm comm, int count, MPI_Datatype datatype,
                                 double* seconds) {
  return torusgather::guarded(false, comm, "TG_Predicted_time", [&] {
    return torusgather::predicted_time(algorithm, comm, count, datatype, seconds);
  });
}

extern "C" int TG_Algorithm_chosen(const char* algorithm, MPI_Comm comm, char* name, int len) {
  return TG_Algorithm_for(algorithm, comm, 1, MPI_BYTE, name, len);
}

extern "C" int TG_Algorithm_list(char* names, int len) {
  return torusgather::guarded(false, MPI_COMM_NULL, "TG_Algorithm_list", [&] {
    const std::string list = torusgather::algorithm_names(",");
    if (names == nullptr || len < static_cast<int>(list.size()) + 1) return MPI_ERR_ARG;
    std::memcpy(names, list.c_str(), list.size() + 1);
    return MPI_SUCCESS;
  });
}
