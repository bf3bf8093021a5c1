// SPDX-License-Identifier: BSD-3-Clause
// The one table of schedule algorithms: names, descriptions, applicability.
// Name parsing, `tg-plan --algorithm`, TORUSGATHER_ALGORITHM and the tests
// all derive from it (after UCC's allgather registry).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "schedule/schedule.hpp"

namespace torusgather {

/// The r = α/(sβ) for which the registry's `bridgehead` picks a, b, k when
/// no block size is known (tg-plan without --r); TG_Allgather picks them for
/// the call's r.
constexpr double kBridgeheadDefaultR = 1.0;

struct AlgorithmInfo {
  const char* name;
  const char* description;
  /// Empty when the algorithm applies to the torus, else the reason it declines.
  std::string (*not_applicable)(const Torus&);
  std::unique_ptr<Schedule> (*build)(const Torus&);
  /// Why `auto` never considers it (it only runs when named), or nullptr.
  const char* not_selected = nullptr;
};

/// Every schedule algorithm, in the order `auto` prefers them for large blocks.
const std::vector<AlgorithmInfo>& algorithms();
/// nullptr when no schedule algorithm has that name.
const AlgorithmInfo* find_algorithm(const std::string& name);
/// Builds the algorithm's schedule for the torus, or returns nullptr and the
/// reason it declines (its shape conditions, or a construction that failed).
std::unique_ptr<Schedule> try_build(const AlgorithmInfo& info, const Torus& torus, std::string* why);
/// The registered names joined by sep (", " for messages, "," for lists).
std::string algorithm_names(const char* sep = ", ");

}  // namespace torusgather
