// SPDX-License-Identifier: BSD-3-Clause
// A plan's schedules and cost profiles, each made once: schedules on the
// ranks that run them, profiles on rank 0 and broadcast; and the model's
// view of the plan.
#pragma once

#include <string>
#include <vector>

#include "api/plan.hpp"
#include "model/cost.hpp"
#include "model/predictions.hpp"
#include "schedule/registry.hpp"

namespace torusgather {

/// The key of `info`'s schedule for blocks of `block_bytes`: a size-tuned
/// algorithm's r bucket (needs the calibrated machine: machine_of() first),
/// else, or with block_bytes < 0, the registry's defaults.
ScheduleKey schedule_key(Plan& plan, const AlgorithmInfo& info, long long block_bytes);

/// The schedule `info` runs for blocks of `block_bytes` (see schedule_key)
/// on the plan's torus, built once; nullptr and the reason in *why where it
/// declines the shape. Local; an error is returned, never thrown.
int schedule_of(Plan& plan, const AlgorithmInfo& info, long long block_bytes, const Schedule** out,
                std::string* why);

/// schedule_of, and every rank learns whether the build succeeded on all:
/// collective the first time a key is asked for (every rank asks it).
int agreed_schedule_of(Plan& plan, const AlgorithmInfo& info, long long block_bytes, const Schedule** out,
                       std::string* why);

/// The cost profile under `key`, computed by rank 0 alone and broadcast:
/// the other ranks need not build schedules they will not run, and every
/// rank predicts from the same numbers. Collective the first time a key is
/// asked for.
int profile_of(Plan& plan, const ProfileKey& key, const ProfileCompute& compute, const CostProfile** out,
               std::string* why);

/// The profile of the vendor's algorithm `alg` on the plan's torus.
int vendor_profile_of(Plan& plan, VendorAlgorithm alg, const CostProfile** out, std::string* why);

/// The vendor allgather's model: TORUSGATHER_VENDOR_MODEL, else what the
/// MPI library is (under SimGrid SMPI: its smpi/allgather setting).
std::string vendor_model();

/// The model's view of this plan on machine m.
ModelContext model_context(Plan& plan, const Machine& m);

/// model_context(plan, its calibrated machine), made once per plan
/// (machine_of() first).
const ModelContext& model_of(Plan& plan);

/// Every algorithm's and the vendor's row for blocks of `block_bytes`, and
/// in *best the fastest (-1: none); an algorithm auto never considers is
/// predicted only when it is `named`. Calibrates on first need. Collective.
int predictions(Plan& plan, long long block_bytes, std::vector<Candidate>* out, int* best,
                const Pick* named = nullptr);

}  // namespace torusgather
