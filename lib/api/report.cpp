// SPDX-License-Identifier: BSD-3-Clause
#include "api/report.hpp"

#include <cstdio>
#include <mutex>
#include <set>

#include "api/env.hpp"
#include "schedule/registry.hpp"

namespace torusgather {
namespace {

/// The chosen algorithm with what the schedule adds: a size-tuned
/// algorithm's parameters, the circulant's packet limit, three-phase's
/// construction.
std::string described(const Choice& c) {
  const std::string name = c.pick.name();
  if (c.pick.vendor || !c.schedule) return name;
  const AlgorithmInfo& info = algorithm(c.pick.id);
  const std::string more = info.describe ? info.describe(*c.schedule) : std::string();
  return more.empty() ? name : name + " (" + more + ")";
}

}  // namespace

void report_choice(Plan& plan, const char* call, const std::string& requested, const Choice& c,
                   long long largest_block) {
  if (!environment().verbose || plan.rank != 0) return;
  const std::string& note = c.note;
  if (c.trial_class != kNoTrial && environment().verbose < 2)
    if (auto it = plan.autos.trials.find(c.trial_class); it != plan.autos.trials.end() && !it->second.seconds.empty())
      return;
  const std::string what = described(c);
  // Once per plan, entry point, request and outcome; level 2: every note too.
  const std::string key = std::string(call) + "/" + requested + "/" + what + (environment().verbose >= 2 ? "/" + note : "");
  if (!plan.announced.insert(key).second) return;
  if (c.waiting && environment().verbose < 2) {
    // auto's wait, once per torus and entry point in the process: a program
    // that duplicates its communicators would say it for each.
    static std::mutex mutex;
    static std::set<std::string> said;
    std::lock_guard<std::mutex> lock(mutex);
    if (!said.insert(plan.torus.to_string() + "/" + std::to_string(plan.node_ranks) + "/" + call).second) return;
  }
  const bool no_torus = plan.source == TorusSource::none;
  const bool vendor = c.pick.vendor;
  const std::string ranks = std::to_string(plan.size) + " ranks";
  // Where no torus is known, a forced algorithm runs on MPI_Dims_create's shape.
  const std::string where =
      no_torus && vendor
          ? ranks
          : "a " + plan.torus.to_string() + " torus " +
                (plan.source == TorusSource::topology_file ? "from TORUSGATHER_TOPOLOGY " : "") + "(" + ranks +
                (plan.node_ranks > 1 ? ", " + std::to_string(plan.node_ranks) + " per node on the last axis" : "") +
                (plan.torus.two_link_axes() ? ", two links on each side of 2" : "") + ")";
  const std::string block =
      largest_block >= 0 ? ", largest block " + std::to_string(largest_block) + " B" : std::string();
  const std::string guess =
      no_torus && !vendor ? " -- MPI_Dims_create's shape: no torus known: " + plan.torus_note : "";
  std::fprintf(stderr, "torusgather: %s on %s%s: %s%s%s%s\n", call, where.c_str(), block.c_str(), what.c_str(),
               note.empty() ? "" : " -- ", note.c_str(), guess.c_str());
}

void report_predictions(Plan& plan, long long block_bytes, const std::vector<Candidate>& candidates, int best) {
  if (!environment().verbose || plan.rank != 0 ||
      !plan.announced.insert("auto/" + std::to_string(size_class(block_bytes))).second)
    return;
  // Once per torus and size class in the process (a program that duplicates
  // its communicators would print the same table for each), unless level 2.
  if (environment().verbose < 2) {
    static std::mutex mutex;
    static std::set<std::string> said;
    std::lock_guard<std::mutex> lock(mutex);
    if (!said.insert(plan.torus.to_string() + "/" + std::to_string(plan.node_ranks) + "/" +
                     std::to_string(size_class(block_bytes)))
             .second)
      return;
  }
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


void report_trial(const Plan& plan, long cls, const TrialResult& r) {
  if (plan.rank != 0 || !environment().verbose) return;
  const long long lo = 1LL << cls, hi = (1LL << (cls + 1)) - 1;
  std::fprintf(stderr, "torusgather: auto measured %lld..%lld B on a %s torus (%d ranks) in %d of at most %d rounds: "
               "%s; runs %s (%s%s%s%s%s)\n",
               lo, hi, plan.torus.to_string().c_str(), plan.size, r.timed_rounds, r.per_candidate, r.times.c_str(),
               r.winner.name().c_str(), r.lead.c_str(), r.lead.empty() ? "" : "; ", r.rule.c_str(),
               r.rounds.empty() ? "" : "; ", r.rounds.c_str());
}

void warn_unfit_params(const Plan& plan) {
  if (plan.rank != 0) return;
  for (const auto& [id, value] : environment().fixed_params) {
    const AlgorithmInfo& info = algorithm(id);
    std::string why;
    if (!declines(info, plan.torus).empty() || info.tuned->parse(value, plan.torus, &why)) continue;
    static std::mutex mutex;
    static std::set<std::string> said;
    std::lock_guard<std::mutex> lock(mutex);
    if (!said.insert(std::string(info.tuned->env) + "/" + plan.torus.to_string()).second) continue;
    std::fprintf(stderr, "torusgather: %s=%s does not fit the %s torus (%s): %s declines there\n", info.tuned->env,
                 value.c_str(), plan.torus.to_string().c_str(), why.c_str(), info.name);
  }
}

}  // namespace torusgather
