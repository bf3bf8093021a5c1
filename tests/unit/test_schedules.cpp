// SPDX-License-Identifier: BSD-3-Clause
#include <gtest/gtest.h>

#include <cstdint>

#include <algorithm>
#include <string>
#include <vector>

#include "schedule/decomposition.hpp"
#include "schedule/dim_rings.hpp"
#include "schedule/hamiltonian.hpp"
#include "schedule/hamiltonian_partial.hpp"
#include "schedule/node_sliced.hpp"
#include "schedule/partial_cycles.hpp"
#include "schedule/registry.hpp"
#include "schedule/torus_bruck.hpp"
#include "simulate/simulate.hpp"

using namespace torusgather;

namespace {

std::string name_of(const std::vector<int>& dims) { return Torus(dims).to_string(); }

void expect_verified(const Schedule& s, long long rounds) {
  const SimulationReport rep = step_through(s);
  EXPECT_TRUE(rep.complete) << s.name() << " on " << s.torus().to_string() << ": "
                            << (rep.errors.empty() ? "" : rep.errors.front());
  EXPECT_EQ(rep.rounds, rounds) << s.torus().to_string();
  // Sums of 1/(2*colours) fractions: equal up to rounding.
  EXPECT_NEAR(rep.volume_per_rank_blocks, static_cast<double>(s.torus().size() - 1), 1e-9) << s.torus().to_string();
}


/// Steps s through on every rank (complete in `rounds`, one message per
/// directed link and round) and checks that the structural proof agrees
/// (complete, same rounds, link load and volume). Returns the step-through's report.
SimulationReport expect_stepped_and_proved(const Schedule& s, long long rounds) {
  const SimulationReport rep = step_through(s);
  EXPECT_TRUE(rep.complete) << (rep.errors.empty() ? "" : rep.errors.front());
  EXPECT_EQ(rep.rounds, rounds);
  EXPECT_EQ(rep.max_link_messages_per_round, 1);
  const SimulationReport proof = prove_structure(s);
  EXPECT_TRUE(proof.complete) << (proof.errors.empty() ? "" : proof.errors.front());
  EXPECT_EQ(proof.rounds, rep.rounds);
  EXPECT_DOUBLE_EQ(proof.max_link_blocks_per_round, rep.max_link_blocks_per_round);
  EXPECT_DOUBLE_EQ(proof.volume_per_rank_blocks, rep.volume_per_rank_blocks);
  return rep;
}

}  // namespace

// Meyer & Sibeyn §3.1: the rules as printed, on the paper's own 6x8 example.
TEST(Hamiltonian, ForwardingRulesOfSection31) {
  const HamiltonianSchedule h(Torus({6, 8}));
  const Port T = make_port(0, false), B = make_port(0, true), L = make_port(1, false), R = make_port(1, true);
  const Torus& t = h.torus();
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < 8; ++j) {
      const Rank r = t.rank({i, j});
      if (j % 2 == 0 || j == 7) {
        EXPECT_EQ(h.partner(r, T), R);
        EXPECT_EQ(h.partner(r, B), L);
      } else {
        EXPECT_EQ(h.partner(r, T), L);
        EXPECT_EQ(h.partner(r, B), R);
      }
    }
  }
}

TEST(Hamiltonian, PicksTheConstructionByShape) {
  EXPECT_EQ(HamiltonianSchedule(Torus({6, 8})).construction(), "forwarding rules of Meyer & Sibeyn §3.1");
  EXPECT_EQ(HamiltonianSchedule(Torus({7, 7})).construction(), "closed form for k x k (anti-diagonal switch)");
  EXPECT_EQ(HamiltonianSchedule(Torus({9, 15})).construction().rfind("closed form for gcd(m, n) = 3", 0), 0u);
  EXPECT_EQ(HamiltonianSchedule(Torus({6, 7})).construction().rfind("4-cycle switch search", 0), 0u);
  EXPECT_EQ(HamiltonianSchedule(Torus({4, 4, 4})).construction().rfind("4-cycle switch search", 0), 0u);
  EXPECT_EQ(HamiltonianSchedule(Torus({8, 8, 8, 8})).construction().rfind("doubling", 0), 0u);
  EXPECT_EQ(HamiltonianSchedule(Torus({5, 5, 5})).construction().rfind("closed form for odd m x m x m", 0), 0u);
  EXPECT_EQ(HamiltonianSchedule(Torus({1, 7, 7, 7})).construction().rfind("closed form for odd m x m x m", 0), 0u);
  EXPECT_EQ(HamiltonianSchedule(Torus({5, 5, 7})).construction().rfind("4-cycle switch search", 0), 0u);
  // C2 x C_odd (doubled links on the side of 2): the search finds nothing and
  // the algorithm declines; the API then runs dim-rings.
  EXPECT_THROW(HamiltonianSchedule(Torus({2, 3})), std::invalid_argument);
  std::string why;
  EXPECT_EQ(try_build(*find_algorithm("hamiltonian"), Torus({2, 3}), &why), nullptr);
  EXPECT_NE(why.find("no decomposition"), std::string::npos);
}

TEST(Decomposition, ClosedFormsAreHamiltonian) {
  for (int k = 2; k <= 16; ++k) {
    const Torus t({k, k});
    auto c = square_decomposition(t);
    ASSERT_NE(c, nullptr) << k;
    EXPECT_TRUE(is_hamiltonian_decomposition(*c)) << k;
  }
  int found = 0;
  for (int m = 2; m <= 18; ++m)
    for (int n = 2; n <= 18; ++n) {
      const Torus t({m, n});
      if (auto c = gcd_decomposition(t)) {
        ++found;
        EXPECT_TRUE(is_hamiltonian_decomposition(*c)) << m << "x" << n;
      }
    }
  EXPECT_GT(found, 50);
  EXPECT_EQ(gcd_decomposition(Torus({5, 7})), nullptr);  // g = 1: never
}

// Knuth's odd-cube rule, structurally on every odd m up to 41 (68921
// ranks); even sides and other shapes are not its business.
TEST(Decomposition, OddCubeRuleIsHamiltonian) {
  for (int m = 3; m <= 41; m += 2) {
    const Torus t({m, m, m});
    auto c = odd_cube_decomposition(t);
    ASSERT_NE(c, nullptr) << m;
    std::string why;
    EXPECT_TRUE(is_hamiltonian_decomposition(*c, &why)) << m << ": " << why;
  }
  EXPECT_EQ(odd_cube_decomposition(Torus({4, 4, 4})), nullptr);
  EXPECT_EQ(odd_cube_decomposition(Torus({5, 5, 7})), nullptr);
  EXPECT_EQ(odd_cube_decomposition(Torus({5, 5})), nullptr);
}

TEST(Decomposition, SwitchSearchIsDeterministic) {
  const Torus t({5, 6, 7});
  auto a = switch_search_decomposition(t);
  auto b = switch_search_decomposition(t);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(a->construction(), b->construction());
  for (Rank r = 0; r < t.size(); ++r)
    for (int k = 0; k < 3; ++k) ASSERT_EQ(a->colour(r, k), b->colour(r, k));
}

// §3.4 and beyond: floor(P/2) rounds on every shape the decompositions
// cover, round by round on all ranks.
TEST(Hamiltonian, Every2DShapeWithSidesThreeToFourteen) {
  for (int n1 = 3; n1 <= 14; ++n1)
    for (int n2 = 3; n2 <= 14; ++n2) {
      const HamiltonianSchedule h(Torus({n1, n2}));
      expect_verified(h, n1 * n2 / 2);
    }
}

TEST(Hamiltonian, ThreeAndFourDimensionalShapes) {
  const std::vector<std::vector<int>> shapes = {{3, 3, 3}, {3, 3, 4}, {4, 4, 4}, {3, 4, 5}, {4, 5, 6}, {6, 6, 6},
                                                {5, 5, 5}, {7, 7, 7}, {9, 1, 9, 9}, {2, 4, 6}, {8, 8, 8}, {3, 3, 3, 3}, {2, 2, 2, 2},
                                                {4, 4, 4, 4}, {3, 4, 5, 6}, {2, 4, 2, 4}, {2, 3, 4, 5},
                                                {4, 5, 2, 3}, {2, 3, 2, 3}, {1}, {1, 1}};
  for (const auto& dims : shapes) {
    SCOPED_TRACE(name_of(dims));
    const HamiltonianSchedule h{Torus(dims)};
    EXPECT_EQ(h.colours(), static_cast<int>(h.torus().active_axes().size()));
    expect_verified(h, h.torus().size() / 2);
  }
}

// Theorem 2: n1*n2/2 steps on every even shape, two edge-disjoint
// Hamiltonian cycles; checked structurally up to 40x40 and round by round
// on every shape up to 1024 ranks.
TEST(Hamiltonian, EveryEvenShapeUpTo40) {
  for (int n1 = 2; n1 <= 40; n1 += 2) {
    for (int n2 = 2; n2 <= 40; n2 += 2) {
      const HamiltonianSchedule h(Torus({n1, n2}));
      const StructuralProof proof = h.prove();
      EXPECT_TRUE(proof.complete) << n1 << "x" << n2 << ": " << proof.detail;
      EXPECT_EQ(h.rounds(), n1 * n2 / 2);
      if (n1 * n2 <= 1024) expect_verified(h, n1 * n2 / 2);
    }
  }
}

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
    for (int colours = 1; colours <= d; ++colours)
      for (bool whole : {false, true}) {
        const DimRingsSchedule s(t, colours, whole);
        SCOPED_TRACE(name_of(dims) + " " + DimRingsSchedule::to_string(colours, whole));
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
  EXPECT_EQ(checked, 78);
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
  int colours = 0;
  bool whole = false;
  std::string why;
  EXPECT_TRUE(DimRingsSchedule::parse("2,whole", t, &colours, &whole, &why));
  EXPECT_EQ(colours, 2);
  EXPECT_TRUE(whole);
  for (const char* bad : {"3,whole", "0,halves", "2", "2,both", ",whole", "x,halves"})
    EXPECT_FALSE(DimRingsSchedule::parse(bad, t, &colours, &whole, &why)) << bad;
}

// node-dim-rings and node-hamiltonian: every rank of a node drives its
// slice over the node torus, then the node's ring exchanges the slices.
// Complete on every rank in the inner rounds + floor(k/2), with the link
// loads claimed, each rank sending P - 1 blocks (no block twice), and the
// structural proof agreeing with the step-through.
TEST(NodeSliced, EveryRankOfANodeDrivesASlice) {
  const std::vector<std::vector<int>> shapes = {{4, 2}, {5, 2}, {2, 3},    {3, 4},       {2, 2, 2},   {3, 3, 4},
                                                {4, 4, 3}, {2, 3, 5}, {4, 1, 2}, {2, 2, 2, 4}, {3, 2, 2, 2}, {8, 16}};
  for (const auto& dims : shapes) {
    SCOPED_TRACE(name_of(dims));
    const Torus t(dims);
    BuildContext c;
    c.node_ranks = dims.back();
    std::string why;
    auto s = try_build(*find_algorithm("node-dim-rings"), t, &why, c);
    ASSERT_NE(s, nullptr) << why;
    long long inner = 0;
    for (std::size_t a = 0; a + 1 < dims.size(); ++a) inner += dims[a] / 2;
    EXPECT_EQ(s->rounds(), inner + dims.back() / 2);
    expect_verified(*s, s->rounds());
    const SimulationReport rep = step_through(*s);
    const SimulationReport proof = prove_structure(*s);
    EXPECT_TRUE(proof.complete) << (proof.errors.empty() ? "" : proof.errors.front());
    EXPECT_EQ(proof.rounds, rep.rounds);
    EXPECT_DOUBLE_EQ(proof.max_link_blocks_per_round, rep.max_link_blocks_per_round);
    EXPECT_NEAR(proof.volume_per_rank_blocks, rep.volume_per_rank_blocks, 1e-9);
  }
  for (const auto& dims : std::vector<std::vector<int>>{{4, 4, 2}, {6, 8, 3}, {5, 5, 4}, {3, 3, 3, 2}}) {
    SCOPED_TRACE(name_of(dims));
    BuildContext c;
    c.node_ranks = dims.back();
    std::string why;
    auto s = try_build(*find_algorithm("node-hamiltonian"), Torus(dims), &why, c);
    ASSERT_NE(s, nullptr) << why;
    const auto& inner = static_cast<const NodeSlicedSchedule&>(*s).inner();
    EXPECT_EQ(s->rounds(), inner.rounds() + dims.back() / 2);
    expect_verified(*s, s->rounds());
  }
}

// No node axis known, or a last axis that is not the node's: they decline.
TEST(NodeSliced, DeclinesWithoutANodeAxis) {
  std::string why;
  EXPECT_EQ(try_build(*find_algorithm("node-dim-rings"), Torus({4, 4}), &why), nullptr);
  EXPECT_NE(why.find("no node axis"), std::string::npos) << why;
  BuildContext c;
  c.node_ranks = 2;
  EXPECT_EQ(try_build(*find_algorithm("node-dim-rings"), Torus({4, 4}), &why, c), nullptr);
  EXPECT_EQ(try_build(*find_algorithm("node-dim-rings"), Torus({1, 2}), &why, c), nullptr);
  EXPECT_NE(why.find("one node"), std::string::npos) << why;
  EXPECT_EQ(try_build(*find_algorithm("node-dim-rings"), Torus({8}), &why, c), nullptr);
}

// torus-bruck delivers every block in Σ ceil(log_k n_i) rounds, each rank
// sending P - 1 blocks (nothing twice), with the link loads it claims and
// calls that never leave their axis by more than half its side.
TEST(TorusBruck, CeilLogRoundsOnEveryRadix) {
  const std::vector<std::vector<int>> shapes = {{2},    {3},       {7},    {16},      {2, 2},    {3, 5},
                                                {4, 6}, {2, 3, 4}, {7, 7, 7}, {1, 9},   {4, 4, 4, 4, 2},
                                                {5, 1, 6}, {2, 2, 2, 2, 3, 2}, {13, 10}};
  for (const auto& dims : shapes)
    for (int k = 2; k <= 9; ++k) {
      SCOPED_TRACE(name_of(dims) + " radix " + std::to_string(k));
      const TorusBruckSchedule s{Torus(dims), k};
      long long rounds = 0;
      for (int n : dims)
        for (long long m = 1; m < n; m *= k) ++rounds;
      EXPECT_EQ(s.rounds(), rounds);
      expect_verified(s, rounds);
      const SimulationReport rep = step_through(s);
      EXPECT_EQ(rep.max_link_messages_per_round, s.claimed_max_link_messages_per_round());
      for (const auto& round : s.round_list())
        for (const auto& part : round.parts)
          EXPECT_LE(2 * static_cast<long long>(part.route.size()), s.torus().dim(round.axis));
    }
}

// The far-first order: the same rounds, every block delivered, the claimed
// link loads; with k ranks per node on the last axis too. On sides that are
// powers of the radix the long calls go first: each network round's
// longest call is no longer than the one before, and the messages are
// fewer pieces than kMaxPieces.
TEST(TorusBruck, FarFirstDeliversOnEveryRadix) {
  const std::vector<std::vector<int>> shapes = {{2},       {4},          {8},       {9},       {16},   {4, 4},
                                                {3, 9},    {4, 6},       {2, 3, 4}, {8, 8, 8}, {1, 9}, {4, 4, 4, 4, 2},
                                                {5, 1, 6}, {2, 2, 2, 2, 3, 2}, {13, 10}, {4, 4, 8, 4}};
  int built = 0;
  for (const auto& dims : shapes)
    for (int k = 2; k <= 9; ++k)
      for (int per_node : {1, dims.back()}) {
        SCOPED_TRACE(name_of(dims) + " radix " + std::to_string(k) + ", " + std::to_string(per_node) + " per node");
        std::unique_ptr<TorusBruckSchedule> s;
        try {
          s = std::make_unique<TorusBruckSchedule>(Torus(dims), TorusBruckSchedule::Params{k, true}, per_node);
        } catch (const std::invalid_argument& e) {
          ADD_FAILURE() << e.what();  // every message here is at most 256 pieces
          continue;
        }
        ++built;
        EXPECT_EQ(s->rounds(), TorusBruckSchedule::formula_rounds(s->torus(), k));
        expect_verified(*s, s->rounds());
        EXPECT_EQ(step_through(*s).max_link_messages_per_round, s->claimed_max_link_messages_per_round());
        EXPECT_LE(s->max_pieces(), TorusBruckSchedule::kMaxPieces);
        const int d = s->torus().ndims();
        const int node_axis = per_node > 1 && d > 1 ? d - 1 : -1;
        std::size_t last = SIZE_MAX;
        bool all_powers = true;
        for (int n : dims) {
          long long m = 1;
          while (m < n) m *= k;
          all_powers = all_powers && m == n;
        }
        for (const auto& round : s->round_list()) {
          std::size_t longest = 0;
          for (const auto& part : round.parts) longest = std::max(longest, part.route.size());
          if (!all_powers || round.axis == node_axis) continue;
          EXPECT_LE(longest, last) << "axis " << round.axis;
          last = longest;
        }
      }
  EXPECT_EQ(built, static_cast<int>(shapes.size()) * 8 * 2);
}

// Far-first on 4x4x4x4x2, radix 2 (a Blue Gene/Q-like shape): the rounds
// of 2 hops first, so the busiest links carry 526 blocks in all against
// near-first's 851 (1 + 4 x (1 + 2 x 2) x 2^i over the axes).
TEST(TorusBruck, FarFirstMovesTheLongCallsEarly) {
  const Torus t({4, 4, 4, 4, 2});
  const TorusBruckSchedule near(t, TorusBruckSchedule::Params{2, false}), far(t, TorusBruckSchedule::Params{2, true});
  // Σ over rounds of the busiest link's blocks: a call of h hops puts its
  // blocks on h links one way (ClosedForm.TorusBruck* check this against
  // stepping through).
  auto busiest = [](const TorusBruckSchedule& s) {
    double sum = 0;
    for (const auto& round : s.round_list()) {
      double way[2] = {0, 0};
      for (const auto& p : round.parts)
        way[port_plus(p.route.front()) ? 1 : 0] += round.blocks(p) * static_cast<double>(p.route.size());
      sum += s.torus().dim(round.axis) == 2 ? way[0] + way[1] : std::max(way[0], way[1]);
    }
    return sum;
  };
  EXPECT_DOUBLE_EQ(busiest(near), 851);
  EXPECT_DOUBLE_EQ(busiest(far), 526);
  EXPECT_EQ(far.round_list().front().parts.front().route.size(), 2u);
  EXPECT_EQ(far.max_pieces(), 16);  // {0, 2} on four axes
  // With 4 ranks per node the node axis comes last, in Bruck's order: a
  // message is one or two pieces (an interval that wraps) per node.
  const TorusBruckSchedule nodes(Torus({4, 4, 8, 4}), TorusBruckSchedule::Params{2, true}, 4);
  EXPECT_EQ(nodes.round_list().back().axis, 3);
  EXPECT_EQ(nodes.max_pieces(), 256);
}

// A far-first message of more than kMaxPieces pieces is not built: 16^3
// with radix 2 would hold 8 positions on each axis after the far rounds.
TEST(TorusBruck, FarFirstDeclinesTooManyPieces) {
  EXPECT_THROW(TorusBruckSchedule(Torus({16, 16, 16}), TorusBruckSchedule::Params{2, true}), std::invalid_argument);
  const auto p = TorusBruckSchedule::best(Torus({16, 16, 16}), 1.0, 0.5);
  EXPECT_FALSE(p.far_first && p.radix == 2);
  TorusBruckSchedule::Params parsed;
  std::string why;
  EXPECT_TRUE(TorusBruckSchedule::parse("3,far", Torus({9}), &parsed, &why));
  EXPECT_EQ(parsed.radix, 3);
  EXPECT_TRUE(parsed.far_first);
  EXPECT_FALSE(TorusBruckSchedule::parse("3,sideways", Torus({9}), &parsed, &why));
  EXPECT_NE(why.find("sideways"), std::string::npos);
}

TEST(Registry, NamesAndApplicability) {
  ASSERT_NE(find_algorithm("hamiltonian"), nullptr);
  ASSERT_NE(find_algorithm("dim-rings"), nullptr);
  EXPECT_EQ(find_algorithm("vendor"), nullptr);  // not a schedule
  EXPECT_EQ(find_algorithm("nope"), nullptr);
  for (const auto& info : algorithms()) {
    const Torus t({4, 6});
    BuildContext c;
    if (info.node_aware) c.node_ranks = 6;  // 4 nodes of 6
    if (info.not_applicable(t).empty()) EXPECT_EQ(std::string(info.build(t, c)->name()), info.name);
  }
}

// Meyer & Sibeyn §3.2, Theorem 3: n1*n2/2 steps with one odd side, round by
// round on all ranks; the paper's 6x7 (Figure 2), both orientations, C = 3,
// and a side of 1 beside the two.
TEST(HamiltonianPartial, Theorem3OnShapesWithOneOddSide) {
  const std::vector<std::vector<int>> shapes = {
      {6, 7},  {7, 6},  {4, 3},  {3, 4},  {4, 5},   {5, 4},   {8, 9},   {9, 8},    {10, 5},   {4, 11},
      {6, 3},  {12, 7}, {14, 9}, {4, 21}, {20, 11}, {16, 15}, {8, 3},   {6, 13},   {13, 6},   {24, 25},
      {6, 1, 7}, {1, 4, 5}, {7, 1, 1, 10}};
  for (const auto& dims : shapes) {
    SCOPED_TRACE(name_of(dims));
    const HamiltonianPartialSchedule s{Torus(dims)};
    const Torus& t = s.torus();
    const long long P = t.size(), R = t.dim(s.row_axis()), C = t.dim(s.column_axis());
    EXPECT_EQ(R % 2, 0);
    EXPECT_EQ(C % 2, 1);
    EXPECT_EQ(s.rounds(), P / 2);  // Theorem 3
    EXPECT_FALSE(s.both_odd());
    for (int c = 0; c < 2; ++c) {
      EXPECT_EQ(s.cycle_ranks(c), P - R / 2);
      EXPECT_EQ(s.cycle_positions(c), P);
    }
    // §3.2's fixed switch step: feeder A only backwards, B turns after 2C.
    for (Rank x = 0; x < P; ++x) {
      if (s.off_cycle(x) < 0) continue;
      const auto &f0 = s.feed(x, 0), &f1 = s.feed(x, 1);
      EXPECT_EQ(std::min(f0.k, f1.k), 2 * C);
      EXPECT_EQ(std::max(f0.k, f1.k), P / 2);
      EXPECT_EQ(f0.delay + f1.delay, 0);
    }
    const SimulationReport rep = step_through(s);
    EXPECT_TRUE(rep.complete) << (rep.errors.empty() ? "" : rep.errors.front());
    EXPECT_EQ(rep.rounds, P / 2);
    EXPECT_EQ(rep.max_link_messages_per_round, 1);
    // Not P - 1 on every rank: a rank of column C-2 sends both of its streams
    // (P/2 - 1/2 blocks of parts, halves in the last round) and feeds its top
    // and bottom neighbours P/2 parts each, P - 1/2 blocks; others send less.
    EXPECT_DOUBLE_EQ(rep.volume_per_rank_blocks, static_cast<double>(P) - 0.5);
    const SimulationReport proof = prove_structure(s);
    EXPECT_TRUE(proof.complete) << (proof.errors.empty() ? "" : proof.errors.front());
    EXPECT_EQ(proof.rounds, rep.rounds);
    EXPECT_DOUBLE_EQ(proof.volume_per_rank_blocks, rep.volume_per_rank_blocks);
    EXPECT_DOUBLE_EQ(proof.max_link_blocks_per_round, rep.max_link_blocks_per_round);
  }
}

// The structure §3.2 describes, on its Figure 2 torus: column n-2 passes
// L<->R only, so its ranks alternate between the cycles and its vertical
// links are left to feeding; every other rank is on both cycles; the cycles
// share no link; every part of every block is on exactly one cycle.
TEST(HamiltonianPartial, ColumnRulesOfSection32On6x7) {
  const HamiltonianPartialSchedule s{Torus({6, 7})};
  const Torus& t = s.torus();
  const Port T = make_port(0, false), B = make_port(0, true), L = make_port(1, false), R = make_port(1, true);
  std::vector<int> used(static_cast<std::size_t>(t.size() * t.ports()), 0);
  std::vector<int> carried(static_cast<std::size_t>(t.size() * 2), 0);
  for (int c = 0; c < 2; ++c)
    for (long long p = 0; p < t.size(); ++p) {
      const Rank r = s.at(c, p);
      ++carried[static_cast<std::size_t>(r * 2 + s.part(c, p))];
      if (s.at(c, p + 1) == r) continue;  // r's second position
      const Port out = s.cycle_port(r, c, +1);
      EXPECT_EQ(t.neighbor(r, out), s.at(c, p + 1));
      ++used[static_cast<std::size_t>(r * t.ports() + out)];
      ++used[static_cast<std::size_t>(t.neighbor(r, out) * t.ports() + opposite(out))];
    }
  for (int u : used) EXPECT_LE(u, 1);
  for (int n : carried) EXPECT_EQ(n, 1);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 7; ++j) {
      const Rank r = t.rank({i, j});
      if (j != 5) {
        EXPECT_EQ(s.off_cycle(r), -1) << i << "," << j;
        continue;
      }
      EXPECT_EQ(s.off_cycle(r), i % 2 == 0 ? s.off_cycle(t.rank({0, 5})) : 1 - s.off_cycle(t.rank({0, 5})));
      const int on = 1 - s.off_cycle(r);
      EXPECT_EQ(s.positions(r, on), 2);
      const Port fwd = s.cycle_port(r, on, +1), bwd = s.cycle_port(r, on, -1);
      EXPECT_TRUE((fwd == L && bwd == R) || (fwd == R && bwd == L));
      EXPECT_EQ(used[static_cast<std::size_t>(r * t.ports() + T)], 0);
      EXPECT_EQ(used[static_cast<std::size_t>(r * t.ports() + B)], 0);
    }
}

// Meyer & Sibeyn §3.3, Theorem 4: ceil(n1*n2/2) steps with both sides odd,
// on our rule set for the last two rows (the paper's Figure 4 is lost), round
// by round on all ranks: the paper's 7x7, both orientations, sides 3 to 25,
// and sides of 1 beside the two.
TEST(HamiltonianPartial, Theorem4OnShapesWithBothSidesOdd) {
  const std::vector<std::vector<int>> shapes = {
      {7, 7},  {3, 3},  {5, 5},   {3, 5},   {5, 3},   {5, 7},   {7, 5},  {9, 7},  {7, 9},   {9, 9},
      {3, 25}, {25, 3}, {11, 13}, {13, 11}, {15, 15}, {21, 9},  {9, 21}, {17, 5}, {5, 17},  {25, 25},
      {7, 1, 7}, {1, 5, 9}, {3, 1, 1, 11}};
  for (const auto& dims : shapes) {
    SCOPED_TRACE(name_of(dims));
    const HamiltonianPartialSchedule s{Torus(dims)};
    const Torus& t = s.torus();
    const long long P = t.size(), R = t.dim(s.row_axis()), C = t.dim(s.column_axis());
    EXPECT_TRUE(s.both_odd());
    EXPECT_EQ(s.rounds(), (P + 1) / 2);  // Theorem 4
    // Two simple cycles of P - (R+3)/2 and P - (R+1)/2 ranks, carrying P - 1
    // and P + 1 packets; the shorter is the one the relaying pair is off.
    const int shorter = s.cycle_positions(0) < s.cycle_positions(1) ? 0 : 1;
    EXPECT_EQ(s.cycle_ranks(shorter), P - (R + 3) / 2);
    EXPECT_EQ(s.cycle_ranks(1 - shorter), P - (R + 1) / 2);
    EXPECT_EQ(s.cycle_positions(shorter), P - 1);
    EXPECT_EQ(s.cycle_positions(1 - shorter), P + 1);
    // Ranks on one cycle: column C-2 and the last two of column C-1; the two
    // relaying ranks (one feeder at distance two) are (R-1, C-2), (R-1, C-1).
    for (Rank x = 0; x < P; ++x) {
      const int i = t.coord(x, s.row_axis()), j = t.coord(x, s.column_axis());
      const bool one = j == C - 2 || (j == C - 1 && i >= R - 2);
      EXPECT_EQ(s.off_cycle(x) >= 0, one) << i << "," << j;
      if (!one) continue;
      const bool relays = i == R - 1 && j >= C - 2;
      EXPECT_EQ(s.feed(x, 0).delay + s.feed(x, 1).delay, relays ? 1 : 0) << i << "," << j;
      if (relays) EXPECT_EQ(s.off_cycle(x), shorter);
    }
    expect_stepped_and_proved(s, (P + 1) / 2);
  }
}

TEST(HamiltonianPartial, Declines) {
  EXPECT_FALSE(HamiltonianPartialSchedule::not_applicable(Torus({6, 8})).empty());    // §3.1's case
  EXPECT_FALSE(HamiltonianPartialSchedule::not_applicable(Torus({2, 3})).empty());    // top = bottom
  EXPECT_FALSE(HamiltonianPartialSchedule::not_applicable(Torus({4, 4, 5})).empty()); // 3D
  EXPECT_FALSE(HamiltonianPartialSchedule::not_applicable(Torus({9})).empty());       // a ring
  EXPECT_TRUE(HamiltonianPartialSchedule::not_applicable(Torus({4, 3})).empty());
  EXPECT_TRUE(HamiltonianPartialSchedule::not_applicable(Torus({5, 7})).empty());     // §3.3
  std::string why;
  EXPECT_EQ(try_build(*find_algorithm("hamiltonian-partial"), Torus({2, 5}), &why), nullptr);
  EXPECT_NE(why.find("even side must be >= 4"), std::string::npos);
  EXPECT_THROW(HamiltonianPartialSchedule(Torus({2, 5})), std::invalid_argument);
}

// Meyer & Sibeyn §4: d partial cycles of m = P/d + P/n_d ranks. The feeders
// send blocks they already hold, so the off-cycle ranks finish with the
// cycles: ceil(m/2) rounds, within the theorems' counts (Theorem 5:
// n1*n2/4 + n1/2 + 1; Theorem 6: n1*n2*n3/6 + n1*n2/2 + 1; Theorem 7:
// (1 + d/n_d) * P/(2d) + 2, all = m/2 + 1 or + 2).
TEST(PartialCycles, ShapesOfSectionsFourOneToFourThree) {
  const std::vector<std::vector<int>> shapes = {
      {2, 4},  {3, 4},  {4, 4},  {5, 4},  {6, 4},  {4, 6},  {6, 8},    {8, 6},    {7, 8},    {5, 8},
      {9, 4},  {4, 10}, {10, 4}, {3, 12}, {12, 3}, {8, 8},  {11, 6},   {6, 11},   {16, 16},  {13, 10},
      {20, 6}, {3, 3, 3}, {3, 3, 4}, {3, 6, 3}, {6, 6, 3}, {6, 6, 4}, {3, 9, 5}, {6, 6, 6}, {4, 4, 4, 4}};
  for (const auto& dims : shapes) {
    SCOPED_TRACE(name_of(dims));
    const PartialCyclesSchedule s{Torus(dims)};
    const long long P = s.torus().size();
    const int d = static_cast<int>(dims.size());
    const long long nd = dims[static_cast<std::size_t>(s.paper_axis(d - 1))];
    const long long m = P / d + P / nd;
    EXPECT_EQ(s.cycle_length(), m);
    EXPECT_EQ(s.rounds(), (m + 1) / 2);
    EXPECT_LE(2 * s.rounds(), m + 2);  // the theorems' m/2 + 1 (or + 2), rounded
    expect_stepped_and_proved(s, s.rounds());
  }
}

// Both sides odd: the helices (ours; §4.1 only names a "special column").
// The defect rows k = 2R mod C (taken odd, <= R) on the orientation with
// fewer of them, m = (P + k)/2 ranks per cycle, ceil(m/2) rounds, which is
// within §4.1's n1*n2/4 + n1/2 + 1 for either side as n1.
TEST(PartialCycles, HelicesOnShapesWithBothSidesOdd) {
  const std::vector<std::vector<int>> shapes = {
      {3, 3},  {3, 5},  {5, 3},  {5, 5},  {5, 7},  {7, 5},   {7, 7},   {3, 7},   {7, 3},   {9, 3},   {3, 9},
      {5, 9},  {9, 5},  {9, 9},  {7, 11}, {11, 7}, {11, 13}, {13, 11}, {3, 15},  {15, 3},  {9, 15},  {21, 5},
      {17, 17}, {25, 7}, {7, 25}, {23, 31}};
  for (const auto& dims : shapes) {
    SCOPED_TRACE(name_of(dims));
    const PartialCyclesSchedule s{Torus(dims)};
    const long long P = s.torus().size();
    auto defects = [](long long R, long long C) {
      long long k = (2 * R) % C;
      if (k % 2 == 0) k += C;
      return k <= R ? k : 1LL << 40;
    };
    const long long k = std::min(defects(dims[0], dims[1]), defects(dims[1], dims[0]));
    ASSERT_LT(k, 1LL << 40);
    EXPECT_EQ(s.helix_defects(), k);
    EXPECT_EQ(s.cycles(), 2);
    EXPECT_EQ(s.cycle_length(), (P + k) / 2);
    EXPECT_EQ(s.rounds(), (s.cycle_length() + 1) / 2);
    for (const int n1 : {dims[0], dims[1]}) EXPECT_LE(s.rounds(), P / 4.0 + n1 / 2.0 + 1);
    // Exactly k ranks lie on both cycles, the others on one.
    long long both = 0;
    for (Rank r = 0; r < P; ++r) both += s.position(r, 0) >= 0 && s.position(r, 1) >= 0;
    EXPECT_EQ(both, k);
    expect_stepped_and_proved(s, s.rounds());
  }
}

// The time-independent variant (§4.1's proof, Theorem 7's second claim):
// fixed rules, no switching. Its feed length is recomputed here by brute
// force over every fed rank and injected position (first arrival
// 1 + min(j, (l + 1 - j) mod m) for position a + j), and the rounds must stay
// within the paper's bounds: 2D, n1*n2/4 + n1/2 + 1 (Theorem 5) plus the
// n2 + 1 extra steps of §4.1's proof; d-dim, Theorem 7's
// (1 + d/n_d)(1 + 3d/n_{d-1}) P/(2d).
TEST(PartialCycles, TimeIndependentVariant) {
  const std::vector<std::vector<int>> shapes = {
      {2, 4},  {3, 4},  {4, 4},  {6, 4},  {4, 6},   {6, 8},   {8, 6},   {7, 8},    {5, 8},    {9, 4},
      {4, 10}, {12, 3}, {8, 8},  {11, 6}, {16, 16}, {13, 10}, {20, 6},  {3, 3, 3}, {3, 3, 4}, {3, 6, 3},
      {6, 6, 3}, {6, 6, 4}, {3, 9, 5}, {6, 6, 6}, {4, 4, 4, 4}, {3, 3}, {5, 7}, {7, 7}, {9, 3}, {11, 13}};
  for (const auto& dims : shapes) {
    SCOPED_TRACE(name_of(dims));
    const PartialCyclesSchedule s(Torus(dims), true);
    const PartialCyclesSchedule sw{Torus(dims)};
    const Torus& t = s.torus();
    const long long m = s.cycle_length();
    EXPECT_STREQ(s.name(), "partial-cycles-ti");
    long long feed = 0;
    for (Rank r = 0; r < t.size(); ++r)
      for (int c = 0; c < s.cycles(); ++c) {
        if (s.position(r, c) >= 0) continue;
        const auto f = s.feeders(r, c);
        for (long long j = 0; j < m; ++j)
          if (s.injects(s.at(c, f.a + j), c)) feed = std::max(feed, 1 + std::min(j, ((f.l + 1 - j) % m + m) % m));
      }
    EXPECT_EQ(s.feed_rounds(), feed);
    EXPECT_EQ(s.cycle_rounds(), std::max(m / 2, feed - 1));
    EXPECT_EQ(s.rounds(), std::max(s.cycle_rounds(), s.feed_rounds()));
    EXPECT_GE(s.rounds(), sw.rounds());
    const int d = t.ndims();
    std::vector<double> n;
    for (int k = 0; k < d; ++k) n.push_back(t.dim(s.paper_axis(k)));
    const double P = static_cast<double>(t.size());
    EXPECT_LE(s.rounds(), (1 + d / n[d - 1]) * (1 + 3 * d / n[d - 2]) * P / (2 * d));
    if (d == 2) EXPECT_LE(s.rounds(), n[0] * n[1] / 4 + n[0] / 2 + 1 + n[1] + 1);
    const SimulationReport rep = expect_stepped_and_proved(s, s.rounds());
    if (feed > m / 2 + 1) EXPECT_GT(rep.relayed_blocks, 0.0);
  }
}

TEST(PartialCycles, Theorem6Count) {
  // 3x3x4, the paper's Corollary 1 torus: Theorem 6 gives 36/6 + 9/2 + 1 = 11.5.
  const PartialCyclesSchedule s(Torus({3, 3, 4}));
  EXPECT_EQ(s.cycle_length(), 21);
  EXPECT_EQ(s.rounds(), 11);
}

TEST(PartialCycles, CyclesAreLinkDisjointAndEveryRankInjectsOnce) {
  for (const auto& dims : std::vector<std::vector<int>>{{6, 8}, {3, 3, 4}}) {
    const PartialCyclesSchedule s{Torus(dims)};
    const Torus& t = s.torus();
    std::vector<int> used(static_cast<std::size_t>(t.size() * t.ports()), 0);
    for (int c = 0; c < s.cycles(); ++c)
      for (long long p = 0; p < s.cycle_length(); ++p) {
        const Rank r = s.at(c, p);
        EXPECT_EQ(s.position(r, c), p);
        const Port out = s.cycle_port(r, c, +1);
        EXPECT_EQ(t.neighbor(r, out), s.at(c, p + 1));
        ++used[static_cast<std::size_t>(r * t.ports() + out)];
      }
    for (int u : used) EXPECT_LE(u, 1);
    for (Rank r = 0; r < t.size(); ++r) {
      int n = 0;
      for (int c = 0; c < s.cycles(); ++c) n += s.injects(r, c) ? 1 : 0;
      EXPECT_EQ(n, 1);
    }
  }
}

TEST(PartialCycles, Declines) {
  EXPECT_TRUE(PartialCyclesSchedule::not_applicable(Torus({5, 7})).empty());    // the helices
  EXPECT_FALSE(PartialCyclesSchedule::not_applicable(Torus({4, 4, 5})).empty()); // no side = 0 mod 3
  EXPECT_FALSE(PartialCyclesSchedule::not_applicable(Torus({12})).empty());
  EXPECT_TRUE(PartialCyclesSchedule::not_applicable(Torus({3, 4})).empty());
  std::string why;
  EXPECT_EQ(try_build(*find_algorithm("partial-cycles"), Torus({4, 5, 2, 4}), &why), nullptr);
  EXPECT_FALSE(why.empty());
}
