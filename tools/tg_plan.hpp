// SPDX-License-Identifier: BSD-3-Clause
// tg-plan's modes besides building and verifying one schedule (tg_plan.cpp).
#pragma once

#include <string>
#include <vector>

#include "model/cost.hpp"
#include "schedule/schedule.hpp"

namespace torusgather {
namespace tg_plan {

/// s with quotes and backslashes escaped and control characters dropped.
std::string json_escape(const std::string& s);

/// Meyer & Sibeyn's Table 2 from the constructions; 0 if within 2 % of the paper.
int table2(bool json);

/// Draws the cycles of a 2D cycle schedule into an SVG file; false with *why otherwise.
bool write_svg(const Schedule& schedule, const std::string& path, std::string* why);

/// auto's decision per size on rank 0 (every profile computed here, as rank 0 does).
int select_report(const Torus& torus, const std::vector<long long>& sizes, const Machine& machine,
                  const std::string& vendor, bool json, int node_ranks);

}  // namespace tg_plan
}  // namespace torusgather
