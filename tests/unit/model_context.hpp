// SPDX-License-Identifier: BSD-3-Clause
// The cost model's view of one torus as tg-plan --select has it, for the
// tests of what auto predicts: every profile computed here, every schedule
// built on demand.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/predictions.hpp"
#include "schedule/registry.hpp"

namespace torusgather {

/// The model's view as tg-plan --select has it: every profile computed here.
struct ModelView {
  std::map<ProfileKey, CostProfile> profiles;
  std::map<AlgorithmId, std::map<long, std::string>> params;
  std::unique_ptr<Schedule> scratch;
  ModelContext ctx;

  ModelView(const Torus& t, const Machine& m) {
    ctx.torus = &t;
    ctx.machine = m;
    ctx.vendor_model = "ompi";
    ctx.params_cache = &params;
    ctx.profile_of = [this](const ProfileKey& key, const ProfileCompute& compute, const CostProfile** out,
                            std::string* why) {
      if (auto it = profiles.find(key); it != profiles.end()) {
        *out = &it->second;
        return 0;
      }
      CostProfile p;
      if (const int err = compute(&p, why)) return err;
      *out = why->empty() ? &(profiles[key] = std::move(p)) : nullptr;
      return 0;
    };
    ctx.schedule_of = [this, &t](const AlgorithmInfo& info, long long bytes, const Schedule** out, std::string* why) {
      BuildContext build;
      build.node_ranks = ctx.machine.node_ranks;
      if (info.tuned && !params_for(ctx, info, bytes, &build.params, why)) return 0;
      scratch = try_build(info, t, why, build);
      *out = scratch.get();
      return 0;
    };
  }
};

/// The candidate for `id` in a table predict_all made (an empty one if none).
inline const Candidate& candidate_of(const std::vector<Candidate>& table, AlgorithmId id) {
  for (const Candidate& c : table)
    if (c.pick == Pick::of(id)) return c;
  static const Candidate none;
  return none;
}

}  // namespace torusgather
