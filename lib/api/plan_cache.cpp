// SPDX-License-Identifier: BSD-3-Clause
#include "api/plan_cache.hpp"

#include <memory>
#include <utility>

#include "api/env.hpp"
#include "api/errors.hpp"
#include "api/machine.hpp"
#include "api/nodes.hpp"
#include "api/report.hpp"
#include "model/closed_form.hpp"
#ifdef TORUSGATHER_SMPI
#include <xbt/config.hpp>
#endif

namespace torusgather {
namespace {

/// The one way a plan builds: the parameters and everything else a build
/// may read, from the plan and the environment. Throws (out of memory, a
/// failed construction); declines with nullptr and *why.
std::unique_ptr<Schedule> build(Plan& plan, const AlgorithmInfo& info, const std::string& params, std::string* why) {
  inject_fault("build", plan.rank);
  BuildContext context;
  context.params = params;
  context.packets = environment().circulant_packets;  // p-gossip: at most p blocks per link per round
  context.node_of = &plan.node_of;                    // the communicator's own nodes
  context.node_ranks = plan.node_ranks;
  return try_build(info, plan.torus, why, context);
}

/// The parameters of `key`'s build ("": the registry's defaults), or false
/// and *why where they do not fit the torus.
bool params_of(Plan& plan, const AlgorithmInfo& info, const ScheduleKey& key, long long block_bytes,
               std::string* params, std::string* why) {
  params->clear();
  if (key.variant == kDefaultVariant) return true;
  return params_for(model_of(plan), info, block_bytes, params, why);
}

/// Whether `key` was built or declined before: *out, or *why.
bool known(const ScheduleCache& cache, const ScheduleKey& key, const Schedule** out, std::string* why) {
  if (auto it = cache.by_key.find(key); it != cache.by_key.end()) {
    *out = it->second;
    return true;
  }
  if (auto it = cache.declined.find(key); it != cache.declined.end()) {
    *why = it->second;
    return true;
  }
  return false;
}

/// Where a schedule built for a call goes: kept for the plan's life, or
/// aside (rank 0 profiling one it may never run: replaced by the next).
enum class Keep { cached, aside };

/// The schedule `info` runs for blocks of `block_bytes`: known before,
/// built once with the key's parameters, or declined (nullptr and *why).
/// Local; an error is returned, never thrown.
int find_or_build(Plan& plan, const AlgorithmInfo& info, long long block_bytes, Keep keep, const Schedule** out,
                  std::string* why) {
  *out = nullptr;
  if (info.needs_node_map && plan.node_of.empty()) return MPI_ERR_INTERN;  // ensure_node_map() first
  try {
    const ScheduleKey key = schedule_key(plan, info, block_bytes);
    ScheduleCache& cache = plan.schedules;
    if (known(cache, key, out, why)) return MPI_SUCCESS;
    std::string params;
    if (*why = declines(info, plan.torus); !why->empty() || !params_of(plan, info, key, block_bytes, &params, why)) {
      cache.declined[key] = *why;
      return MPI_SUCCESS;
    }
    if (auto it = cache.built.find({info.id, params}); it != cache.built.end()) {
      *out = it->second.get();
      if (keep == Keep::cached) cache.by_key[key] = *out;
      return MPI_SUCCESS;
    }
    std::unique_ptr<Schedule> built = build(plan, info, params, why);
    if (!built) {
      cache.declined[key] = *why;
      return MPI_SUCCESS;
    }
    if (keep == Keep::aside) {
      cache.profiling_scratch = std::move(built);
      *out = cache.profiling_scratch.get();
    } else {
      *out = cache.by_key[key] = (cache.built[{info.id, params}] = std::move(built)).get();
    }
    return MPI_SUCCESS;
  } catch (...) {
    return error_of(std::current_exception(), (std::string("building ") + info.name).c_str());
  }
}

}  // namespace

ScheduleKey schedule_key(Plan& plan, const AlgorithmInfo& info, long long block_bytes) {
  if (!info.tuned || block_bytes < 0) return {info.id, kDefaultVariant};
  return {info.id, tuned_bucket(model_of(plan), info, block_bytes)};
}

int schedule_of(Plan& plan, const AlgorithmInfo& info, long long block_bytes, const Schedule** out,
                std::string* why) {
  return find_or_build(plan, info, block_bytes, Keep::cached, out, why);
}

int agreed_schedule_of(Plan& plan, const AlgorithmInfo& info, long long block_bytes, const Schedule** out,
                       std::string* why) {
  int err = schedule_of(plan, info, block_bytes, out, why);
  const ScheduleKey key = schedule_key(plan, info, block_bytes);
  if (plan.schedules.agreed.count(key)) return err;
  err = agree(plan.comm, err);
  if (err == MPI_SUCCESS) plan.schedules.agreed.insert(key);
  return err;
}

int profile_of(Plan& plan, const ProfileKey& key, const ProfileCompute& compute, const CostProfile** out,
               std::string* why) {
  *out = nullptr;
  ProfileCache& cache = plan.profiles;
  if (auto it = cache.profiles.find(key); it != cache.profiles.end()) {
    *out = &it->second;
    return MPI_SUCCESS;
  }
  if (auto it = cache.declined.find(key); it != cache.declined.end()) {
    *why = it->second;
    return MPI_SUCCESS;
  }
  std::vector<double> flat;
  // header[0]: the profile's length, -1 if declined; header[1]: rank 0's error.
  long long header[2] = {-1, MPI_SUCCESS};
  std::string reason;
  if (plan.rank == 0) {
    try {
      inject_fault("profile", plan.rank);
      CostProfile p;
      header[1] = compute(&p, &reason);
      if (header[1] == MPI_SUCCESS && reason.empty()) {
        flat = p.serialize();
        header[0] = static_cast<long long>(flat.size());
      }
    } catch (...) {
      header[1] = error_of(std::current_exception(), ("the cost profile of " + key.to_string()).c_str());
    }
  }
  int err = PMPI_Bcast(header, 2, MPI_LONG_LONG, 0, plan.comm);
  if (err != MPI_SUCCESS) return err;
  if (header[1] != MPI_SUCCESS) return static_cast<int>(header[1]);
  const long long n = header[0];
  if (n < 0) {
    *why = cache.declined[key] = plan.rank == 0 ? reason : "declined on rank 0";
    return MPI_SUCCESS;
  }
  flat.resize(static_cast<std::size_t>(n));
  if (n > 0 && (err = PMPI_Bcast(flat.data(), static_cast<int>(n), MPI_DOUBLE, 0, plan.comm)) != MPI_SUCCESS) return err;
  *out = &(cache.profiles[key] = CostProfile::deserialize(flat));
  return MPI_SUCCESS;
}

int vendor_profile_of(Plan& plan, VendorAlgorithm alg, const CostProfile** out, std::string* why) {
  const Torus& t = plan.torus;
  const int k = plan.node_ranks;
  return profile_of(plan, ProfileKey{Pick::the_vendor(), static_cast<long>(alg)},
                    [&t, alg, k](CostProfile* p, std::string*) {
                      *p = vendor_profile(t, alg, k);
                      return MPI_SUCCESS;
                    },
                    out, why);
}

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

ModelContext model_context(Plan& plan, const Machine& m) {
  ModelContext ctx;
  ctx.torus = &plan.torus;
  ctx.machine = m;
  // The plan's, not the calibration's: a calibration serves every shape laid
  // over the same ranks (machine_of).
  ctx.machine.node_ranks = plan.node_ranks;
  ctx.vendor_model = vendor_model();
  ctx.root = plan.rank == 0;
#ifdef TORUSGATHER_SMPI
  ctx.simgrid = true;
  ctx.cpu_counts = simgrid::config::get_value<bool>("smpi/simulate-computation");
#endif
  if (plan.calibration) {
    ctx.tg_per_round = plan.calibration->tg_per_round;
    ctx.vendor_per_round = plan.calibration->vendor_per_round;
  }
  ctx.fixed_params = environment().fixed_params;
  warn_unfit_params(plan);
  ctx.params_cache = &plan.schedules.params;
  ctx.profile_of = [&plan](const ProfileKey& key, const ProfileCompute& compute, const CostProfile** out,
                           std::string* why) { return profile_of(plan, key, compute, out, why); };
  // Rank 0 profiles schedules it may never run: one at a time, built aside
  // (a schedule that runs is cached when it is chosen).
  ctx.schedule_of = [&plan](const AlgorithmInfo& info, long long block_bytes, const Schedule** out,
                            std::string* why) {
    return find_or_build(plan, info, block_bytes, Keep::aside, out, why);
  };
  return ctx;
}

const ModelContext& model_of(Plan& plan) {
  if (!plan.model) plan.model = std::make_unique<ModelContext>(model_context(plan, plan.calibration->machine));
  return *plan.model;
}

int predictions(Plan& plan, long long block_bytes, std::vector<Candidate>* out, int* best, const Pick* named) {
  const Machine* m = nullptr;
  const int err = machine_of(plan, &m);
  if (err != MPI_SUCCESS) return err;
  // The algorithms that need the node map compete up to the limit (or when named).
  const bool named_needs_map = named && !named->vendor && algorithm(named->id).needs_node_map;
  if (plan.torus.size() <= kSteppedProfileLimit || named_needs_map)
    if (const int e = ensure_node_map(plan); e != MPI_SUCCESS) return e;
  const int result = predict_all(model_of(plan), block_bytes, named, out, best);
  plan.schedules.profiling_scratch.reset();
  return result;
}

}  // namespace torusgather
