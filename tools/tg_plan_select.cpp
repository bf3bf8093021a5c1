// SPDX-License-Identifier: BSD-3-Clause
// tg-plan --select: what auto decides per block size, and how long rank 0 takes.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/predictions.hpp"
#include "model/tune.hpp"
#include "schedule/registry.hpp"
#include "tg_plan.hpp"

namespace torusgather {
namespace tg_plan {

/// tg-plan --select: the decision `auto` takes on rank 0 for each size
/// (every profile computed here, as rank 0 does before broadcasting).
int select_report(const Torus& torus, const std::vector<long long>& sizes, const Machine& machine,
                  const std::string& vendor, bool json, int node_ranks) {
  std::map<ProfileKey, CostProfile> profiles;
  std::map<ProfileKey, std::string> no_profile;
  std::unique_ptr<Schedule> scratch;
  std::map<AlgorithmId, std::map<long, std::string>> params_cache;
  ModelContext ctx;
  ctx.torus = &torus;
  ctx.machine = machine;
  ctx.vendor_model = vendor;
  ctx.machine.node_ranks = node_ranks;
  ctx.params_cache = &params_cache;
  // Variables that fix an algorithm's parameters, as the library reads them.
  for (const AlgorithmInfo& info : algorithms())
    if (info.tuned)
      if (const char* v = std::getenv(info.tuned->env); v && *v) ctx.fixed_params[info.id] = v;
  ctx.profile_of = [&](const ProfileKey& key, const ProfileCompute& compute, const CostProfile** out,
                       std::string* why) {
    if (auto it = profiles.find(key); it != profiles.end()) {
      *out = &it->second;
      return 0;
    }
    if (auto it = no_profile.find(key); it != no_profile.end()) {
      *why = it->second;
      return 0;
    }
    CostProfile p;
    std::string reason;
    if (const int err = compute(&p, &reason)) return err;
    if (!reason.empty() || p.runs.empty()) {
      *why = no_profile[key] = reason.empty() ? "no profile" : reason;
      *out = nullptr;
      return 0;
    }
    *out = &(profiles[key] = std::move(p));
    return 0;
  };
  ctx.schedule_of = [&](const AlgorithmInfo& info, long long block_bytes, const Schedule** out, std::string* why) {
    BuildContext build;
    build.node_ranks = node_ranks;
    if (info.tuned && !params_for(ctx, info, block_bytes, &build.params, why)) return 0;
    // As rank 0 does: one schedule at a time, built to be profiled and dropped.
    scratch = try_build(info, torus, why, build);
    *out = scratch.get();
    return 0;
  };
  std::vector<std::pair<long long, Candidate>> chosen;
  std::vector<double> seconds;
  double total = 0;
  for (long long size : sizes) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<Candidate> candidates;
    int best = -1;
    predict_all(ctx, size, nullptr, &candidates, &best);
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    total += seconds.back();
    Candidate c;
    c.pick = Pick::of(kUniversal);  // what auto runs when nothing applies
    if (best >= 0) c = candidates[static_cast<std::size_t>(best)];
    chosen.emplace_back(size, c);
    if (!json) std::printf("blocks of %lld B:\n%s", size, format_table(candidates, best).c_str());
  }
  if (json) {
    std::printf("{\"dims\": \"%s\", \"ranks\": %lld, \"vendor\": \"%s\", \"alpha\": %g, \"beta\": %g, "
                "\"delta\": %g, \"overhead\": %g, \"choices\": {",
                torus.to_string().c_str(), static_cast<long long>(torus.size()), json_escape(vendor).c_str(),
                machine.alpha, machine.beta, machine.delta, machine.overhead);
    for (std::size_t i = 0; i < chosen.size(); ++i)
      std::printf("%s\"%lld\": \"%s\"", i ? ", " : "", chosen[i].first, chosen[i].second.pick.name().c_str());
    std::printf("}, \"predicted_seconds\": {");
    for (std::size_t i = 0; i < chosen.size(); ++i)
      std::printf("%s\"%lld\": %.6g", i ? ", " : "", chosen[i].first, chosen[i].second.predicted);
    std::printf("}, \"decide_seconds\": %.6f, \"decide_seconds_per_size\": [", total);
    for (std::size_t i = 0; i < seconds.size(); ++i) std::printf("%s%.6f", i ? ", " : "", seconds[i]);
    std::printf("]}\n");
  } else {
    std::printf("decided in %.6f s (rank 0's profiles and predictions for %zu sizes)\n", total, sizes.size());
  }
  return 0;
}

}  // namespace tg_plan
}  // namespace torusgather
