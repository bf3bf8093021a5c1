// SPDX-License-Identifier: BSD-3-Clause
// The simulator's errors as one string, for test failure messages.
#pragma once

#include <string>

#include "simulate/simulate.hpp"

inline std::string all_errors(const torusgather::SimulationReport& rep) {
  std::string s;
  for (const auto& e : rep.errors) s += e + "\n";
  return s;
}
