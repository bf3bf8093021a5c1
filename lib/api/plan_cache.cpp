// SPDX-License-Identifier: BSD-3-Clause
#include "api/plan_cache.hpp"

#include <memory>

#include "api/env.hpp"
#include "api/errors.hpp"
#include "api/machine.hpp"
#include "model/closed_form.hpp"
#ifdef TORUSGATHER_SMPI
#include <xbt/config.hpp>
#endif

namespace torusgather {

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

int agreed_schedule_of(Plan& plan, const std::string& name, const Schedule** out, std::string* why) {
  return agree_once(plan, name, schedule_of(plan, name, out, why));
}

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

int vendor_profile_of(Plan& plan, VendorAlgorithm alg, const CostProfile** out, std::string* why) {
  const Torus& t = plan.torus;
  const int k = plan.node_ranks;
  return profile_of(plan, std::string("vendor ") + to_string(alg), [&t, alg, k](CostProfile* p, std::string*) {
    *p = vendor_profile(t, alg, k);
    return MPI_SUCCESS;
  }, out, why);
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

const ChoiceContext& choice_of(Plan& plan) {
  if (!plan.choice) plan.choice = std::make_unique<ChoiceContext>(context_of(plan, plan.calibration->machine));
  return *plan.choice;
}

int predictions(Plan& plan, long long block_bytes, std::vector<Candidate>* out, int* best,
                const std::string& named) {
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

}  // namespace torusgather
