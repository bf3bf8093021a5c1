// SPDX-License-Identifier: BSD-3-Clause
// The selector: one table of predicted times per call size, the
// fastest applicable candidate wins; and TORUSGATHER_TUNE's range string.
// No MPI: the MPI layer fills the candidates and the machine.
#pragma once

#include <string>
#include <vector>

#include "model/cost.hpp"

namespace torusgather {

struct Candidate {
  std::string name;             ///< "hamiltonian", ..., "vendor"
  std::string detail;           ///< e.g. the vendor's algorithm at this size, bridgehead's a,b,k
  std::string why_not;          ///< non-empty: does not apply (the reason)
  const CostProfile* profile = nullptr;
  double per_round = 0;         ///< measured software cost per round beyond the machine model (seconds)
  double predicted = 0;         ///< seconds, filled by select()
  bool named_only = false;      ///< predicted but never chosen: it runs only when named
};

/// Fills every applicable candidate's prediction for blocks of
/// `block_bytes` (the model's time plus per_round for each round) and returns the index of the fastest (the first on a tie,
/// so the order of the candidates is the preference) that is not named_only; -1 if none applies.
int select(std::vector<Candidate>& candidates, const Machine& m, double block_bytes);

/// The table select() chose from, one line per candidate, for TORUSGATHER_VERBOSE.
std::string format_table(const std::vector<Candidate>& candidates, int chosen);

/// "4096", "4k", "1m", "2g" bytes (powers of 1024), or "inf" (-1) if allowed.
bool parse_bytes(const std::string& s, bool allow_inf, long long* out);

/// One range of TORUSGATHER_TUNE: blocks of [lo, hi) bytes run `algorithm`.
struct TuneRule {
  long long lo = 0;
  long long hi = 0;  ///< -1: no upper end ("inf")
  std::string algorithm;
};

/// Parses "0-4k:lee-code,4k-256k:bridgehead,256k-inf:hamiltonian": ranges
/// lo-hi (bytes per block, suffixes k, m, g in powers of 1024, hi may be
/// "inf"), lo < hi, not overlapping; each algorithm must be in `known`.
/// Sizes no range covers are chosen by the model. On a malformed string
/// returns false with the reason in *why.
bool parse_tune(const std::string& text, const std::vector<std::string>& known, std::vector<TuneRule>* rules,
                std::string* why);

/// The algorithm the rules force for blocks of `block_bytes`, or nullptr.
const TuneRule* tune_lookup(const std::vector<TuneRule>& rules, long long block_bytes);

}  // namespace torusgather
