// SPDX-License-Identifier: BSD-3-Clause
// What the schedule tests check on every shape: a schedule stepped through
// on all ranks (and proven structurally), and the simulator's errors as one
// string for failure messages.
#pragma once

#include <gtest/gtest.h>
#include <malloc.h>

#include <cstddef>
#if defined(__SANITIZE_ADDRESS__)
// AddressSanitizer's runtime (its header is not always installed).
extern "C" std::size_t __sanitizer_get_current_allocated_bytes();
#endif

#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "schedule/explicit.hpp"
#include "schedule/lanes.hpp"
#include "schedule/schedule.hpp"
#include "simulate/simulate.hpp"
#include "topology/torus.hpp"

inline std::string all_errors(const torusgather::SimulationReport& rep) {
  std::string s;
  for (const auto& e : rep.errors) s += e + "\n";
  return s;
}

inline std::string name_of(const std::vector<int>& dims) { return torusgather::Torus(dims).to_string(); }

/// Bytes the process holds on its heap (glibc's count, or the sanitizer's
/// under AddressSanitizer, which replaces malloc).
inline std::size_t heap_in_use() {
#if defined(__SANITIZE_ADDRESS__)
  return __sanitizer_get_current_allocated_bytes();
#else
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
#endif
}

/// A shape as TORUSGATHER_DIMS writes it, open axes marked m ("4mx4mx2").
inline torusgather::Torus parsed_torus(const std::string& text) {
  std::uint32_t open = 0;
  const std::vector<int> dims = torusgather::parse_dims(text, &open);
  return torusgather::Torus(dims, 0, open);
}

/// One step along a lane or snake of `len` ranks from r: its ports lead to
/// the next and previous rank, over links the torus has, the receiver's
/// port is the opposite one, and shifts wrap around after len. Returns the next rank.
inline torusgather::Rank expect_ring_step(const torusgather::Torus& t, const torusgather::Ring& ring,
                                          torusgather::Rank r, int len) {
  using namespace torusgather;
  const auto [next, prev] = lane_ports(t, ring, r);
  EXPECT_TRUE(t.has_link(r, next) && t.has_link(r, prev));
  const Rank to = lane_shift(t, ring, r, 1);
  EXPECT_EQ(t.neighbor(r, next), to);
  EXPECT_EQ(t.neighbor(r, prev), lane_shift(t, ring, r, -1));
  EXPECT_EQ(lane_ports(t, ring, to).second, opposite(next));
  EXPECT_EQ(lane_shift(t, ring, r, len + 3), lane_shift(t, ring, r, 3));
  return to;
}

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

/// The calls every rank's program sends, round by round (routed schedules).
inline std::vector<std::vector<torusgather::Call>> calls_of_programs(const torusgather::Schedule& s) {
  using namespace torusgather;
  std::vector<std::unique_ptr<RankProgram>> programs;
  for (Rank r = 0; r < s.torus().size(); ++r) programs.push_back(s.program(r));
  std::vector<std::vector<Call>> out(static_cast<std::size_t>(s.rounds()));
  RoundOps ops;
  for (auto& round : out)
    for (Rank r = 0; r < s.torus().size(); ++r) {
      programs[static_cast<std::size_t>(r)]->next_round(ops);
      for (const Transfer& x : ops.sends) round.push_back(Call{r, x.peer, *x.route, *x.ranges, x.piece.colour});
    }
  return out;
}

/// Every rank's program makes exactly the calls `want` (a construction
/// derived for all ranks at once), round by round: each call sent by its
/// caller and received by its callee, with the same route and blocks.
inline void expect_programs_make(const torusgather::Schedule& s,
                                 const std::vector<std::vector<torusgather::Call>>& want) {
  using namespace torusgather;
  ASSERT_EQ(static_cast<long long>(want.size()), s.rounds());
  std::vector<std::unique_ptr<RankProgram>> programs;
  for (Rank r = 0; r < s.torus().size(); ++r) programs.push_back(s.program(r));
  RoundOps ops;
  for (std::size_t round = 0; round < want.size(); ++round) {
    std::multiset<std::tuple<Rank, Rank, std::vector<Port>, BlockRanges>> made, built, received;
    for (const Call& call : want[round]) built.insert({call.from, call.to, call.route, call.ranges});
    for (Rank r = 0; r < s.torus().size(); ++r) {
      programs[static_cast<std::size_t>(r)]->next_round(ops);
      for (const Transfer& x : ops.sends) made.insert({r, x.peer, *x.route, *x.ranges});
      for (const Transfer& x : ops.recvs) received.insert({x.peer, r, *x.route, *x.ranges});
    }
    ASSERT_EQ(made, built) << s.name() << " on " << s.torus().to_string() << ", round " << round + 1;
    ASSERT_EQ(received, built) << s.name() << " on " << s.torus().to_string() << ", round " << round + 1;
  }
}
