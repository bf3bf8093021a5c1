// SPDX-License-Identifier: BSD-3-Clause
// `hamiltonian` (Meyer & Sibeyn §3) and the Hamiltonian decompositions behind
// it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "schedule/decomposition.hpp"
#include "schedule/hamiltonian.hpp"
#include "simulate/simulate.hpp"
#include "schedule/registry.hpp"
#include "schedule_checks.hpp"

using namespace torusgather;

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
  EXPECT_EQ(HamiltonianSchedule(Torus({6, 7})).construction().rfind("closed form by row-gap switches", 0), 0u);
  EXPECT_EQ(HamiltonianSchedule(Torus({4, 4, 4})).construction().rfind("layered", 0), 0u);
  EXPECT_EQ(HamiltonianSchedule(Torus({4, 4, 4, 4, 4})).construction().rfind("layered", 0), 0u);
  EXPECT_EQ(HamiltonianSchedule(Torus({4, 4, 4, 4, 2})).construction().rfind("layered", 0), 0u);
  EXPECT_EQ(HamiltonianSchedule(Torus({3, 4, 5})).construction().rfind("layered", 0), 0u);
  EXPECT_EQ(HamiltonianSchedule(Torus({4, 4, 6})).construction().rfind("layered", 0), 0u);
  EXPECT_EQ(HamiltonianSchedule(Torus({2, 2, 2, 3})).construction().rfind("4-cycle switch search", 0), 0u);
  EXPECT_EQ(HamiltonianSchedule(Torus({8, 8, 8, 8})).construction().rfind("doubling", 0), 0u);
  EXPECT_EQ(HamiltonianSchedule(Torus({5, 5, 5})).construction().rfind("closed form for odd m x m x m", 0), 0u);
  EXPECT_EQ(HamiltonianSchedule(Torus({1, 7, 7, 7})).construction().rfind("closed form for odd m x m x m", 0), 0u);
  EXPECT_EQ(HamiltonianSchedule(Torus({5, 5, 7})).construction().rfind("layered", 0), 0u);
  // C2 x C_odd (doubled links on the side of 2): the search finds nothing and
  // the algorithm declines; the API then runs dim-rings.
  EXPECT_THROW(HamiltonianSchedule(Torus({2, 3})), std::invalid_argument);
  std::string why;
  EXPECT_EQ(try_build(*find_algorithm("hamiltonian"), Torus({2, 3}), &why), nullptr);
  EXPECT_NE(why.find("no decomposition"), std::string::npos);
}

// The gcd rule's O(log) criterion (the order of one period's move) agrees
// with walking the cycles on every rank, shift by shift.
TEST(Decomposition, GcdRuleCriterionEqualsWalkingTheCycles) {
  struct Rule final : LinkColouring {
    Rule(const Torus& t, int g, int s) : LinkColouring(t), g(g), s(s) {}
    int colour(Rank r, int k) const override {
      const bool inside = (torus().coord(r, 0) + torus().coord(r, 1)) % g < s;
      return k == 0 ? (inside ? 1 : 0) : (inside ? 0 : 1);
    }
    std::string construction() const override { return "gcd rule"; }
    int g, s;
  };
  int hamiltonian = 0, not_hamiltonian = 0;
  for (int m = 3; m <= 30; ++m)
    for (int n = 3; n <= 30; ++n) {
      const Torus t({m, n});
      const int g = std::gcd(m, n);
      for (int s = 1; s < g; ++s) {
        const bool walked = is_hamiltonian_decomposition(Rule(t, g, s));
        ASSERT_EQ(gcd_rule_is_hamiltonian(m, n, s), walked) << m << "x" << n << " shift " << s;
        ++(walked ? hamiltonian : not_hamiltonian);
      }
    }
  EXPECT_GT(hamiltonian, 100);
  EXPECT_GT(not_hamiltonian, 100);
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

// The row-gap switches: every 2D shape with unequal sides from 3 to 40, in
// both orders, gcd 1 or not, and three large coprime ones; with them the
// 2D rules leave no shape with sides >= 3 to the search.
TEST(Decomposition, GapSwitchRuleCoversEvery2DShape) {
  for (int m = 3; m <= 40; ++m)
    for (int n = 3; n <= 40; ++n) {
      SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
      const Torus t({m, n});
      auto by_rule = decomposition_by_rule(t);
      ASSERT_NE(by_rule, nullptr);
      ASSERT_TRUE(decomposes_by_rule(t));
      EXPECT_TRUE(is_hamiltonian_decomposition(*by_rule));
      if (m == n) {
        EXPECT_EQ(gap_switch_decomposition(t), nullptr);  // the square rule's business
        continue;
      }
      auto c = gap_switch_decomposition(t);
      ASSERT_NE(c, nullptr);
      std::string why;
      EXPECT_TRUE(is_hamiltonian_decomposition(*c, &why)) << why;
    }
  for (const std::vector<int>& dims : {std::vector<int>{99, 100}, {1001, 3}, {64, 127}}) {
    const Torus t(dims);  // the colouring refers to it
    auto c = gap_switch_decomposition(t);
    ASSERT_NE(c, nullptr) << dims[0] << "x" << dims[1];
    EXPECT_TRUE(is_hamiltonian_decomposition(*c));
  }
  EXPECT_EQ(gap_switch_decomposition(Torus({2, 5})), nullptr);
  EXPECT_EQ(gap_switch_decomposition(Torus({3, 4, 5})), nullptr);
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

// G x C_c: the layered lift, from 3D to 6D, sides of 2 included (Blue
// Gene/Q's 4x4x4x4x2), without the switch search on the whole torus;
// structurally on every rank (the schedules on these shapes step through
// below).
TEST(Decomposition, LayeredLiftsThreeToSixDimensions) {
  const std::vector<std::vector<int>> shapes = {
      {4, 4, 4},    {6, 6, 6},       {8, 8, 16},         {16, 16, 16},      {4, 5, 6},
      {5, 5, 7},    {3, 3, 3, 3},    {4, 4, 4, 4},       {5, 5, 5, 5},      {4, 4, 2},
      {3, 3, 3, 3, 3}, {4, 4, 4, 4, 4}, {4, 4, 4, 4, 2},  {4, 4, 2, 2, 2},   {3, 3, 3, 3, 3, 3},
      {4, 4, 4, 4, 4, 4}, {4, 4, 4, 2, 2, 2}, {3, 4, 5},         {3, 5, 7},         {3, 3, 4},
      {2, 3, 4},          {3, 4, 5, 7},       {3, 4, 4, 4, 5},    {8, 8, 6},         {4, 6, 8}};
  for (const auto& dims : shapes) {
    SCOPED_TRACE(name_of(dims));
    const Torus t(dims);
    auto c = layered_decomposition(t);
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->construction().rfind("layered", 0), 0u) << c->construction();
    std::string why;
    EXPECT_TRUE(is_hamiltonian_decomposition(*c, &why)) << why;
  }
  EXPECT_EQ(layered_decomposition(Torus({2, 2, 2})), nullptr);  // C2 x C2 has no two Hamiltonian cycles
  EXPECT_EQ(layered_decomposition(Torus({2, 2, 2, 3})), nullptr);  // no lift's switches join the layers
  EXPECT_EQ(layered_decomposition(Torus({6, 8})), nullptr);     // 2D: the 2D rules' business
}

namespace {

/// The layered lift gives dims its cycles (its construction naming
/// `marker` where given), and auto may take them.
void expect_lifted(const std::vector<int>& dims, const char* marker) {
  SCOPED_TRACE(name_of(dims));
  const Torus t(dims);
  auto c = layered_decomposition(t);
  ASSERT_NE(c, nullptr);
  if (marker) EXPECT_NE(c->construction().find(marker), std::string::npos) << c->construction();
  std::string why;
  EXPECT_TRUE(is_hamiltonian_decomposition(*c, &why)) << why;
  EXPECT_TRUE(decomposes_without_search(t));
}

}  // namespace

// Where no nested switches fit, switches that leave K_i split in two until a
// later one joins it again: the shapes below had no lift without them
// (Tofu-D's 4x4x4x2x3x2 and its 4-per-node node torus among them) and went
// to the switch search, which finds nothing on the Tofu-D shapes.
TEST(Decomposition, LayeredLiftWithSwitchesThatSplitAndJoin) {
  for (const auto& dims : std::vector<std::vector<int>>{{3, 4, 4, 4, 4},
                                                        {4, 4, 4, 2, 3, 2},
                                                        {2, 2, 4, 2, 3, 2},
                                                        {4, 4, 4, 2, 3},
                                                        {2, 2, 3, 4, 4},
                                                        {2, 3, 4, 4, 4, 4},
                                                        {2, 2, 256}})
    expect_lifted(dims, nullptr);
}

// Every side even: the lift's switches keep the parity of H_j's and K_i's
// cycle counts together, so repair switches join what they leave split.
// These shapes went to the switch search before; each of them (and every
// all-even 3D shape with sides 4 to 64 up to 4096 ranks) is now a lift.
TEST(Decomposition, LayeredLiftRepairedWhereEverySideIsEven) {
  for (const auto& dims : std::vector<std::vector<int>>{{4, 4, 6},
                                                        {4, 4, 12},
                                                        {4, 6, 10},
                                                        {4, 10, 12},
                                                        {6, 6, 10},
                                                        {6, 8, 10},
                                                        {6, 10, 10},
                                                        {10, 10, 12},
                                                        {6, 4, 4},
                                                        {10, 12, 14},
                                                        {4, 4, 6, 6},
                                                        {2, 6, 8},
                                                        {12, 14, 32}})
    expect_lifted(dims, "more to join cycles");
}

namespace {

/// A colouring from one bit per link, for trying them all.
class BitsColouring final : public LinkColouring {
 public:
  BitsColouring(const Torus& t, std::uint32_t bits) : LinkColouring(t), bits_(bits) {}
  int colour(Rank r, int k) const override { return static_cast<int>(bits_ >> (r * count() + k) & 1u); }
  std::string construction() const override { return "bits"; }

 private:
  std::uint32_t bits_;
};

}  // namespace

// 2 x n has two cycles exactly where n is even: every colouring of 2 x 3
// and 2 x 5 fails, the rules give 2 x 4 and 2 x 6 theirs, and
// has_no_decomposition says so without searching.
TEST(Decomposition, TwoByOddHasNone) {
  for (int n = 3; n <= 6; ++n) {
    SCOPED_TRACE(n);
    const Torus t({2, n});
    EXPECT_EQ(has_no_decomposition(t), n % 2 == 1);
    EXPECT_EQ(has_no_decomposition(Torus({n, 2})), n % 2 == 1);
    if (n % 2 == 0) {
      auto c = hamiltonian_decomposition(t);
      ASSERT_NE(c, nullptr);
      EXPECT_TRUE(is_hamiltonian_decomposition(*c));
      continue;
    }
    EXPECT_EQ(switch_search_decomposition(t), nullptr);
    int found = 0;
    for (std::uint32_t bits = 0; bits < (1u << (2 * t.size())); ++bits) {
      // Two links of each colour at every rank first (its + links and its - neighbours').
      bool balanced = true;
      for (Rank r = 0; r < t.size() && balanced; ++r) {
        int ones = 0;
        for (int k = 0; k < 2; ++k)
          ones += static_cast<int>((bits >> (r * 2 + k) & 1u) + (bits >> (t.shift(r, k, -1) * 2 + k) & 1u));
        balanced = ones == 2;
      }
      if (balanced) found += is_hamiltonian_decomposition(BitsColouring(t, bits));
    }
    EXPECT_EQ(found, 0);
  }
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
                                                {4, 5, 2, 3}, {2, 3, 2, 3}, {3, 3, 3, 3, 3}, {4, 4, 2, 2, 2},
                                                {1}, {1, 1}};
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
