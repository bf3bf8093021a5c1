// SPDX-License-Identifier: BSD-3-Clause
// `circulant` (Monakhova & Monakhov §5): D* rounds and p-gossip.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "schedule/circulant.hpp"
#include "simulate/simulate.hpp"
#include "schedule_checks.hpp"

using namespace torusgather;

// Monakhova & Monakhov Props. 7 and 8: D* rounds on G(N; s, s+1) for every N > 4, with
// at most D* blocks on a link per round; s from the intervals (4) and (5).
TEST(Circulant, DiameterRoundsForEveryNUpTo200) {
  EXPECT_EQ(CirculantSchedule::chord(31), 4);  // G(N; 4, 5) for 31 <= N <= 51 (Fig. 2)
  EXPECT_EQ(CirculantSchedule::chord(35), 4);  // Fig. 1: G(35; 4, 5)
  EXPECT_EQ(CirculantSchedule::chord(45), 4);  // interval (5): diameter s + 1 = 5
  EXPECT_EQ(CirculantSchedule::diameter(41), 4);
  EXPECT_EQ(CirculantSchedule::diameter(42), 5);
  for (long long n = 5; n <= 200; ++n) {
    SCOPED_TRACE("N = " + std::to_string(n));
    const CirculantSchedule s{Torus({static_cast<int>(n)})};
    const long long d = CirculantSchedule::diameter(n);
    EXPECT_EQ(s.rounds(), d);
    const auto rep = step_through(s);
    ASSERT_TRUE(rep.complete) << all_errors(rep);
    EXPECT_EQ(rep.rounds, d);
    EXPECT_LE(rep.max_link_blocks_per_round, static_cast<double>(d));
    EXPECT_EQ(rep.volume_per_rank_blocks, static_cast<double>(n - 1));  // no excess copies (§5)
  }
}

// Prop. 9: p-gossip on G(N; D, D+1), N = 2D^2 + 2D + 1.
TEST(Circulant, PGossipMeetsPropositionNine) {
  for (long long d = 2; d <= 7; ++d)
    for (int p = 1; p <= d; ++p) {
      const long long n = 2 * d * d + 2 * d + 1;
      SCOPED_TRACE("N = " + std::to_string(n) + ", p = " + std::to_string(p));
      const CirculantSchedule s(Torus({static_cast<int>(n)}), p);
      EXPECT_EQ(s.rounds(), CirculantSchedule::prop9_rounds(d, p));
      const auto rep = step_through(s);
      EXPECT_TRUE(rep.complete) << all_errors(rep);
      EXPECT_LE(rep.max_link_blocks_per_round, static_cast<double>(p));
    }
  EXPECT_EQ(CirculantSchedule::prop9_rounds(5, 1), 15);  // = N-1 / 4: one block per link
  EXPECT_EQ(CirculantSchedule::prop9_rounds(5, 5), 5);   // = D
}

// A rank keeps the tree's offsets as runs: each port of a round carries one
// quadrant's g-edge and a run of another's h-edges, so 8 runs per round,
// O(D*) = O(sqrt N) in all, where a list of offsets would hold N - 1.
TEST(Circulant, KeepsAtMostEightRunsPerRound) {
  for (long long n = 5; n <= 3000; ++n) {
    const CirculantSchedule s{Torus({static_cast<int>(n)})};
    ASSERT_LE(s.offset_runs(), static_cast<std::size_t>(8 * CirculantSchedule::diameter(n))) << "N = " << n;
  }
  const CirculantSchedule big{Torus({100003})};
  EXPECT_LE(big.offset_runs(), static_cast<std::size_t>(8 * CirculantSchedule::diameter(100003)));
  long long blocks = 0;
  for (long long t = 1; t <= big.rounds(); ++t)
    for (Port p = 0; p < 4; ++p) blocks += big.blocks_on(t, p);
  EXPECT_EQ(blocks, 100003 - 1);  // every tree edge once
}
