// SPDX-License-Identifier: BSD-3-Clause
#include "model/predictions.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <optional>

#include "model/closed_form.hpp"
#include "schedule/decomposition.hpp"
#include "schedule/node_sliced.hpp"

namespace torusgather {

long tuned_bucket(const ModelContext& ctx, const AlgorithmInfo& info, long long block_bytes) {
  if (auto it = ctx.fixed_params.find(info.id); it != ctx.fixed_params.end() && !it->second.empty()) return kFixedVariant;
  const Machine& m = ctx.machine;
  return std::lround(std::log2(m.alpha / (m.beta * static_cast<double>(std::max(1LL, block_bytes)))));
}

bool params_for(const ModelContext& ctx, const AlgorithmInfo& info, long long block_bytes, std::string* params,
                std::string* why) {
  BuildContext build;
  if (auto it = ctx.fixed_params.find(info.id); it != ctx.fixed_params.end() && !it->second.empty()) {
    build.params = it->second;
    return tuned_params(info, *ctx.torus, build, params, why);
  }
  const long bucket = tuned_bucket(ctx, info, block_bytes);
  build.r = std::exp2(static_cast<double>(bucket));
  if (ctx.machine.alpha > 0) {
    build.overhead_ratio = ctx.machine.overhead / ctx.machine.alpha;
    build.round_ratio = ctx.tg_per_round / ctx.machine.alpha;
  }
  build.node_ranks = ctx.machine.node_ranks;
  if (ctx.machine.inject_beta > 0) build.inject_ratio = ctx.machine.beta / ctx.machine.inject_beta;
  if (ctx.machine.alpha > 0 && ctx.machine.beta > 0) {
    // A candidate's time as select() predicts it, at the bucket's block size.
    const double bytes = ctx.machine.alpha / (ctx.machine.beta * build.r);
    build.cost = [&ctx, bytes](const Schedule& s) {
      CostProfile p;
      if (!closed_form_profile(s, &p, ctx.machine.node_ranks, ctx.torus))
        p = profile(s, kSteppedProfileLimit, &s.torus(), ctx.machine.node_ranks);
      return predict(p, ctx.machine, bytes) + ctx.tg_per_round * static_cast<double>(p.rounds());
    };
  }
  if (!ctx.params_cache) return tuned_params(info, *ctx.torus, build, params, why);
  auto& known = (*ctx.params_cache)[info.id];
  auto it = known.find(bucket);
  if (it == known.end()) {
    if (!tuned_params(info, *ctx.torus, build, params, why)) return false;
    it = known.emplace(bucket, *params).first;
  }
  *params = it->second;
  return true;
}

bool vendor_algorithm(const ModelContext& ctx, long long block_bytes, VendorAlgorithm* out) {
  if (!vendor_choice(ctx.vendor_model, ctx.torus->size(), block_bytes, out)) return false;
  if (ctx.simgrid) {
    // SimGrid's "ring" (also in its ompi and mpich selections, and Open
    // MPI's fallback for neighbour exchange on odd P) is the shift
    // (cost.hpp); checked against the simulated times in docs/performance.md.
    if (*out == VendorAlgorithm::kRing || (*out == VendorAlgorithm::kNeighborExchange && ctx.torus->size() % 2))
      *out = VendorAlgorithm::kShift;
    // Its recursive doubling ("rdb", and ompi's) is MPICH's on any P.
    if (*out == VendorAlgorithm::kRecursiveDoubling) *out = VendorAlgorithm::kRecursiveDoublingTree;
  }
  return true;
}

ProfileCompute profiling(const Torus& torus, const AlgorithmInfo& info,
                         std::function<int(const Schedule**, std::string*)> get, int node_ranks) {
  const AlgorithmId id = info.id;
  // Closed forms share a node's links among its k ranks themselves
  // (closed_form_profile's node_ranks).
  if (node_ranks > 1 && (info.node_aware || (torus.size() <= kSteppedProfileLimit && !info.profile.from_torus)))
    // A node-aware schedule at any size (its inner profile, composed), and
    // up to the limit one without a closed form: stepped through, a node's
    // ranks sharing its links and the node axis charged as shared memory.
    return [&torus, node_ranks, get = std::move(get)](CostProfile* p, std::string* why) {
      const Schedule* s = nullptr;
      const int err = get(&s, why);
      // bridgehead's, torus-bruck's: from the construction.
      if (err == 0 && s && !closed_form_profile(*s, p, node_ranks, &torus))
        *p = profile(*s, kSteppedProfileLimit, &torus, node_ranks);
      return err;
    };
  if (torus.size() > kSteppedProfileLimit && !profile_from_schedule(info, torus))
    return [&torus, id, node_ranks](CostProfile* p, std::string* why) {
      if (!closed_form_profile(id, torus, p, node_ranks)) *why = kNoClosedForm;
      return 0;
    };
  return [&torus, id, node_ranks, get = std::move(get)](CostProfile* p, std::string* why) {
    const Schedule* s = nullptr;
    const int err = get(&s, why);
    // The built schedule's own first: a size-tuned variant differs from the paper's.
    if (err == 0 && s && !closed_form_profile(*s, p, node_ranks, &torus) &&
        !closed_form_profile(id, torus, p, node_ranks))
      *p = profile(*s, 4096, &torus, node_ranks);
    return err;
  };
}

namespace {

/// A lower bound on what a candidate with `rounds` rounds that move data
/// costs: each at least the cheaper α, and the blocks every rank receives
/// (P-1) over its incoming links (one per side of 2, two per longer side)
/// at the cheaper β.
double at_least(const ModelContext& ctx, long long rounds, long long block_bytes) {
  const Machine& m = ctx.machine;
  const Torus& t = *ctx.torus;
  const double alpha = m.node_alpha > 0 ? std::min(m.alpha, m.node_alpha) : m.alpha;
  const double beta = m.node_beta > 0 ? std::min(m.beta, m.node_beta) : m.beta;
  const int links = t.incoming_links();
  const double blocks = links > 0 ? static_cast<double>(t.size() - 1) / links : 0;
  return static_cast<double>(rounds) * (alpha + ctx.tg_per_round) +
         beta * blocks * static_cast<double>(block_bytes);
}

/// What a call of `info` spends listing its blocks one by one (seconds);
/// 0 where CPU takes no time.
double listing(const ModelContext& ctx, const AlgorithmInfo& info) {
  if (!ctx.cpu_counts) return 0;
  return info.profile.listing_ns_per_block * 1e-9 * static_cast<double>(ctx.torus->size() - 1);
}

}  // namespace

int predict_all(const ModelContext& ctx, long long block_bytes, const Pick* named, std::vector<Candidate>* out,
                int* best) {
  const Torus& torus = *ctx.torus;
  std::vector<Candidate>& candidates = *out;
  candidates.clear();
  // The torus whose Hamiltonian cycles `info` needs, where `auto` takes
  // them only from a construction (not when named: then it may search).
  auto cycles_for_auto = [&](const AlgorithmInfo& info, const Candidate& c) -> std::optional<Torus> {
    if (!info.cycles_by_rule_only || (named && *named == c.pick)) return std::nullopt;
    return info.node_aware ? NodeSlicedSchedule::node_torus(torus) : torus;
  };
  // Its parameters and profile; 0 or the context's error.
  auto profile_candidate = [&](const AlgorithmInfo& info, Candidate& c) {
    // Whether a construction gives the cycles is worked out only here, for
    // a candidate that is profiled (milliseconds on 1024 ranks: 2x2x254 fails).
    if (const auto cycles = cycles_for_auto(info, c); cycles && !decomposes_without_search(*cycles)) {
      c.why_not = kNeedsSearch;
      return 0;
    }
    ProfileKey key{c.pick, kDefaultVariant};
    if (info.tuned) {  // the a, b, k of this block size
      // The search runs where the profile is computed (and the table
      // printed): on rank 0 only, keyed by the r bucket elsewhere (under
      // SimGrid every rank's search would add up in one process).
      const auto fixed = ctx.fixed_params.find(info.id);
      if (ctx.root || (fixed != ctx.fixed_params.end() && !fixed->second.empty())) {
        std::string params;
        if (!params_for(ctx, info, block_bytes, &params, &c.why_not)) return 0;
        c.detail = params;
      }
      key.variant = tuned_bucket(ctx, info, block_bytes);
    }
    const ProfileCompute compute = profiling(
        torus, info,
        [&ctx, &info, block_bytes](const Schedule** s, std::string* why) {
          return ctx.schedule_of(info, block_bytes, s, why);
        },
        ctx.machine.node_ranks);
    if (const int err = ctx.profile_of(key, compute, &c.profile, &c.why_not)) return err;
    c.per_round = ctx.tg_per_round;
    c.per_call = listing(ctx, info);
    return 0;
  };
  // Those with a bound on their rounds, and those whose calls list their
  // blocks, wait until the others' predictions say whether the bound (and
  // the listing) alone puts them behind (every rank decides the same from
  // the same profiles, so none is computed on one rank only).
  std::vector<std::pair<std::size_t, const AlgorithmInfo*>> waiting;
  for (const AlgorithmInfo& info : algorithms()) {
    Candidate c;
    c.pick = Pick::of(info.id);
    c.named_only = info.not_selected != nullptr;
    // Above the stepped-profile limit, those without a profile at scale are
    // left out before asking whether they apply: some take O(P) to say so
    // (chordal-ring's chord and path check: 0.2 s at 10^6 ranks).
    const bool unprofiled = torus.size() > kSteppedProfileLimit && !info.node_aware && !has_profile_at_scale(info, torus);
    c.why_not = c.named_only && !(named && *named == c.pick) ? info.not_selected
                : unprofiled                                  ? no_profile_at_scale(info)
                                                              : declines(info, torus);
    if (c.why_not.empty() && info.node_aware && ctx.machine.node_ranks < 2)
      c.why_not = "no node axis: one rank per node (TORUSGATHER_NODE_SIZE, a topology file or MPI_COMM_TYPE_SHARED)";
    // Every rank builds what runs: `auto` takes the cycles only from a
    // construction, never the switch search (seconds where it fails);
    // above the limit and in 5D-6D only from a rule without a table (the
    // layered lift's table is O(P · d) per rank; docs/design.md, "Scale").
    if (const auto cycles = cycles_for_auto(info, c); c.why_not.empty() && cycles && !decomposes_by_rule(*cycles) &&
                                                      (cycles->size() > kSteppedProfileLimit ||
                                                       cycles->active_axes().size() > 4))
      c.why_not = kNoRule;
    if (c.why_not.empty() && (info.profile.rounds_at_least || listing(ctx, info) > 0) && !c.named_only &&
        !(named && *named == c.pick)) {
      waiting.emplace_back(candidates.size(), &info);
    } else if (c.why_not.empty()) {
      if (const int err = profile_candidate(info, c)) return err;
    }
    candidates.push_back(c);
  }
  if (!waiting.empty()) {
    // The kProfiledAtLeast-th fastest prediction so far.
    std::vector<double> times;
    for (const Candidate& c : candidates)
      if (c.why_not.empty() && c.profile && !c.named_only)
        times.push_back(predict(*c.profile, ctx.machine, static_cast<double>(block_bytes)) +
                        c.per_round * static_cast<double>(c.profile->rounds()) + c.per_call);
    // The least bound first: what it profiles sharpens the others' test.
    std::vector<std::pair<double, std::size_t>> order;
    for (std::size_t w = 0; w < waiting.size(); ++w) {
      const auto& [i, info] = waiting[w];
      Candidate& c = candidates[i];
      c.at_least_rounds = info->profile.rounds_at_least ? info->profile.rounds_at_least(torus) : 1;
      c.per_call = listing(ctx, *info);
      c.at_least = at_least(ctx, c.at_least_rounds, block_bytes) + c.per_call;
      order.emplace_back(c.at_least, w);
    }
    std::sort(order.begin(), order.end());
    for (const auto& [bound, w] : order) {
      Candidate& c = candidates[waiting[w].first];
      const AlgorithmInfo* info = waiting[w].second;
      std::sort(times.begin(), times.end());
      if (times.size() >= kProfiledAtLeast && c.at_least > times[kProfiledAtLeast - 1]) continue;
      c.at_least_rounds = 0;
      c.at_least = 0;
      if (const int err = profile_candidate(*info, c)) return err;
      if (c.why_not.empty() && c.profile)
        times.push_back(predict(*c.profile, ctx.machine, static_cast<double>(block_bytes)) +
                        c.per_round * static_cast<double>(c.profile->rounds()) + c.per_call);
    }
  }
  Candidate vendor;
  vendor.pick = Pick::the_vendor();
  VendorAlgorithm alg;
  if (!vendor_algorithm(ctx, block_bytes, &alg)) {
    vendor.why_not = "no model of this MPI library's allgather" +
                     (ctx.vendor_model.empty() ? "" : " '" + ctx.vendor_model + "'") + " (TORUSGATHER_VENDOR_MODEL)";
  } else {
    vendor.detail = ctx.vendor_model + ": " + to_string(alg);
    const int k = ctx.machine.node_ranks;
    const ProfileCompute compute = [&torus, alg, k](CostProfile* p, std::string*) {
      *p = vendor_profile(torus, alg, k);  // a node's ranks share its links
      return 0;
    };
    if (const int err = ctx.profile_of(ProfileKey{Pick::the_vendor(), static_cast<long>(alg)}, compute,
                                       &vendor.profile, &vendor.why_not))
      return err;
    vendor.per_round = ctx.vendor_per_round;
  }
  candidates.push_back(vendor);
  *best = select(candidates, ctx.machine, static_cast<double>(block_bytes));
  return 0;
}

std::vector<const Candidate*> ranked(const std::vector<Candidate>& candidates) {
  std::vector<const Candidate*> out;
  for (const Candidate& c : candidates)
    if (c.why_not.empty() && c.profile && !c.named_only) out.push_back(&c);
  std::stable_sort(out.begin(), out.end(),
                   [](const Candidate* a, const Candidate* b) { return a->predicted < b->predicted; });
  return out;
}

std::string ProfileKey::to_string() const {
  if (pick.vendor) return pick.name() + " " + torusgather::to_string(static_cast<VendorAlgorithm>(variant));
  if (variant == kDefaultVariant) return pick.name();
  if (variant == kFixedVariant) return pick.name() + " (fixed parameters)";
  return pick.name() + " r-bucket " + std::to_string(variant);
}

}  // namespace torusgather
