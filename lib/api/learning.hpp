// SPDX-License-Identifier: BSD-3-Clause
// auto's wait before it learns. Calibrating the machine and timing trials
// cost milliseconds, which a program that makes a few cheap allgathers
// never earns back; so auto hands a group of ranks' calls to the vendor
// until the program has spent TORUSGATHER_LEARN_AFTER seconds in
// allgathers on that group (as ski rental: what learning may cost is then
// a bounded share of what is at stake).
#pragma once

#include "api/plan.hpp"

namespace torusgather {

/// While waiting, calls are timed 1 in kWaitSampleEvery (all of the first
/// kWaitSampleEvery), and the ranks agree at calls 16, 32, 64, ...
constexpr unsigned long kWaitSampleEvery = 16;

/// Whether auto may learn on this plan. The first time a plan asks, and
/// while the wait is not over, the ranks agree (collective) on the time
/// the group has spent; later asks are local.
int learning_allowed(Plan& plan, bool* allowed);

/// Counts a call that auto handed to the vendor while waiting: `seconds`
/// its time on this rank, < 0 where it was not timed (sampled calls are
/// weighted by kWaitSampleEvery after the first ones). Collective at
/// the plan's check points (calls 16, 32, 64, ...): the ranks agree on the
/// time spent, and where the wait is over the plan's waiting memos go, so
/// that the next call decides anew.
int count_waiting_call(Plan& plan, double seconds);

/// Whether this waiting call should be timed (local).
bool time_waiting_call(const Plan& plan);

/// A waiting call that is neither timed nor at a check point: counted
/// here, so that the caller only hands it to the vendor. False (nothing
/// counted) for the others, which take count_waiting_call(). Local.
inline bool count_plain_waiting_call(Plan& plan) {
  const unsigned long n = plan.learning.calls + 1;
  if (n <= kWaitSampleEvery || n % kWaitSampleEvery == 0) return false;
  plan.learning.calls = n;
  return true;
}

}  // namespace torusgather
