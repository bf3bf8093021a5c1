// SPDX-License-Identifier: BSD-3-Clause
// TORUSGATHER_TUNE: block-size ranges that force what runs, and the byte
// sizes its ranges (and tg-plan --sizes) are written in.
#pragma once

#include <string>
#include <vector>

#include "model/pick.hpp"

namespace torusgather {

/// "4096", "4k", "1m", "2g" bytes (powers of 1024), or "inf" (-1) if allowed.
bool parse_bytes(const std::string& s, bool allow_inf, long long* out);

/// One range of TORUSGATHER_TUNE: blocks of [lo, hi) bytes run `algorithm`.
struct TuneRule {
  long long lo = 0;
  long long hi = 0;  ///< -1: no upper end ("inf")
  Pick pick;
};

/// Parses "0-4k:lee-code,4k-256k:bridgehead,256k-inf:hamiltonian": ranges
/// lo-hi (bytes per block, suffixes k, m, g in powers of 1024, hi may be
/// "inf"), lo < hi, not overlapping; each algorithm "vendor" or registered.
/// Sizes no range covers are chosen by the model. On a malformed string
/// returns false with the reason in *why.
bool parse_tune(const std::string& text, std::vector<TuneRule>* rules, std::string* why);

/// The algorithm the rules force for blocks of `block_bytes`, or nullptr.
const TuneRule* tune_lookup(const std::vector<TuneRule>& rules, long long block_bytes);

}  // namespace torusgather
