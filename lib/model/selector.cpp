// SPDX-License-Identifier: BSD-3-Clause
#include "model/selector.hpp"

#include <algorithm>
#include <cstdio>

namespace torusgather {

int select(std::vector<Candidate>& candidates, const Machine& m, double block_bytes) {
  int best = -1;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    Candidate& c = candidates[i];
    if (!c.why_not.empty() || !c.profile) continue;
    c.predicted =
        predict(*c.profile, m, block_bytes) + c.per_round * static_cast<double>(c.profile->rounds()) + c.per_call;
    if (c.named_only) continue;
    if (best < 0 || c.predicted < candidates[static_cast<std::size_t>(best)].predicted) best = static_cast<int>(i);
  }
  return best;
}

std::string format_table(const std::vector<Candidate>& candidates, int chosen) {
  std::string out;
  char line[512];
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const Candidate& c = candidates[i];
    const std::string name = c.detail.empty() ? c.pick.name() : c.pick.name() + " (" + c.detail + ")";
    if (!c.why_not.empty())
      std::snprintf(line, sizeof line, "    %-40s  does not apply: %s\n", name.c_str(), c.why_not.c_str());
    else if (c.at_least > 0 && c.per_call > 0)
      std::snprintf(line, sizeof line,
                    "    %-40s >= %11.2f us (not profiled: a call lists its blocks in %.2f us, behind %zu others)\n",
                    name.c_str(), c.at_least * 1e6, c.per_call * 1e6, kProfiledAtLeast);
    else if (c.at_least > 0)
      std::snprintf(line, sizeof line, "    %-40s >= %11.2f us (not profiled: %lld rounds at least, behind %zu others)\n",
                    name.c_str(), c.at_least * 1e6, c.at_least_rounds, kProfiledAtLeast);
    else if (c.per_call > 0)
      std::snprintf(line, sizeof line, "  %s %-40s  %12.2f us (%.2f us of it the call's CPU listing its blocks)\n",
                    static_cast<int>(i) == chosen ? "*" : " ", name.c_str(), c.predicted * 1e6, c.per_call * 1e6);
    else
      std::snprintf(line, sizeof line, "  %s %-40s  %12.2f us\n", static_cast<int>(i) == chosen ? "*" : " ",
                    name.c_str(), c.predicted * 1e6);
    out += line;
  }
  return out;
}

}  // namespace torusgather
