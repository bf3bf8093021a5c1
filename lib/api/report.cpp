// SPDX-License-Identifier: BSD-3-Clause
#include "api/report.hpp"

#include <cstdio>

#include "api/env.hpp"
#include "schedule/registry.hpp"

namespace torusgather {
namespace {

/// The chosen algorithm with what the schedule adds: a size-tuned
/// algorithm's parameters, the circulant's packet limit, three-phase's
/// construction.
std::string described(const std::string& chosen, const Schedule* schedule) {
  if (!schedule) return chosen;
  if (const AlgorithmInfo* info = find_algorithm(chosen); info && info->tuned)
    return chosen + " (" + info->tuned->of(*schedule) + ")";
  if (chosen == "circulant" && environment().circulant_packets > 0)
    return chosen + " (p-gossip, p = " + std::to_string(environment().circulant_packets) + ", " +
           std::to_string(schedule->rounds()) + " rounds)";
  if (chosen == "three-phase")
    return chosen + " (" + schedule->construction() + ": " + std::to_string(schedule->rounds()) + " rounds)";
  return chosen;
}

}  // namespace

void report_choice(Plan& plan, const char* call, const std::string& requested, const Schedule* schedule,
                   const std::string& chosen, const std::string& note, long long largest_block) {
  if (!environment().verbose || plan.rank != 0) return;
  const std::string what = described(chosen, schedule);
  if (!plan.announced.insert(std::string(call) + "/" + requested + "/" + what).second) return;
  const bool no_torus = plan.source == TorusSource::none;
  const std::string ranks = std::to_string(plan.size) + " ranks";
  // Where no torus is known, a forced algorithm runs on MPI_Dims_create's shape.
  const std::string where =
      no_torus && chosen == "vendor"
          ? ranks
          : "a " + plan.torus.to_string() + " torus " +
                (plan.source == TorusSource::topology_file ? "from TORUSGATHER_TOPOLOGY " : "") + "(" + ranks +
                (plan.node_ranks > 1 ? ", " + std::to_string(plan.node_ranks) + " per node on the last axis" : "") +
                ")";
  const std::string block =
      largest_block >= 0 ? ", largest block " + std::to_string(largest_block) + " B" : std::string();
  const std::string guess =
      no_torus && chosen != "vendor" ? " -- MPI_Dims_create's shape: no torus known: " + plan.torus_note : "";
  std::fprintf(stderr, "torusgather: %s on %s%s: %s%s%s%s\n", call, where.c_str(), block.c_str(), what.c_str(),
               note.empty() ? "" : " -- ", note.c_str(), guess.c_str());
}

}  // namespace torusgather
