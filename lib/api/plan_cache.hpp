// SPDX-License-Identifier: BSD-3-Clause
// A plan's schedules and cost profiles, each built once: schedules on the
// ranks that run them, profiles on rank 0 and broadcast.
#pragma once

#include <string>
#include <vector>

#include "api/plan.hpp"
#include "model/choice.hpp"
#include "model/cost.hpp"
#include "schedule/registry.hpp"

namespace torusgather {

/// The schedule named `name` on the plan's torus, built once; nullptr and
/// the reason in *why if it declines the shape. Local; an error is returned,
/// never thrown.
int schedule_of(Plan& plan, const std::string& name, const Schedule** out, std::string* why);

/// schedule_of, and every rank learns whether the build succeeded on all
/// (once per name and plan): collective, for the steps every rank takes.
int agreed_schedule_of(Plan& plan, const std::string& name, const Schedule** out, std::string* why);

/// Size-tuned `info` for blocks of `block_bytes`, built once per parameter
/// set. Local; an error is returned, never thrown.
int tuned_of(Plan& plan, const AlgorithmInfo& info, long long block_bytes, const Schedule** out, std::string* why);

/// The cost profile under `key`, computed by rank 0 and broadcast.
/// Collective the first time a key is asked for.
int profile_of(Plan& plan, const std::string& key, const ProfileCompute& compute, const CostProfile** out,
               std::string* why);

/// The profile of the vendor's algorithm `alg` on the plan's torus.
int vendor_profile_of(Plan& plan, VendorAlgorithm alg, const CostProfile** out, std::string* why);

/// The vendor allgather's model: TORUSGATHER_VENDOR_MODEL, else what the
/// MPI library is (under SimGrid SMPI: its smpi/allgather setting).
std::string vendor_model();

/// The selector's view of this plan on machine m.
ChoiceContext context_of(Plan& plan, const Machine& m);

/// context_of(plan, its calibrated machine), made once per plan.
const ChoiceContext& choice_of(Plan& plan);

/// Every algorithm and the vendor's, each with its predicted time for
/// blocks of `block_bytes` or why it does not apply; *best: the fastest
/// (-1: none). An algorithm auto never considers is predicted only when it
/// is `named`. Collective.
int predictions(Plan& plan, long long block_bytes, std::vector<Candidate>* out, int* best,
                const std::string& named = {});

}  // namespace torusgather
