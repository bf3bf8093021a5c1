// SPDX-License-Identifier: BSD-3-Clause
// The selector: one table of predicted times per call size, and the
// fastest applicable candidate wins. No MPI: the caller fills the
// candidates and the machine.
#pragma once

#include <string>
#include <vector>

#include "model/cost.hpp"
#include "model/pick.hpp"

namespace torusgather {

/// auto profiles every candidate that could be among this many fastest (a
/// trial measures up to 3 of them).
constexpr std::size_t kProfiledAtLeast = 3;

struct Candidate {
  Pick pick;                    ///< the algorithm, or the vendor's allgather
  std::string detail;           ///< e.g. the vendor's algorithm at this size, bridgehead's a,b,k
  std::string why_not;          ///< non-empty: does not apply (the reason)
  const CostProfile* profile = nullptr;
  double per_round = 0;         ///< measured software cost per round beyond the machine model (seconds)
  double per_call = 0;          ///< CPU a call spends listing its blocks (seconds)
  double predicted = 0;         ///< seconds, filled by select()
  bool named_only = false;      ///< predicted but never chosen: it runs only when named
  /// > 0: not profiled, since its at_least_rounds rounds alone take at
  /// least this (seconds), more than kProfiledAtLeast others' predictions.
  double at_least = 0;
  long long at_least_rounds = 0;
};

/// Fills every applicable candidate's prediction for blocks of
/// `block_bytes` (the model's time plus per_round for each round and
/// per_call) and returns the index of the fastest (the first on a tie,
/// so the order of the candidates is the preference) that is not named_only; -1 if none applies.
int select(std::vector<Candidate>& candidates, const Machine& m, double block_bytes);

/// The table select() chose from, one line per candidate, for TORUSGATHER_VERBOSE.
std::string format_table(const std::vector<Candidate>& candidates, int chosen);

}  // namespace torusgather
