// SPDX-License-Identifier: BSD-3-Clause
// `dim-rings` (Juurlink, Rao & Sibeyn, approach 1) and its small-block
// variants.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "model/closed_form.hpp"
#include "schedule/dim_rings.hpp"
#include "topology/torus.hpp"
#include "simulate/simulate.hpp"
#include "schedule_checks.hpp"

using namespace torusgather;

TEST(DimRings, RoundsAreTheSumOfHalfSides) {
  EXPECT_EQ(DimRingsSchedule(Torus({6, 8})).rounds(), 3 + 4);
  EXPECT_EQ(DimRingsSchedule(Torus({5, 7})).rounds(), 2 + 3);
  EXPECT_EQ(DimRingsSchedule(Torus({1, 13})).rounds(), 6);
  EXPECT_EQ(DimRingsSchedule(Torus({3, 4, 5})).rounds(), 1 + 2 + 2);
  EXPECT_EQ(DimRingsSchedule(Torus({1, 1})).rounds(), 0);
}

TEST(DimRings, ColoursUseEveryAxisOfASquareTorusAtOnce) {
  // On a k x k torus the two colours are always on different axes: one
  // message per directed link per round, every link busy.
  for (int k : {2, 3, 4, 7, 8}) {
    const DimRingsSchedule s(Torus({k, k}));
    EXPECT_EQ(s.colours(), 2);
    EXPECT_EQ(s.claimed_max_link_messages_per_round(), 1) << k;
    EXPECT_EQ(step_through(s).max_link_messages_per_round, 1) << k;
  }
}

TEST(DimRings, ManyShapes) {
  const std::vector<std::vector<int>> shapes = {
      {1},       {2},        {3},          {7},          {13},       {1, 7},     {7, 1},    {1, 1},
      {2, 2},    {2, 5},     {5, 2},       {2, 8},       {8, 2},     {4, 4},     {6, 8},    {8, 6},
      {3, 3},    {5, 7},     {7, 7},       {6, 7},       {11, 13},   {2, 2, 2},  {3, 3, 4}, {4, 4, 4},
      {2, 3, 5}, {1, 4, 1},  {5, 1, 3},    {2, 3, 2, 3}, {4, 5, 2, 3}, {2, 2, 2, 2, 2}, {16, 16}, {64, 2}};
  for (const auto& dims : shapes) {
    const DimRingsSchedule s{Torus(dims)};
    long long rounds = 0;
    for (int n : dims) rounds += n / 2;
    SCOPED_TRACE(name_of(dims));
    expect_verified(s, rounds);
  }
}

// Alike rounds come as one run: on rings a colour's phase is at most two
// runs (an even ring's antipode apart), so a long side costs the model and
// the profile O(1), not O(side); a line's rounds are one run each.
TEST(DimRings, AlikeRoundsComeAsOneRun) {
  for (const char* shape : {"10x100000", "2x500000", "7x8", "4x4x4x4x2", "2x3x4x5x6", "6x5m"}) {
    const Torus t = parsed_torus(shape);
    for (const DimRingsParams& v : {DimRingsParams{}, DimRingsParams{1, true, false}, DimRingsParams{0, false, true},
                                    DimRingsParams{0, false, false, true}}) {
      const DimRingsSchedule s(t, v);
      long long rounds = 0, runs = 0, line_rounds = 0;
      s.for_each_run([&](long long times, const std::vector<DimRingsSchedule::ColourStep>& steps,
                         const std::vector<double>(&)[2]) {
        EXPECT_GT(times, 0);
        EXPECT_FALSE(steps.empty());
        rounds += times;
        ++runs;
        if (std::any_of(steps.begin(), steps.end(), [](const auto& x) { return x.line > 0; })) line_rounds += times;
      });
      SCOPED_TRACE(std::string(shape) + " " + DimRingsSchedule::to_string(v));
      EXPECT_EQ(rounds, s.rounds());
      EXPECT_LE(runs - line_rounds, 2LL * s.colours() * s.phases());
    }
  }
}

// The small-block variants: 1 to d colours, the antipode's group in halves
// or whole. Same rounds, every block once; the proof's link loads are the
// step-through's.
TEST(DimRings, EveryVariantOnManyShapes) {
  const std::vector<std::vector<int>> shapes = {{2},    {7},       {8},       {2, 2},       {2, 5},   {6, 8},
                                                {7, 7}, {4, 4, 4}, {2, 3, 5}, {3, 3, 4},    {5, 1, 3}, {2, 3, 2, 3},
                                                {2, 2, 2, 2, 2}, {4, 5, 2, 3}, {16, 16}, {64, 2}};
  int checked = 0;
  for (const auto& dims : shapes) {
    const Torus t(dims);
    long long rounds = 0;
    for (int n : dims) rounds += n / 2;
    const int d = static_cast<int>(t.active_axes().size());
    int longs = 0;
    for (int a : t.active_axes()) longs += t.dim(a) > 2 ? 1 : 0;
    const bool mixed = longs > 0 && longs < d;
    for (bool short_first : {false, true})
      for (int colours = 1; colours <= (short_first ? longs : d); ++colours)
        for (bool whole : {false, true}) {
          if (short_first && !mixed) continue;
          const DimRingsSchedule s(t, DimRingsParams{colours, whole, short_first});
          SCOPED_TRACE(name_of(dims) + " " + DimRingsSchedule::to_string(s.params()));
          // Several colours run as streams: the simulator then checks that
          // each colour moves only its own piece.
          EXPECT_EQ(s.independent_colours(), s.colours() > 1);
          expect_verified(s, rounds);
          const SimulationReport rep = step_through(s);
          const SimulationReport proof = prove_structure(s);
          EXPECT_TRUE(proof.complete);
          EXPECT_EQ(proof.rounds, rep.rounds);
          EXPECT_EQ(proof.max_link_messages_per_round, rep.max_link_messages_per_round);
          EXPECT_DOUBLE_EQ(proof.max_link_blocks_per_round, rep.max_link_blocks_per_round);
          ++checked;
        }
  }
  EXPECT_EQ(checked, 96);  // 78 rotations, 18 short-first on the 5 shapes with sides of 2 and longer
}

// What the variants are for: on 2x2 the paper's colouring sends 4 messages
// per round (two colours, halves both ways), one colour with whole
// antipodes 1, as many as recursive doubling.
TEST(DimRings, SmallBlockVariantSendsFewerMessages) {
  const Torus t({2, 2});
  const auto sends = [&](const DimRingsSchedule& s) {
    RoundOps ops;
    auto program = s.program(0);
    std::vector<std::size_t> out;
    for (long long r = 0; r < s.rounds(); ++r) {
      program->next_round(ops);
      out.push_back(ops.sends.size());
    }
    return out;
  };
  EXPECT_EQ(sends(DimRingsSchedule(t)), (std::vector<std::size_t>{4, 4}));
  EXPECT_EQ(sends(DimRingsSchedule(t, 1, true)), (std::vector<std::size_t>{1, 1}));
  EXPECT_EQ(sends(DimRingsSchedule(t, 2, true)), (std::vector<std::size_t>{2, 2}));
  // The cost model's choice: whole antipodes in one colour where start-ups
  // dominate (r = α/(sβ) large), the paper's variant for large blocks.
  EXPECT_EQ(DimRingsSchedule::best(t, 1000, 0.5), "1,whole");
  EXPECT_EQ(DimRingsSchedule::best(Torus({8, 8, 8}), 0.01, 0.5), "3,halves");
  EXPECT_EQ(DimRingsSchedule::best(Torus({8, 8, 8}), 1000, 0.5), "1,whole");
  DimRingsParams p;
  std::string why;
  EXPECT_TRUE(DimRingsSchedule::parse("2,whole", t, &p, &why));
  EXPECT_EQ(p.colours, 2);
  EXPECT_TRUE(p.whole_antipode);
  EXPECT_FALSE(p.short_first);
  for (const char* bad : {"3,whole", "0,halves", "2", "2,both", ",whole", "x,halves", "2,halves,long", "2,short"})
    EXPECT_FALSE(DimRingsSchedule::parse(bad, t, &p, &why)) << bad;
  // Short-first on bgq's shape: its colours rotate over the four sides of 4.
  const Torus bgq({4, 4, 4, 4, 2});
  EXPECT_TRUE(DimRingsSchedule::parse("4,halves,short", bgq, &p, &why));
  EXPECT_TRUE(p.short_first);
  EXPECT_EQ(DimRingsSchedule::to_string(p), "4,halves,short");
  EXPECT_FALSE(DimRingsSchedule::parse("5,halves,short", bgq, &p, &why));
}

namespace {
/// The bandwidth term of a schedule's rounds, from its cost profile: the
/// busiest link's blocks in each round, summed.
double busiest_links(const DimRingsSchedule& s) {
  CostProfile p;
  EXPECT_TRUE(closed_form_profile(s, &p, 1));
  double total = 0;
  for (const auto& [times, round] : p.runs) total += static_cast<double>(times) * round.link_blocks;
  return total;
}
}  // namespace

// Sides of 2 beside longer sides (Blue Gene/Q's E, Tofu's a and c): the
// paper's rotation ends some colour's largest phase on a one-link side of
// 2; running the sides of 2 first keeps 8 of bgq's 9 links busy.
TEST(DimRings, ShortFirstKeepsTheLongSidesBusy) {
  const Torus bgq({4, 4, 4, 4, 2});
  const DimRingsSchedule paper(bgq), short_first(bgq, DimRingsParams{0, false, true});
  EXPECT_EQ(short_first.colours(), 4);
  EXPECT_EQ(short_first.rounds(), paper.rounds());
  for (int c = 0; c < 4; ++c) EXPECT_EQ(short_first.phase_axis(c, 0), 4);  // the side of 2 first
  // (P-1) blocks through 9 links at best: 56.8 blocks' time. In step, the
  // paper's rotation takes 110.7, short-first 64.75 (88 % of the bound).
  const double bound = (bgq.size() - 1) / 9.0;
  const DimRingsParams in_step{0, false, false, false, false, true}, short_in_step{0, false, true, false, false, true};
  EXPECT_NEAR(bound / busiest_links(DimRingsSchedule(bgq, in_step)), 0.513, 0.001);
  EXPECT_NEAR(bound / busiest_links(DimRingsSchedule(bgq, short_in_step)), 0.877, 0.001);
  // As streams the paper's colours drift apart and fill some idle links
  // (the fluid model: 89.2); short-first's phases already line up.
  EXPECT_NEAR(bound / busiest_links(paper), 0.637, 0.001);
  EXPECT_NEAR(bound / busiest_links(short_first), 0.877, 0.001);
  // The model's choice for large blocks on that shape, and the paper's
  // where every side is equal.
  EXPECT_EQ(DimRingsSchedule(bgq, DimRingsParams{4, false, true}).params().short_first, true);
  EXPECT_EQ(DimRingsSchedule::best(Torus({4, 4, 4, 4}), 0.0001, 0.5), "4,halves");
  // Only sides of 2, or none: the order is the paper's.
  EXPECT_FALSE(DimRingsSchedule(Torus({2, 2, 2}), DimRingsParams{0, false, true}).params().short_first);
  EXPECT_FALSE(DimRingsSchedule(Torus({4, 4}), DimRingsParams{0, false, true}).params().short_first);
}

// Several colours run as streams, except in step (",step"): what best()
// picks where the node axis is one of the torus's, and one colour, which
// has nothing to run beside.
TEST(DimRings, ColoursRunAsStreamsUnlessInStep) {
  const Torus t({4, 4, 4});
  std::string why;
  DimRingsParams p;
  ASSERT_TRUE(DimRingsSchedule::parse("3,halves,step", t, &p, &why)) << why;
  EXPECT_TRUE(p.in_step);
  EXPECT_EQ(DimRingsSchedule::to_string(p), "3,halves,step");
  EXPECT_FALSE(DimRingsSchedule(t, p).independent_colours());
  ASSERT_TRUE(DimRingsSchedule::parse("2,whole,short", Torus({4, 2, 4}), &p, &why)) << why;
  EXPECT_FALSE(p.in_step);
  EXPECT_TRUE(DimRingsSchedule(Torus({4, 2, 4}), p).independent_colours());
  EXPECT_FALSE(DimRingsSchedule::parse("3,step", t, &p, &why));
  EXPECT_FALSE(DimRingsSchedule(t, DimRingsParams{1, false, false, false, false, true}).params().in_step);
  EXPECT_EQ(DimRingsSchedule::best(t, 0.0001, 0.5, /*all_network=*/true), "3,halves");
  EXPECT_EQ(DimRingsSchedule::best(t, 0.0001, 0.5, /*all_network=*/false), "3,halves,step");
}

// As streams, best() weighs every colour count: one colour's overheads
// overlap another's transfers, so on bgq's 4x4x4x4x2 (two links on the
// side of 2) at 2 KiB (r = 0.92, q = 0.48) 4 colours cost least (118.4 us
// in SimGrid against 126.7 us for 5). In step it keeps to 1 or D colours.
TEST(DimRings, BestWeighsEveryColourCountAsStreams) {
  const Torus bgq({4, 4, 4, 4, 2}, 1u << 4);
  EXPECT_EQ(DimRingsSchedule::best(bgq, 0.92, 0.48, /*all_network=*/true), "4,halves");
  EXPECT_EQ(DimRingsSchedule::best(bgq, 0.92, 0.48, /*all_network=*/false), "5,halves,step");
  const DimRingsParams four{4, false}, five{5, false};
  EXPECT_LT(DimRingsSchedule::model_cost(bgq, four, 0.92, 0.48), DimRingsSchedule::model_cost(bgq, five, 0.92, 0.48));
  // In step the same four colours cost more: their overheads add to the transfers.
  DimRingsParams four_step = four;
  four_step.in_step = true;
  EXPECT_LT(DimRingsSchedule::model_cost(bgq, four, 0.92, 0.48), DimRingsSchedule::model_cost(bgq, four_step, 0.92, 0.48));
}

// The streams pricing against SimGrid: docs/data/streams-variants.csv holds
// every variant of dim-rings (node-dim-rings' node torus with 4 ranks per
// node) run alone on a preset's figures, one call, the mean over ranks. Per
// preset and block size, the variant model_cost prices cheapest (r rounded
// to a power of two as the selector does, over k slices per link) is within
// 11 % of the fastest run, 2 % on average.
TEST(DimRings, StreamsPricingPicksNearTheFastestInSimGrid) {
  std::ifstream in(std::string(TORUSGATHER_DOCS_DATA) + "/streams-variants.csv");
  ASSERT_TRUE(in) << "docs/data/streams-variants.csv";
  struct Case {
    std::unique_ptr<Torus> torus;
    double r = 0, q = 0, inject = 0;
    std::vector<std::pair<DimRingsParams, double>> runs;
  };
  std::map<std::string, Case> cases;
  std::string line;
  std::getline(in, line);  // the header
  while (std::getline(in, line)) {
    // preset,dims,pair_links,ranks_per_node,overhead_s,latency_s,bandwidth_Bps,injection_Bps,algorithm,"variant",bytes,mean_us
    const std::size_t open = line.find('"'), close = line.rfind('"');
    ASSERT_NE(open, close) << line;
    std::vector<std::string> f;
    std::string field;
    for (char ch : line.substr(0, open) + line.substr(close + 2) + ",")
      if (ch == ',') f.push_back(std::exchange(field, std::string()));
      else field += ch;
    ASSERT_EQ(f.size(), 11u) << line;  // 9 before the variant, then bytes and time
    const double o = std::stod(f[4]), alpha = 2 * o + std::stod(f[5]), bw = std::stod(f[6]), bytes = std::stod(f[9]);
    Case& c = cases[f[0] + " x" + f[3] + " " + f[9]];
    if (!c.torus) {
      std::uint32_t open_axes = 0;
      const std::vector<int> dims = parse_dims(f[1], &open_axes);
      std::uint32_t two = 0;
      for (std::size_t a = 0; a < dims.size(); ++a)
        if (f[2] == "2" && dims[a] == 2) two |= 1u << a;
      c.torus = std::make_unique<Torus>(dims, two, open_axes);
      c.r = std::exp2(std::round(std::log2(alpha * bw / bytes))) / std::stoi(f[3]);
      c.q = o / alpha;
      c.inject = std::stod(f[7]) / bw;
    }
    DimRingsParams p;
    std::string why;
    ASSERT_TRUE(DimRingsSchedule::parse(line.substr(open + 1, close - open - 1), *c.torus, &p, &why)) << why;
    c.runs.emplace_back(p, std::stod(f[10]));
  }
  ASSERT_EQ(cases.size(), 24u);  // 5 presets with 1 rank per node at 4 sizes, 2 with 4 at 2
  double sum = 0, most = 0;
  for (const auto& [name, c] : cases) {
    double fastest = 1e300, priced = 1e300, picked = 0;
    for (const auto& [p, us] : c.runs) {
      fastest = std::min(fastest, us);
      if (const double x = DimRingsSchedule::model_cost(*c.torus, p, c.r, c.q, c.inject); x < priced) {
        priced = x;
        picked = us;
      }
    }
    EXPECT_LE(picked / fastest, 1.10) << name;
    sum += picked / fastest - 1;
    most = std::max(most, picked / fastest - 1);
  }
  EXPECT_LE(sum / static_cast<double>(cases.size()), 0.01) << "the worst " << most;
}

// Balanced: every rotation of the axes and its reverse, weighted by the
// fluid model, each colour a stream. Verified on all ranks like the others
// (rounds in step are one way to run streams); the weights are whole units
// summing to a block.
TEST(DimRings, BalancedOnManyShapes) {
  const std::vector<std::vector<int>> shapes = {{2, 2},    {2, 5},       {6, 8},          {4, 4, 4},   {2, 3, 5},
                                                {3, 3, 4}, {2, 3, 2, 3}, {4, 4, 4, 4, 2}, {4, 4, 8},   {4, 2, 3, 2}};
  for (const auto& dims : shapes) {
    const Torus t(dims);
    long long rounds = 0;
    for (int n : dims) rounds += n / 2;
    const DimRingsSchedule s(t, DimRingsParams{0, false, false, true});
    SCOPED_TRACE(name_of(dims));
    EXPECT_TRUE(s.independent_colours());
    EXPECT_EQ(DimRingsSchedule::to_string(s.params()), "balanced");
    EXPECT_LE(s.colours(), 2 * static_cast<int>(t.active_axes().size()));
    long long units = 0;
    for (int c = 0; c < s.colours(); ++c) units += s.piece(c).hi - s.piece(c).lo;
    EXPECT_EQ(units, Piece::kUnits);
    expect_verified(s, rounds);
    const SimulationReport rep = step_through(s);
    const SimulationReport proof = prove_structure(s);
    EXPECT_EQ(proof.max_link_messages_per_round, rep.max_link_messages_per_round);
    EXPECT_NEAR(proof.max_link_blocks_per_round, rep.max_link_blocks_per_round, 1e-12);
  }
  DimRingsParams p;
  std::string why;
  EXPECT_TRUE(DimRingsSchedule::parse("balanced", Torus({4, 2}), &p, &why));
  EXPECT_TRUE(p.balanced);
}

// The fluid model: on a k x k torus the paper's two colours keep all four
// links busy, (k^2 - 1)/4 blocks' time; on bgq's shape balanced streams come
// within 4 % of (P - 1)/9 (short-first: 88 %), and the model picks them for
// large blocks.
TEST(DimRings, BalancedKeepsEveryLinkBusy) {
  EXPECT_NEAR(fluid_time(Torus({4, 4}), {{0, 1}, {1, 0}}, {0.5, 0.5}), 15.0 / 4, 1e-9);
  EXPECT_NEAR(fluid_time(Torus({8, 8}), {{0, 1}, {1, 0}}, {0.5, 0.5}), 63.0 / 4, 1e-9);
  // 4x8: the colour along 0 first (0.75 blocks on link 0, then 7 on link 2)
  // meets the other's 1.75 on link 2 at 0.75 and shares it until 2.75; both
  // then have 6 left on their own links.
  EXPECT_NEAR(fluid_time(Torus({4, 8}), {{0, 1}, {1, 0}}, {0.5, 0.5}), 8.75, 1e-9);
  const Torus bgq({4, 4, 4, 4, 2});
  const DimRingsSchedule balanced(bgq, DimRingsParams{0, false, false, true});
  const double bound = (bgq.size() - 1) / 9.0;
  EXPECT_GT(bound / balanced.fluid_blocks(), 0.96);
  EXPECT_GT(bound / busiest_links(balanced), 0.96);  // the profile carries the fluid time
  EXPECT_EQ(DimRingsSchedule::best(bgq, 0.0001, 0.5), "balanced");
}

// The fluid model carries a repeating state of the links forward whole
// periods at a time, with and without the node's injection limit; stepped
// through every round instead, it gives the same times on long rings shared
// by colours of unequal weights and groups, with whole antipodes, with a
// plane's two lanes and with open lines.
TEST(DimRings, FluidModelSkipsRepeatedRoundsExactly) {
  struct Case {
    Torus torus;
    std::vector<AxisOrder> orders;
    std::vector<double> weights;
    bool whole;
  };
  const std::vector<Case> cases = {
      {Torus({2, 500}), {{0, 1}, {1, 0}}, {0.5, 0.5}, true},
      {Torus({2, 500}), {{0, 1}, {1, 0}}, {0.3, 0.7}, false},
      {Torus({4, 4, 250}), {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}}, {0.2, 0.3, 0.5}, false},
      {Torus({4, 4, 250}), {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}}, {0.25, 0.25, 0.5}, true},
      {Torus({2, 300}), {{Ring(1, 0, 0)}, {Ring(1, 0, 1)}, {0, 1}}, {0.4, 0.35, 0.25}, false},
      {Torus({60, 4, 3}, 0, 1u), {{0, 1, 2}, {2, 0, 1}, {1, 2, 0}}, {0.5, 0.25, 0.25}, false},
  };
  for (const Case& c : cases) {
    const double stepped = fluid_time_limited(c.torus, c.orders, c.weights, c.whole, 0, false);
    EXPECT_NEAR(fluid_time(c.torus, c.orders, c.weights, c.whole), stepped, 1e-9 * stepped) << c.torus.to_string();
    EXPECT_NEAR(fluid_time_limited(c.torus, c.orders, c.weights, c.whole, 0), stepped, 1e-9 * stepped)
        << c.torus.to_string();
    for (double inject : {1.0, 2.5}) {
      const double limited = fluid_time_limited(c.torus, c.orders, c.weights, c.whole, inject, false);
      EXPECT_NEAR(fluid_time_limited(c.torus, c.orders, c.weights, c.whole, inject), limited, 1e-9 * limited)
          << c.torus.to_string() << " inject " << inject;
    }
  }
}

// The fluid model of other streams: an even ring's antipode sent whole puts
// the group on the + link (2 blocks' time on a ring of 4, against 1.5 in
// halves); with the node's injection limit (what it sends and receives
// together, in links) the streams share it too: at 1 link the 2 · 15 blocks
// through it take 30, with a loose limit the links alone bound them.
TEST(DimRings, FluidModelOfWholeAntipodesAndTheInjectionLimit) {
  EXPECT_NEAR(fluid_time(Torus({4}), {{0}}, {1.0}), 1.5, 1e-9);
  EXPECT_NEAR(fluid_time(Torus({4}), {{0}}, {1.0}, true), 2.0, 1e-9);
  const Torus t({4, 4});
  EXPECT_NEAR(fluid_time_limited(t, {{0, 1}, {1, 0}}, {0.5, 0.5}, false, 1.0), 30.0, 1e-9);
  EXPECT_NEAR(fluid_time_limited(t, {{0, 1}, {1, 0}}, {0.5, 0.5}, true, 1.0), 30.0, 1e-9);
  EXPECT_NEAR(fluid_time_limited(t, {{0, 1}, {1, 0}}, {0.5, 0.5}, false, 100), 15.0 / 4, 1e-9);
  // Between the two: above both the links' time and the limit's.
  const double mid = fluid_time_limited(t, {{0, 1}, {1, 0}}, {0.5, 0.5}, false, 8);
  EXPECT_GE(mid, 30.0 / 8 - 1e-9);
  EXPECT_GE(mid, 15.0 / 4 - 1e-9);
  // A schedule of several colours as streams is priced from it.
  const DimRingsSchedule two(t, 2, false);
  EXPECT_NEAR(two.streams_link_blocks(), 15.0 / 4, 1e-9);
  EXPECT_NEAR(two.fluid_blocks(1.0), 30.0, 1e-9);
  EXPECT_EQ(DimRingsSchedule(t, DimRingsParams{2, false, false, false, false, true}).streams_link_blocks(), 0);
}

// Up to 8 colours the weights also move between colours: on 8x8x4 equal
// weights leave links idle (93.4 % of (P - 1) over the node's links), the
// moves reach 98.6 %.
TEST(DimRings, WeightsMovedBetweenColours) {
  const Torus t({8, 8, 4});
  const DimRingsSchedule s(t, DimRingsParams{0, false, false, true});
  const double bound = static_cast<double>(t.size() - 1) / t.incoming_links();
  EXPECT_LE(s.fluid_blocks(), bound / 0.98);
}
