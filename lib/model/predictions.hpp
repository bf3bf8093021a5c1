// SPDX-License-Identifier: BSD-3-Clause
// The model's predictions for one block size, without MPI: a row per
// algorithm (its cost profile and parameters, or why it does not apply),
// the vendor's row, and the fastest. The MPI layer supplies where profiles
// that need a built schedule come from (computed on rank 0 and broadcast);
// tg-plan --select computes them in place.
#pragma once

#include <climits>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "model/cost.hpp"
#include "model/pick.hpp"
#include "model/selector.hpp"
#include "schedule/registry.hpp"

namespace torusgather {

/// The variant of an algorithm built with the registry's default
/// parameters (or an algorithm without parameters).
constexpr long kDefaultVariant = LONG_MAX;
/// The variant of a size-tuned algorithm whose parameters the environment fixes.
constexpr long kFixedVariant = LONG_MIN;

/// What a cost profile is of: an algorithm's variant (a size-tuned one's r
/// bucket, else kDefaultVariant), or the vendor's allgather (variant: its
/// VendorAlgorithm).
struct ProfileKey {
  Pick pick;
  long variant = kDefaultVariant;
  bool operator<(const ProfileKey& o) const { return std::tie(pick, variant) < std::tie(o.pick, o.variant); }
  std::string to_string() const;
};

/// Computes one profile: 0, or an error code passed through unchanged.
using ProfileCompute = std::function<int(CostProfile*, std::string* why)>;

/// The model's view of one plan: its torus, machine, software costs and
/// environment, and where profiles and schedules come from.
struct ModelContext {
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
  /// Whether a call's own CPU takes time (not in SimGrid without simulated
  /// computation): then a candidate that lists its blocks is charged for it.
  bool cpu_counts = true;
  /// Size-tuned algorithm -> the parameters the environment fixes.
  std::map<AlgorithmId, std::string> fixed_params;
  /// Size-tuned algorithm -> r bucket -> parameters (filled as needed).
  std::map<AlgorithmId, std::map<long, std::string>>* params_cache = nullptr;
  /// The profile under `key`, computed by `compute` once (and cached).
  std::function<int(const ProfileKey& key, const ProfileCompute& compute, const CostProfile** out, std::string* why)>
      profile_of;
  /// The schedule `info` runs for blocks of `block_bytes`, built once;
  /// 0 and nullptr with *why when it declines the shape.
  std::function<int(const AlgorithmInfo& info, long long block_bytes, const Schedule** out, std::string* why)>
      schedule_of;
};

/// round(log2 r), r = α/(sβ): the bucket whose r tunes a size-tuned
/// algorithm's parameters (every rank rounds the same r); kFixedVariant when
/// the environment fixes them.
long tuned_bucket(const ModelContext& ctx, const AlgorithmInfo& info, long long block_bytes);
/// The parameters of size-tuned `info` for blocks of `block_bytes`: the
/// environment's (false with *why if malformed for the torus), else the best
/// at the bucket's r.
bool params_for(const ModelContext& ctx, const AlgorithmInfo& info, long long block_bytes, std::string* params,
                std::string* why);

/// The vendor algorithm charged for blocks of `block_bytes`, with SimGrid's
/// substitutions; false if the model is unknown.
bool vendor_algorithm(const ModelContext& ctx, long long block_bytes, VendorAlgorithm* out);

/// A ProfileCompute for algorithm `info`: up to kSteppedProfileLimit ranks
/// the schedule `get` gives is built (so that a shape it declines is known)
/// and stepped through where no closed form is known; above, the closed
/// form alone, nothing built.
/// With a node axis (node_ranks > 1): a node-aware schedule's profile is
/// composed from its inner schedule's; the others' closed forms have their
/// link loads times k (the node's ranks share its links), and a schedule
/// without one is stepped through with the node's links shared.
ProfileCompute profiling(const Torus& torus, const AlgorithmInfo& info,
                         std::function<int(const Schedule**, std::string*)> get, int node_ranks = 1);

/// Every algorithm's and the vendor's row for blocks of `block_bytes`, and
/// in *best the fastest (-1: none applies). An algorithm `auto` never
/// considers is predicted only when it is `named`. 0, or the first error of
/// the context's callbacks.
int predict_all(const ModelContext& ctx, long long block_bytes, const Pick* named, std::vector<Candidate>* out,
                int* best);

/// The applicable, auto-considered rows of `candidates` (predict_all's),
/// fastest first.
std::vector<const Candidate*> ranked(const std::vector<Candidate>& candidates);

}  // namespace torusgather
