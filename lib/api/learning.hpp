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

/// While waiting, every one of the first kWaitFirst calls is timed, then 1
/// in kWaitSampleEvery (weighted so); the ranks agree at calls kWaitFirst,
/// 2 kWaitFirst, 4 kWaitFirst, ...
constexpr unsigned long kWaitFirst = 16;
constexpr unsigned long kWaitSampleEvery = 64;

/// Whether waiting call n (from 1) is timed.
inline bool waiting_call_timed(unsigned long n) { return n <= kWaitFirst || n % kWaitSampleEvery == 0; }
/// Whether the ranks agree after waiting call n.
inline bool waiting_call_agreed(unsigned long n) { return n >= kWaitFirst && (n & (n - 1)) == 0; }

/// Whether auto may learn on this plan. The first time a plan asks, and
/// while the wait is not over, the ranks agree (collective) on the time
/// the group has spent; later asks are local.
int learning_allowed(Plan& plan, bool* allowed);

/// Counts a call that auto handed to the vendor while waiting: `seconds`
/// its time on this rank, < 0 where it was not timed. Collective where
/// waiting_call_agreed(): the ranks agree on the time spent, and where the
/// wait is over the plan's waiting memos go, so that the next call decides
/// anew.
int count_waiting_call(Plan& plan, double seconds);

/// Whether this waiting call should be timed (local).
bool time_waiting_call(const Plan& plan);

/// A waiting call that is neither timed nor at a check point: counted
/// here, so that the caller only hands it to the vendor. False (nothing
/// counted) for the others, which take count_waiting_call(). Local.
inline bool count_plain_waiting_call(Plan& plan) {
  const unsigned long n = plan.learning.calls + 1;
  if (waiting_call_timed(n) || waiting_call_agreed(n)) return false;
  plan.learning.calls = n;
  return true;
}

}  // namespace torusgather
