// SPDX-License-Identifier: BSD-3-Clause
#include "api/decide.hpp"

#include <cstdio>
#include <vector>

#include "api/env.hpp"
#include "api/learning.hpp"
#include "api/machine.hpp"
#include "api/nodes.hpp"
#include "api/plan_cache.hpp"
#include "api/report.hpp"
#include "api/shared_decisions.hpp"
#include "api/tuning_file.hpp"
#include "model/auto_policy.hpp"

namespace torusgather {
namespace {

/// Timed calls per candidate for size class `cls`, besides a first untimed
/// one (its schedule and calls are made then). By default 15 below 64 KiB,
/// where calls are cheap and their noise is large against them, and 5 from
/// 64 KiB. A calibration rejected as implausible leaves the model's ranking
/// in doubt: it measures even where it is off.
int trials_per_candidate(const Plan& plan, long cls) {
  const int n = environment().trials;
  if (n < 0) return cls < 16 ? 15 : 5;
  if (n == 0 && plan.calibration && plan.calibration->rejected) return 5;
  return n;
}

/// auto's decision for this plan and block size. Collective.
int decide(Plan& plan, long long block_bytes, Purpose purpose, AutoDecision* d) {
  const bool may_measure = purpose == Purpose::call;
  if (plan.source != TorusSource::none)
    if (const int err = read_tuning(plan); err != MPI_SUCCESS) return err;
  // A size class another communicator of the same ranks has measured.
  const long cls = size_class(block_bytes);
  if (may_measure && plan.source != TorusSource::none && !plan.autos.measured.count(cls) &&
      !plan.autos.trials.count(cls) && trials_per_candidate(plan, cls) > 0 &&
      plan.autos.asked_elsewhere.insert(cls).second)
    if (const int err = adopt_shared_decision(plan, cls); err != MPI_SUCCESS) return err;
  AutoInputs in;
  if (purpose != Purpose::persistent && plan.source != TorusSource::none)
    if (const int err = learning_allowed(plan, &in.learning_allowed); err != MPI_SUCCESS) return err;
  in.tune = &environment().tune;
  in.torus_known = plan.source != TorusSource::none;
  in.no_torus = plan.torus_note;
  in.may_measure = may_measure;
  in.trials_per_candidate = [&plan](long cls) { return trials_per_candidate(plan, cls); };
  in.trial_algorithms = [&plan]() -> std::size_t { return plan.calibration && plan.calibration->rejected ? 3 : 2; };
  in.prior_trusted = [&plan] { return !(plan.calibration && plan.calibration->rejected); };
  in.predict = [&plan, block_bytes](std::vector<Candidate>* rows, int* best) {
    return predictions(plan, block_bytes, rows, best);
  };
  const int err = decide_auto(plan.autos, in, block_bytes, d);
  if (err == MPI_SUCCESS && !d->table.empty()) report_predictions(plan, block_bytes, d->table, d->best);
  if (d->waiting) {
    char spent[96];
    std::snprintf(spent, sizeof spent, " (%.2f of %.0f ms spent in allgathers on these ranks)",
                  plan.learning.agreed_seconds * 1e3, environment().learn_after * 1e3);
    d->note += spent;
  }
  return err;
}

/// The first of `ranked` that applies to the plan's torus: the vendor's
/// allgather (no schedule), or its schedule, agreed by every rank.
int first_that_applies(Plan& plan, const std::vector<Pick>& ranked, long long block_bytes, const Schedule** schedule,
                       Pick* chosen, std::string* note) {
  std::string declined;
  for (const Pick& pick : ranked) {
    *chosen = pick;
    if (pick.vendor) break;
    const AlgorithmInfo& info = algorithm(pick.id);
    int err = MPI_SUCCESS;
    if (info.tuned) {
      const Machine* m = nullptr;
      err = machine_of(plan, &m);  // a size-tuned build needs the machine
    }
    if (err == MPI_SUCCESS && info.needs_node_map) err = ensure_node_map(plan);
    std::string why;
    if (err == MPI_SUCCESS) err = agreed_schedule_of(plan, info, block_bytes, schedule, &why);
    if (err != MPI_SUCCESS) return err;
    if (*schedule) break;
    if (declined.empty()) declined = pick.name() + " does not apply: " + why;
  }
  if (!declined.empty()) *note = declined;
  return MPI_SUCCESS;
}

}  // namespace

int choose(Plan& plan, const std::string& requested, long long block_bytes, Purpose purpose, Choice* out) {
  *out = Choice{};
  std::vector<Pick> ranked;
  if (requested == kAuto) {
    AutoDecision d;
    if (const int err = decide(plan, block_bytes, purpose, &d); err != MPI_SUCCESS) return err;
    ranked = d.ranked;
    out->note = d.note;
    out->trial_class = d.trial_class;
    out->waiting = d.waiting;
  } else {
    Pick pick;
    if (!parse_pick(requested, &pick)) return MPI_ERR_ARG;
    ranked = fallback_chain(pick);
  }
  return first_that_applies(plan, ranked, block_bytes, &out->schedule, &out->pick, &out->note);
}

int trial_start(const Plan& plan, double* t0) {
  const int err = PMPI_Barrier(plan.comm);
  *t0 = PMPI_Wtime();
  return err;
}

int record_trial(Plan& plan, long cls, double seconds) {
  auto it = plan.autos.trials.find(cls);
  if (it == plan.autos.trials.end()) return MPI_SUCCESS;
  Trial& t = it->second;
  t.seconds.push_back(seconds);
  const std::size_t n = t.picks.size();
  if (t.seconds.size() % n != 0) return MPI_SUCCESS;
  if (t.seconds.size() == n) {  // round 0, untimed
    t.slowest.assign(n, 0.0);
    return MPI_SUCCESS;
  }
  // The round's calls on their slowest rank, agreed after every round, so
  // that every rank settles the trial at the same call.
  std::vector<double> round(t.seconds.end() - static_cast<std::ptrdiff_t>(n), t.seconds.end());
  if (const int err = PMPI_Allreduce(MPI_IN_PLACE, round.data(), static_cast<int>(n), MPI_DOUBLE, MPI_MAX, plan.comm);
      err != MPI_SUCCESS) {
    plan.autos.trials.erase(it);
    return err;
  }
  t.slowest.insert(t.slowest.end(), round.begin(), round.end());
  const TrialDecision d = decide_trial(t.slowest, n, t.per_candidate, kVendorMargin, t.early_win);
  if (!d.settled) return MPI_SUCCESS;
  const TrialResult r = finish_trial(plan.autos, cls, d);
  share_decision(plan, cls, r.winner);
  report_trial(plan, cls, r);
  append_tuning(plan, cls, r);
  return MPI_SUCCESS;
}

}  // namespace torusgather
