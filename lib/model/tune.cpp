// SPDX-License-Identifier: BSD-3-Clause
#include "model/tune.hpp"

#include <cerrno>
#include <cstdlib>

namespace torusgather {

bool parse_bytes(const std::string& s, bool allow_inf, long long* out) {
  if (allow_inf && s == "inf") {
    *out = -1;
    return true;
  }
  if (s.empty() || s[0] < '0' || s[0] > '9') return false;
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno) return false;
  const std::string unit = end;
  int shift = 0;
  if (unit == "k" || unit == "K") shift = 10;
  else if (unit == "m" || unit == "M") shift = 20;
  else if (unit == "g" || unit == "G") shift = 30;
  else if (!unit.empty()) return false;
  if (v > (1LL << (62 - shift))) return false;
  *out = v << shift;
  return true;
}

bool parse_tune(const std::string& text, std::vector<TuneRule>* rules, std::string* why) {
  rules->clear();
  std::size_t i = 0;
  while (i <= text.size()) {
    std::size_t j = text.find(',', i);
    if (j == std::string::npos) j = text.size();
    const std::string item = text.substr(i, j - i);
    i = j + 1;
    const std::size_t colon = item.find(':');
    const std::size_t dash = item.find('-');
    if (colon == std::string::npos || dash == std::string::npos || dash > colon) {
      *why = "'" + item + "' is not LO-HI:ALGORITHM";
      return false;
    }
    TuneRule rule;
    const std::string lo = item.substr(0, dash), hi = item.substr(dash + 1, colon - dash - 1);
    const std::string name = item.substr(colon + 1);
    if (!parse_bytes(lo, false, &rule.lo)) {
      *why = "'" + lo + "' in '" + item + "' is not a size (bytes, or with k, m, g)";
      return false;
    }
    if (!parse_bytes(hi, true, &rule.hi)) {
      *why = "'" + hi + "' in '" + item + "' is not a size or inf";
      return false;
    }
    if (rule.hi >= 0 && rule.hi <= rule.lo) {
      *why = "empty range '" + item + "' (LO must be below HI)";
      return false;
    }
    if (!parse_pick(name, &rule.pick)) {
      *why = "unknown algorithm '" + name + "' in '" + item + "' (known: " + Pick::the_vendor().name() + ", " +
             algorithm_names() + ")";
      return false;
    }
    for (const TuneRule& other : *rules)
      if ((other.hi < 0 || rule.lo < other.hi) && (rule.hi < 0 || other.lo < rule.hi)) {
        *why = "'" + item + "' overlaps an earlier range";
        return false;
      }
    rules->push_back(rule);
    if (j == text.size()) break;
  }
  return true;
}

const TuneRule* tune_lookup(const std::vector<TuneRule>& rules, long long block_bytes) {
  for (const TuneRule& r : rules)
    if (block_bytes >= r.lo && (r.hi < 0 || block_bytes < r.hi)) return &r;
  return nullptr;
}

}  // namespace torusgather
