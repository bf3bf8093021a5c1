// SPDX-License-Identifier: BSD-3-Clause
// What `auto` decides, without MPI: a row per algorithm (its cost profile and
// parameters for the block size, or why it does not apply), the vendor's
// row, and the fastest. The MPI layer supplies where profiles that need a
// built schedule come from (computed on rank 0 and broadcast); tg-plan
// --select computes them in place.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/cost.hpp"
#include "model/selector.hpp"
#include "schedule/registry.hpp"

namespace torusgather {

/// Computes one profile: 0, or an error code passed through unchanged.
using ProfileCompute = std::function<int(CostProfile*, std::string* why)>;

struct ChoiceContext {
  const Torus* torus = nullptr;
  /// machine.node_ranks k > 1: the torus's last axis is each node's k ranks
  /// (shared memory); the node-aware algorithms apply, and profiles charge
  /// the node's links.
  Machine machine;
  std::string vendor_model;  ///< "ompi", "mpich", a single algorithm, or "" (unknown)
  bool simgrid = false;      ///< SimGrid SMPI's ring is the shift and its rd the tree
  bool root = true;          ///< where profiles are computed (rank 0; tg-plan)
  double tg_per_round = 0;
  double vendor_per_round = 0;
  /// Tuned algorithm name -> the parameters the environment fixes.
  std::map<std::string, std::string> fixed_params;
  /// Tuned name -> r bucket -> parameters (filled as needed).
  std::map<std::string, std::map<long, std::string>>* params_cache = nullptr;
  /// The profile under `key`, computed by `compute` once (and cached).
  std::function<int(const std::string& key, const ProfileCompute& compute, const CostProfile** out, std::string* why)>
      profile_of;
  /// The schedule `name` runs for blocks of `block_bytes`, built once;
  /// 0 and nullptr with *why when it declines the shape.
  std::function<int(const std::string& name, long long block_bytes, const Schedule** out, std::string* why)> schedule_of;
};

/// round(log2 r), r = α/(sβ): the bucket whose r tunes a, b, k (every rank
/// rounds the same r); LONG_MIN when the environment fixes the parameters.
long tuned_bucket(const ChoiceContext& ctx, const AlgorithmInfo& info, long long block_bytes);
/// The parameters of size-tuned `info` for blocks of `block_bytes`: the
/// environment's (false with *why if malformed for the torus), else the best
/// at the bucket's r.
bool params_for(const ChoiceContext& ctx, const AlgorithmInfo& info, long long block_bytes, std::string* params,
                std::string* why);

/// The vendor algorithm charged for blocks of `block_bytes`, with SimGrid's
/// substitutions; false if the model is unknown.
bool vendor_algorithm(const ChoiceContext& ctx, long long block_bytes, VendorAlgorithm* out);

/// A ProfileCompute for algorithm `name`: up to kSteppedProfileLimit ranks
/// the schedule `get` gives is built (so that a shape it declines is known)
/// and stepped through where no closed form is known; above, the closed
/// form alone, nothing built.
/// With a node axis (node_ranks > 1): a node-aware schedule's profile is
/// composed from its inner schedule's; the others' closed forms have their
/// link loads times k (the node's ranks share its links), and a schedule
/// without one is stepped through with the node's links shared.
ProfileCompute profiling(const Torus& torus, const std::string& name,
                         std::function<int(const Schedule**, std::string*)> get, int node_ranks = 1);

/// Every algorithm's and the vendor's row for blocks of `block_bytes`, and
/// in *best the fastest (-1: none applies). An algorithm `auto` never
/// considers is predicted only when it is `named`. 0, or the first error of
/// the context's callbacks.
int predict_all(const ChoiceContext& ctx, long long block_bytes, const std::string& named,
                std::vector<Candidate>* out, int* best);

}  // namespace torusgather
