// SPDX-License-Identifier: BSD-3-Clause
// Two open axes as one cycle of their grid (Ring::snake): its walk, the
// balanced colours that run on it, and when dim-rings chooses it.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "schedule/dim_rings.hpp"
#include "schedule/lanes.hpp"
#include "schedule_checks.hpp"
#include "simulate/simulate.hpp"

using namespace torusgather;

namespace {

const DimRingsParams kSnakes{0, false, false, true, true};

}  // namespace

// From every rank the snake visits the grid's m·n ranks once and returns
// (two open axes, or an open axis and a side of 2),
// each step over a link the grid has (none wraps around), its ports leading
// to the next and previous rank; only the grid's two coordinates change.
TEST(Snake, IsAHamiltonianCycleOfTheGrid) {
  struct Case {
    const char* shape;
    int axis, pair;
  };
  for (const Case& c : std::vector<Case>{
           {"4mx4m", 0, 1}, {"4mx3m", 0, 1}, {"6mx5m", 0, 1}, {"8mx7m", 0, 1},
           {"3mx4m", 1, 0}, {"4mx3x6m", 2, 0}, {"3x4mx2x4m", 1, 3},
           {"4mx2", 0, 1}, {"2x5m", 0, 1}}) {
    const Torus t = parsed_torus(c.shape);
    SCOPED_TRACE(c.shape);
    const Ring ring(c.axis, c.pair, 0);
    ASSERT_TRUE(ring.snake(t));
    const int len = ring.length(t);
    EXPECT_EQ(len, t.dim(c.axis) * t.dim(c.pair));
    const std::uint32_t plane = (1u << c.axis) | (1u << c.pair);
    for (Rank start = 0; start < t.size(); ++start) {
      std::set<Rank> seen;
      Rank r = start;
      for (int step = 0; step < len; ++step) {
        seen.insert(r);
        r = expect_ring_step(t, ring, r, len);
      }
      EXPECT_EQ(r, start);
      EXPECT_EQ(seen.size(), static_cast<std::size_t>(len));
      for (Rank x : seen) EXPECT_EQ(t.clear_axes(x, plane), t.clear_axes(start, plane));
    }
  }
}

// Balanced colours with snakes: stepped through on every rank, a snake of
// m·n taking m·n/2 rounds, every rank sending exactly P − 1 blocks (lines'
// inner ranks send more), the structural proof agreeing.
TEST(Snake, BalancedDimRingsSendWhatTheyReceive) {
  struct Case {
    const char* shape;
    long long rounds;
  };
  for (const Case& c : std::vector<Case>{{"4mx4m", 8},
                                         {"4mx3m", 6},
                                         {"2x4mx4m", 9},
                                         {"4mx4mx2x2x3x2", 12},
                                         {"6mx5mx3", 16},
                                         {"2x2x4mx2x3x2", 8},
                                         {"2x5mx3", 6},
                                         {"4mx4mx4m", 11}}) {
    const Torus t = parsed_torus(c.shape);
    SCOPED_TRACE(c.shape);
    const DimRingsSchedule s(t, kSnakes);
    bool snake = false;
    for (int k = 0; k < s.colours(); ++k)
      for (int f = 0; f < s.phases(); ++f) snake = snake || s.phase_ring(k, f).snake(t);
    EXPECT_TRUE(snake);
    const SimulationReport rep = step_through(s);
    ASSERT_TRUE(rep.complete) << all_errors(rep);
    EXPECT_EQ(rep.rounds, c.rounds);
    EXPECT_EQ(s.rounds(), c.rounds);
    EXPECT_EQ(rep.max_link_messages_per_round, s.claimed_max_link_messages_per_round());
    const SimulationReport proof = prove_structure(s);
    EXPECT_TRUE(proof.complete) << all_errors(proof);
    EXPECT_EQ(proof.rounds, rep.rounds);
    EXPECT_NEAR(proof.max_link_blocks_per_round, rep.max_link_blocks_per_round, 1e-12);
    // Only a line left beside the snake (4mx4mx4m's third axis) sends more.
    if (std::string(c.shape) != "4mx4mx4m")
      EXPECT_NEAR(rep.volume_per_rank_blocks, static_cast<double>(t.size() - 1), 1e-9);
    const DimRingsSchedule lines(t, DimRingsParams{0, false, false, true});
    EXPECT_GT(step_through(lines).volume_per_rank_blocks, static_cast<double>(t.size() - 1));
  }
}

// Text form, and the choice: on Tofu-D's mesh job (4mx4mx2x2x3x2) with its
// injection limit (76.2 GB/s in and out over 6.8 GB/s links: 11.2 links),
// the lines' inner ranks pass their limit's share more than the snake's,
// and best() runs the snake; without a limit, lines (fewer rounds, less
// link time).
TEST(Snake, ChosenWhereTheInjectionLimitBinds) {
  const Torus t = parsed_torus("4mx4mx2x2x3x2");
  DimRingsParams p;
  std::string why;
  ASSERT_TRUE(DimRingsSchedule::parse("balanced,snake", t, &p, &why)) << why;
  EXPECT_TRUE(p.balanced && p.snakes);
  EXPECT_EQ(DimRingsSchedule::to_string(p), "balanced,snake");
  // A built schedule reports the variant it runs (TORUSGATHER_VERBOSE names it so).
  EXPECT_EQ(DimRingsSchedule::to_string(DimRingsSchedule(t, p).params()), "balanced,snake");
  EXPECT_EQ(DimRingsSchedule::to_string(DimRingsSchedule(t, DimRingsParams{0, false, false, true}).params()), "balanced");
  EXPECT_TRUE(DimRingsSchedule::has_snake(t));
  EXPECT_TRUE(DimRingsSchedule::has_snake(parsed_torus("2x2x4mx2x3x2")));  // an open axis and a side of 2
  EXPECT_FALSE(DimRingsSchedule::has_snake(parsed_torus("3x4mx5")));       // an open axis alone
  EXPECT_FALSE(DimRingsSchedule::has_snake(parsed_torus("3mx5m")));        // no even side
  EXPECT_FALSE(DimRingsSchedule::has_snake(parsed_torus("4x4x2")));        // no open axis

  const double inject = 76.2 / 6.8, r = 1e-4, q = 0.4;
  const DimRingsParams lines{0, false, false, true};
  EXPECT_GT(DimRingsSchedule::model_cost(t, lines, r, q, inject), DimRingsSchedule::model_cost(t, kSnakes, r, q, inject));
  EXPECT_LT(DimRingsSchedule::model_cost(t, lines, r, q), DimRingsSchedule::model_cost(t, kSnakes, r, q));
  EXPECT_EQ(DimRingsSchedule::best(t, r, q, true, true, inject), "balanced,snake");
  EXPECT_EQ(DimRingsSchedule::best(t, r, q, true, true, 0), "balanced");
  // Through the limit a line's inner rank counts what it passes on too: on a
  // line of 4 in step 2, the rank at 1 takes in 1 group and passes on 2.
  const DimRingsSchedule::ColourStep step{0, 1.0, 2, -1, 4, 2};
  const DimRingsSchedule::RankMost most = DimRingsSchedule::most_per_rank({step});
  EXPECT_DOUBLE_EQ(most.recv_blocks, 1.0);
  EXPECT_DOUBLE_EQ(most.moved_blocks, 3.0);
  // The limit's bound, 2 (P − 1) blocks over it: without start-up the
  // snake's fluid time is above it (the inner ranks pass both ways, and the
  // last phases leave the limit part idle), and within 10 % of it, as in
  // SimGrid (docs/algorithms.md).
  const double cost = DimRingsSchedule::model_cost(t, kSnakes, 0, q, inject), bound = 2.0 * 383 / inject;
  EXPECT_GT(cost, bound);
  EXPECT_LT(cost, 1.1 * bound);
}
