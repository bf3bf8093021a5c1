// SPDX-License-Identifier: BSD-3-Clause
#include "api/learning.hpp"

#include <cstdio>
#include <map>
#include <mutex>
#include <string>

#include "api/env.hpp"
#include "api/group.hpp"

namespace torusgather {
namespace {

std::mutex g_spent_mutex;
/// Seconds this rank has spent in waiting calls, per group of ranks (the
/// process's communicators over the same ranks share it).
std::map<std::string, double> g_spent;

double add_spent(Plan& plan, double seconds) {
  LearningWait& w = plan.learning;
  if (!w.group_seconds) {
    const std::string& key = group_key(plan);
    if (key.empty()) return w.own_seconds += seconds;
    std::lock_guard<std::mutex> lock(g_spent_mutex);
    w.group_seconds = &g_spent[key];  // a map's entries stay where they are
  }
  std::lock_guard<std::mutex> lock(g_spent_mutex);
  return *w.group_seconds += seconds;
}

/// The ranks agree on the group's time (the slowest rank's account); the
/// wait ends where it reaches the threshold.
int check(Plan& plan) {
  double spent = add_spent(plan, 0);
  if (const int err = PMPI_Allreduce(MPI_IN_PLACE, &spent, 1, MPI_DOUBLE, MPI_MAX, plan.comm); err != MPI_SUCCESS)
    return err;
  plan.learning.agreed_seconds = spent;
  if (spent < environment().learn_after) return MPI_SUCCESS;
  plan.learning.open = true;
  for (CallMemo& m : plan.calls.memos)
    if (m.waiting) m.valid = false;
  if (plan.rank == 0 && environment().verbose)
    std::fprintf(stderr,
                 "torusgather: auto on a %s torus (%d ranks): %.1f ms spent in allgathers on these ranks "
                 "(TORUSGATHER_LEARN_AFTER %.1f ms): learns from now on\n",
                 plan.torus.to_string().c_str(), plan.size, spent * 1e3, environment().learn_after * 1e3);
  return MPI_SUCCESS;
}

}  // namespace

int learning_allowed(Plan& plan, bool* allowed) {
  LearningWait& w = plan.learning;
  if (!w.open && !w.asked) {
    w.asked = true;
    if (environment().learn_after <= 0) w.open = true;
    else if (const int err = check(plan); err != MPI_SUCCESS) return err;
  }
  *allowed = w.open;
  return MPI_SUCCESS;
}

bool time_waiting_call(const Plan& plan) { return waiting_call_timed(plan.learning.calls + 1); }

int count_waiting_call(Plan& plan, double seconds) {
  LearningWait& w = plan.learning;
  const unsigned long n = ++w.calls;
  if (seconds > 0) add_spent(plan, n <= kWaitFirst ? seconds : seconds * static_cast<double>(kWaitSampleEvery));
  if (w.open || !waiting_call_agreed(n)) return MPI_SUCCESS;
  return check(plan);
}

}  // namespace torusgather
