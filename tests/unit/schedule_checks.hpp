// SPDX-License-Identifier: BSD-3-Clause
// What the schedule tests check on every shape: a schedule stepped through
// on all ranks (and proven structurally), and the simulator's errors as one
// string for failure messages.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "schedule/schedule.hpp"
#include "simulate/simulate.hpp"
#include "topology/torus.hpp"

inline std::string all_errors(const torusgather::SimulationReport& rep) {
  std::string s;
  for (const auto& e : rep.errors) s += e + "\n";
  return s;
}

inline std::string name_of(const std::vector<int>& dims) { return torusgather::Torus(dims).to_string(); }

/// Stepped through: complete in `rounds`, every rank receiving P - 1 blocks.
inline void expect_verified(const torusgather::Schedule& s, long long rounds) {
  const torusgather::SimulationReport rep = torusgather::step_through(s);
  EXPECT_TRUE(rep.complete) << s.name() << " on " << s.torus().to_string() << ": "
                            << (rep.errors.empty() ? "" : rep.errors.front());
  EXPECT_EQ(rep.rounds, rounds) << s.torus().to_string();
  // Sums of 1/(2*colours) fractions: equal up to rounding.
  EXPECT_NEAR(rep.volume_per_rank_blocks, static_cast<double>(s.torus().size() - 1), 1e-9) << s.torus().to_string();
}

/// Steps s through on every rank (complete in `rounds`, one message per
/// directed link and round) and checks that the structural proof agrees
/// (complete, same rounds, link load and volume). Returns the step-through's report.
inline torusgather::SimulationReport expect_stepped_and_proved(const torusgather::Schedule& s, long long rounds) {
  const torusgather::SimulationReport rep = torusgather::step_through(s);
  EXPECT_TRUE(rep.complete) << (rep.errors.empty() ? "" : rep.errors.front());
  EXPECT_EQ(rep.rounds, rounds);
  EXPECT_EQ(rep.max_link_messages_per_round, 1);
  const torusgather::SimulationReport proof = torusgather::prove_structure(s);
  EXPECT_TRUE(proof.complete) << (proof.errors.empty() ? "" : proof.errors.front());
  EXPECT_EQ(proof.rounds, rep.rounds);
  EXPECT_DOUBLE_EQ(proof.max_link_blocks_per_round, rep.max_link_blocks_per_round);
  EXPECT_DOUBLE_EQ(proof.volume_per_rank_blocks, rep.volume_per_rank_blocks);
  return rep;
}
