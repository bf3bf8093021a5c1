// SPDX-License-Identifier: BSD-3-Clause
// The closed-form cost profiles equal the stepped ones round by round: the
// selector's numbers come from the construction, and stepping through
// every rank's rounds (profile(), vendor_profile_stepped()) proves them.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/closed_form.hpp"
#include "model/cost.hpp"
#include "schedule/bridgehead.hpp"
#include "schedule/circulant.hpp"
#include "schedule/cubgos.hpp"
#include "schedule/dim_rings.hpp"
#include "schedule/partial_cycles.hpp"
#include "schedule/registry.hpp"
#include "schedule/three_phase.hpp"
#include "schedule/torus_bruck.hpp"

using namespace torusgather;

namespace {

/// 2D to 6D, even and odd sides, sides of 1 and 2, up to 4096 ranks.
const std::vector<std::vector<int>> kShapes = {
    {2},          {7},          {8},          {12},         {4, 4},       {5, 7},       {6, 9},
    {2, 5},       {1, 6},       {16, 16},     {3, 3, 3},    {4, 4, 4},    {2, 3, 4},    {5, 1, 6},
    {7, 7, 7},    {8, 8, 8},    {6, 5, 4},    {2, 2, 2, 2}, {3, 4, 3, 4}, {4, 4, 4, 4}, {2, 3, 2, 3, 2},
    {4, 4, 4, 4, 4}, {3, 3, 3, 3, 3}, {2, 2, 2, 2, 2, 2}, {3, 2, 3, 2, 3, 2}, {4, 4, 4, 4, 4, 4}, {16, 16, 16}};

/// Rounds expanded, so that the comparison is round by round whatever the
/// run-length encoding.
std::vector<RoundCost> rounds_of(const CostProfile& p) {
  std::vector<RoundCost> out;
  for (const auto& [times, c] : p.runs)
    for (long long k = 0; k < times; ++k) out.push_back(c);
  return out;
}

void expect_same(const CostProfile& closed, const CostProfile& stepped, const std::string& what) {
  const auto a = rounds_of(closed), b = rounds_of(stepped);
  ASSERT_EQ(a.size(), b.size()) << what << ": rounds";
  for (std::size_t r = 0; r < a.size(); ++r) {
    // (streams' link terms are a fluid time spread by sums over the rounds)
    EXPECT_NEAR(a[r].link_blocks, b[r].link_blocks, 1e-12 * std::max(1.0, b[r].link_blocks)) << what << " round " << r + 1;
    EXPECT_DOUBLE_EQ(a[r].node_blocks, b[r].node_blocks) << what << " round " << r + 1;
    EXPECT_DOUBLE_EQ(a[r].recv_blocks, b[r].recv_blocks) << what << " round " << r + 1;
    EXPECT_EQ(a[r].sends, b[r].sends) << what << " round " << r + 1;
    EXPECT_EQ(a[r].recvs, b[r].recvs) << what << " round " << r + 1;
    EXPECT_EQ(a[r].hops, b[r].hops) << what << " round " << r + 1;
    if (::testing::Test::HasFailure()) return;  // one round is enough to read
  }
}

/// Compares on `t`; false if the schedule declines the shape (hamiltonian's
/// search finds no decomposition of some 5D and 6D shapes with sides of 2).
bool check_schedule(const std::string& name, const Torus& t) {
  CostProfile closed;
  EXPECT_TRUE(closed_form_profile(find_algorithm(name)->id, t, &closed)) << name;
  std::string why;
  const auto s = try_build(*find_algorithm(name), t, &why);
  if (!s) return false;
  expect_same(closed, profile(*s, t.size()), name + " on " + t.to_string());
  return true;
}

}  // namespace

// By name: the paper's variant (d colours, halves). Built: every variant,
// 1 to d colours, the antipode's group in halves or whole.
namespace {

/// `name` built with each of `params` on `t`, k ranks per node on its last
/// axis (1: none), its closed form against stepping through; returns how
/// many were compared.
int check_built(const std::string& name, const std::vector<std::string>& params, const Torus& t, int k) {
  int checked = 0;
  for (const auto& p : params) {
    BuildContext ctx;
    ctx.params = p;
    ctx.node_ranks = k;  // torus-bruck's far-first order puts the node axis last
    std::string why;
    const auto s = try_build(*find_algorithm(name), t, &why, ctx);
    EXPECT_TRUE(s) << why;
    if (!s) continue;
    CostProfile closed;
    EXPECT_TRUE(closed_form_profile(*s, &closed, k));
    expect_same(closed, k > 1 ? profile(*s, t.size(), &t, k) : profile(*s, t.size()),
                name + " " + p + " on " + t.to_string() + ", " + std::to_string(k) + " per node");
    ++checked;
  }
  return checked;
}

/// Every dim-rings variant on `t`: 1 to d colours, halves or whole.
int check_dim_rings_variants(const Torus& t, int k) {
  std::vector<std::string> params;
  const int d = static_cast<int>(t.active_axes().size());
  for (int colours = 1; colours <= d; ++colours)
    for (const char* how : {"halves", "whole"}) params.push_back(std::to_string(colours) + "," + how);
  // Short-first, where there are sides of 2 and longer ones.
  int longs = 0;
  for (int a : t.active_axes()) longs += t.dim(a) > 2 ? 1 : 0;
  if (longs > 0 && longs < d)
    for (int colours = 1; colours <= longs; ++colours)
      for (const char* how : {"halves", "whole"}) params.push_back(std::to_string(colours) + "," + how + ",short");
  return check_built("dim-rings", params, t, k);
}

/// Sums check(t, k) over the shapes with a node axis of k = 2, 3, 4
/// appended, up to `max_ranks` ranks.
template <class Check>
int with_node_axes(Rank max_ranks, Check check) {
  int checked = 0;
  for (const auto& dims : kShapes)
    for (int k : {2, 3, 4}) {
      auto with = dims;
      with.push_back(k);
      const Torus t(with);
      if (t.size() <= max_ranks) checked += check(t, k);
    }
  return checked;
}

/// torus-bruck with every radix from 2 to `top` on `t`, in both orders
/// (far-first only where no message takes more than kMaxPieces pieces).
int check_torus_bruck(const Torus& t, int top, int k) {
  std::vector<std::string> params;
  for (int radix = 2; radix <= top; ++radix) {
    params.push_back(std::to_string(radix));
    try {
      TorusBruckSchedule(t, TorusBruckSchedule::Params{radix, true}, k);
      params.push_back(std::to_string(radix) + ",far");
    } catch (const std::invalid_argument&) {
    }
  }
  return check_built("torus-bruck", params, t, k);
}
}  // namespace

TEST(ClosedForm, DimRingsEqualsStepped) {
  int checked = 0;
  for (const auto& dims : kShapes) {
    const Torus t(dims);
    CostProfile closed;
    ASSERT_TRUE(closed_form_profile(AlgorithmId::dim_rings, t, &closed));
    expect_same(closed, profile(DimRingsSchedule(t), t.size()), "dim-rings on " + t.to_string());
    checked += check_dim_rings_variants(t, 1);
  }
  EXPECT_EQ(checked, 182);  // 16 of them short-first
}

// Sides of 2 with two links (TORUSGATHER_PAIR_LINKS=2): each port is a
// link of its own to the stepped profile and to the closed forms (every
// dim-rings variant in step, torus-bruck, hamiltonian). Every shape with a
// side of 2, up to 1024 ranks.
TEST(ClosedForm, TwoLinkSidesOf2EqualStepped) {
  int checked = 0, shapes = 0;
  for (const auto& dims : kShapes) {
    const Torus t(dims, network_axes(static_cast<int>(dims.size())));
    if (t.two_link_axes() == 0 || t.size() > 1024) continue;
    ++shapes;
    checked += check_dim_rings_variants(t, 1);
    checked += check_torus_bruck(t, 3, 1);
    if (t.size() <= 512) checked += check_schedule("hamiltonian", t);
  }
  EXPECT_EQ(shapes, 7);
  EXPECT_EQ(checked, 103);
}

// Open axes: a line's ranks differ by their place on it (the busiest rank's
// messages, the busiest link's blocks; torus-bruck's routes straight along
// the line). Every shape up to 1024 ranks with
// every axis open and with the first open, alone and with 2 ranks per node.
TEST(ClosedForm, OpenAxesEqualStepped) {
  int checked = 0, shapes = 0, bruck = 0;
  for (const auto& dims : kShapes)
    for (const std::uint32_t open : {~0u, 1u}) {
      const Torus t(dims, 0, open);
      if (t.open_axes() == 0 || t.size() > 1024) continue;
      ++shapes;
      CostProfile closed;
      ASSERT_TRUE(closed_form_profile(AlgorithmId::dim_rings, t, &closed));
      expect_same(closed, profile(DimRingsSchedule(t), t.size()), "dim-rings on " + t.to_string());
      checked += check_dim_rings_variants(t, 1);
      auto with = dims;
      with.push_back(2);
      if (t.size() > 512) continue;
      const Torus nodes(with, 0, open & network_axes(t.ndims()));
      checked += check_dim_rings_variants(nodes, 2);
      if (t.size() > 256) continue;
      bruck += check_torus_bruck(t, 2 * t.ndims() + 1, 1) + check_torus_bruck(nodes, 2 * nodes.ndims() + 1, 2);
    }
  EXPECT_EQ(shapes, 40);
  EXPECT_EQ(checked, 726);
  EXPECT_EQ(bruck, 904);
}

// With k ranks per node on the last axis: that axis's links are shared
// memory (node_blocks), and a network link carries the node's k ranks'
// loads, as profile() charges them. Every variant, k = 2, 3, 4 appended.
TEST(ClosedForm, DimRingsWithANodeAxisEqualsStepped) {
  const int checked = with_node_axes(1024, [](const Torus& t, int k) { return check_dim_rings_variants(t, k); });
  EXPECT_EQ(checked, 686);  // 160 of them short-first
}

// Stepping hamiltonian costs P/2 rounds of P ranks: the default tier stops
// at 512 ranks, the full one (ClosedFormFull) takes the rest.
TEST(ClosedForm, HamiltonianEqualsStepped) {
  int checked = 0;
  for (const auto& dims : kShapes)
    if (Torus(dims).size() <= 512) checked += check_schedule("hamiltonian", Torus(dims));
  EXPECT_EQ(checked, 22);  // the others (2x5, 2x2x2x2x2x2) have no decomposition found
}

TEST(ClosedFormFull, HamiltonianEqualsSteppedUpTo4096) {
  int checked = 0;
  for (const auto& dims : kShapes)
    if (Torus(dims).size() > 512) checked += check_schedule("hamiltonian", Torus(dims));
  EXPECT_EQ(checked, 3);  // 4x4x4x4x4, 4x4x4x4x4x4, 16x16x16
}

// bridgehead and its variants: the loads of one ring per side equal the
// stepped profile over all P ranks, for several r (a, b, k from the search).
TEST(ClosedForm, BridgeheadFromItsRingsEqualsStepped) {
  int checked = 0, applicable = 0;
  for (const char* name : {"bridgehead", "bridgehead-coloured", "concentrate"})
    for (double r : {0.25, 4.0, 64.0})
      for (const auto& dims : kShapes) {
        const Torus t(dims);
        if (t.size() > 512) continue;
        applicable += find_algorithm(name)->not_applicable(t).empty();  // bridgehead-coloured: two sides > 1
        BuildContext ctx;
        ctx.r = r;
        std::string why;
        const auto s = try_build(*find_algorithm(name), t, &why, ctx);
        if (!s) continue;
        CostProfile closed;
        ASSERT_TRUE(closed_form_profile(*s, &closed)) << name;
        expect_same(closed, profile(*s, t.size()), std::string(name) + " r=" + std::to_string(r) + " on " + t.to_string());
        ++checked;
      }
  EXPECT_EQ(checked, applicable);
  EXPECT_GT(checked, 150);
  CostProfile p;
  const auto lee = try_build(*find_algorithm("lee-code"), Torus({5, 5}), nullptr);
  ASSERT_TRUE(lee);
  EXPECT_FALSE(closed_form_profile(*lee, &p));
}

// bridgehead's ring loads for every a (phase 2 is counted from the
// segments, with the last step of an even a and segments of unequal
// length), b and k on rings and a 2D torus, against the programs stepped
// through.
TEST(ClosedForm, BridgeheadEveryParameterEqualsStepped) {
  int checked = 0;
  for (const auto& dims : std::vector<std::vector<int>>{{2}, {3}, {6}, {7}, {8}, {12}, {13}, {16}, {5, 6}})
    for (int a = 1; a <= dims.back(); ++a)
      for (int b = 2; b <= 3; ++b)
        for (int k = 1; k <= dims.back(); ++k) {
          if (dims.back() % k || (dims.size() > 1 && dims.front() % k)) continue;
          const Torus t(dims);
          const std::vector<RingParams> params(dims.size(), RingParams{a, b, k});
          if (!BridgeheadSchedule::check(t, params).empty()) continue;  // a > 5 on 5x6
          const BridgeheadSchedule s(t, params);
          CostProfile closed;
          ASSERT_TRUE(closed_form_profile(s, &closed));
          expect_same(closed, profile(s, t.size()), "bridgehead " + BridgeheadSchedule::to_string(params) + " on " + t.to_string());
          ++checked;
        }
  EXPECT_GT(checked, 150);
}

// torus-bruck's profile from its parts equals the stepped one: every
// radix from 2 to 2d+1 (and one beyond) on every shape up to 512 ranks.
TEST(ClosedForm, TorusBruckFromItsPartsEqualsStepped) {
  int checked = 0;
  for (const auto& dims : kShapes) {
    const Torus t(dims);
    if (t.size() <= 512 && t.size() >= 2) checked += check_torus_bruck(t, 2 * t.ndims() + 2, 1);
  }
  EXPECT_GT(checked, 100);
}

// With k ranks per node on the last axis: that axis's rounds are shared
// memory (node_blocks), and a network link carries the node's k ranks'
// loads, as profile() charges them (it charged the node axis as network,
// with k times its load, before: tpu-v4 with 4 per node at 8 B was
// predicted 21.99 us against 20.30 simulated).
TEST(ClosedForm, TorusBruckWithANodeAxisEqualsStepped) {
  const int checked =
      with_node_axes(512, [](const Torus& t, int k) { return check_torus_bruck(t, 2 * t.ndims() + 1, k); });
  EXPECT_GT(checked, 200);
}

// circulant's chords routed over the physical torus: the route counts of
// its four chords, weighted by each round's blocks, equal every rank's
// messages stepped through; p-gossip variants and node axes too.
TEST(ClosedForm, CirculantFromItsChordsEqualsStepped) {
  int checked = 0;
  auto check = [&checked](const Torus& t, int k) {
    if (!CirculantSchedule::not_applicable(t).empty()) return 0;
    for (int packets : {0, 2}) {
      const CirculantSchedule s(t, packets);
      CostProfile closed;
      EXPECT_TRUE(closed_form_profile(s, &closed, k, &t));
      expect_same(closed, profile(s, t.size(), &t, k),
                  "circulant p=" + std::to_string(packets) + " on " + t.to_string() + ", " + std::to_string(k) +
                      " per node");
      ++checked;
    }
    return 1;
  };
  for (const auto& dims : kShapes)
    if (Torus(dims).size() <= 512) check(Torus(dims), 1);
  with_node_axes(256, check);
  EXPECT_GT(checked, 100);
}

// cubgos: one line per round, every (a, b, k) that fits each shape up to
// 512 ranks with two or more sides, against its calls stepped through;
// with a node axis of 2, 3 or 4 ranks appended, a node's lines share its
// links.
namespace {
int check_cubgos(const Torus& t, int node_ranks) {
  if (!CubgosSchedule::not_applicable(t).empty()) return 0;
  int checked = 0;
  const int n0 = t.dim(t.active_axes()[0]);
  for (int a = 1; a <= n0; ++a)
    for (int b = 2; b <= 4; ++b)
      for (int k : {1, 2, n0}) {
        const DiagonalParams p{a, b, k};
        if (!CubgosSchedule::check(t, p).empty()) continue;
        const CubgosSchedule s(t, p);
        CostProfile closed;
        EXPECT_TRUE(closed_form_profile(s, &closed, node_ranks));
        expect_same(closed, node_ranks > 1 ? profile(s, t.size(), &t, node_ranks) : profile(s, t.size()),
                    "cubgos " + CubgosSchedule::to_string(p) + " on " + t.to_string() + ", " +
                        std::to_string(node_ranks) + " per node");
        ++checked;
      }
  return checked;
}
}  // namespace

TEST(ClosedForm, CubgosFromOneLinePerRoundEqualsStepped) {
  int checked = 0;
  for (const auto& dims : kShapes)
    if (Torus(dims).size() <= 512) checked += check_cubgos(Torus(dims), 1);
  EXPECT_GT(checked, 200);
  const int nodes = with_node_axes(512, check_cubgos);
  EXPECT_GT(nodes, 150);
}

// partial-cycles, both variants: every rank's sends listed without the
// programs, against the programs stepped through; with node axes too.
TEST(ClosedForm, PartialCyclesEqualsStepped) {
  auto check = [](const Torus& t, int node_ranks) {
    if (!PartialCyclesSchedule::not_applicable(t).empty()) return 0;
    int checked = 0;
    for (bool ti : {false, true}) {
      std::unique_ptr<PartialCyclesSchedule> built;
      try {
        built = std::make_unique<PartialCyclesSchedule>(t, ti);
      } catch (const std::invalid_argument&) {
        return 0;  // the construction's checks fail on some shapes
      }
      const PartialCyclesSchedule& s = *built;
      CostProfile closed;
      EXPECT_TRUE(closed_form_profile(s, &closed, node_ranks));
      expect_same(closed, node_ranks > 1 ? profile(s, t.size(), &t, node_ranks) : profile(s, t.size()),
                  std::string(s.name()) + " on " + t.to_string() + ", " + std::to_string(node_ranks) + " per node");
      ++checked;
    }
    return checked;
  };
  int checked = 0;
  auto shapes = kShapes;  // and shapes it builds on: 2D even and odd, 3D
  for (const std::vector<int>& more :
       std::vector<std::vector<int>>{{32, 16}, {12, 8}, {5, 7}, {9, 9}, {6, 6, 6}, {2, 4}, {8, 2}, {2, 6}})
    shapes.push_back(more);
  for (const auto& dims : shapes)
    if (Torus(dims).size() <= 1024) checked += check(Torus(dims), 1);
  EXPECT_GE(checked, 20);
  EXPECT_GE(with_node_axes(512, check), 24);
}

// three-phase with one rank per node: the gossip's messages routed without
// the programs, against the programs stepped through (even and odd rank
// counts: Algorithms 2 and 3); with node axes, whose links a node shares.
TEST(ClosedForm, ThreePhaseGossipEqualsStepped) {
  auto check = [](const Torus& t, int node_ranks) {
    const ThreePhaseSchedule s(t);
    CostProfile closed;
    EXPECT_TRUE(closed_form_profile(s, &closed, node_ranks, &t));
    expect_same(closed, profile(s, t.size(), &t, node_ranks),
                "three-phase on " + t.to_string() + ", " + std::to_string(node_ranks) + " per node");
    return 1;
  };
  int checked = 0;
  for (const auto& dims : kShapes)
    if (Torus(dims).size() <= 1024) checked += check(Torus(dims), 1);
  EXPECT_GE(checked, 25);
  EXPECT_GE(with_node_axes(512, check), 40);
  // Nodes of several ranks: their trees are stepped through, not claimed.
  std::vector<int> node_of;
  for (int r = 0; r < 16; ++r) node_of.push_back(r / 4);
  CostProfile p;
  EXPECT_FALSE(closed_form_profile(ThreePhaseSchedule(Torus({4, 4}), node_of), &p));
}

TEST(ClosedForm, NoClosedFormIsNotClaimed) {
  CostProfile p;
  for (const AlgorithmInfo& info : algorithms())
    EXPECT_EQ(closed_form_profile(info.id, Torus({4, 4}), &p), info.profile.from_torus) << info.name;
}

namespace {

void check_vendor(VendorAlgorithm a, Rank max_ranks) {
  for (const auto& dims : kShapes) {
    const Torus t(dims);
    if (t.size() > max_ranks) continue;
    expect_same(vendor_profile(t, a), vendor_profile_stepped(t, a), std::string(to_string(a)) + " on " + t.to_string());
  }
}

/// With a node axis: every shape's last side as the ranks per node, and the
/// same node tori with 2, 3 and 4 ranks per node appended.
void check_vendor_nodes(VendorAlgorithm a, Rank max_ranks) {
  int checked = 0;
  for (const auto& dims : kShapes) {
    std::vector<std::vector<int>> shapes;
    if (dims.size() >= 2 && dims.back() >= 2) shapes.push_back(dims);
    for (int k : {2, 3, 4}) {
      auto with = dims;
      with.push_back(k);
      shapes.push_back(with);
    }
    for (const auto& s : shapes) {
      const Torus t(s);
      if (t.size() > max_ranks) continue;
      const int k = s.back();
      expect_same(vendor_profile(t, a, k), vendor_profile_stepped(t, a, k),
                  std::string(to_string(a)) + " on " + t.to_string() + ", " + std::to_string(k) + " per node");
      ++checked;
    }
  }
  EXPECT_GT(checked, 40) << to_string(a);
}

}  // namespace

TEST(ClosedForm, VendorRingBruckRecursiveDoublingNeighbourExchange) {
  for (VendorAlgorithm a : {VendorAlgorithm::kRing, VendorAlgorithm::kTwoProc, VendorAlgorithm::kBruck,
                            VendorAlgorithm::kRecursiveDoubling, VendorAlgorithm::kNeighborExchange,
                            VendorAlgorithm::kRecursiveDoublingTree})
    check_vendor(a, 4096);
}

// A node's ranks share its network links (above 1024 ranks auto has only
// the closed form): round by round equal to stepping through every rank.
TEST(ClosedForm, VendorWithANodeAxis) {
  for (VendorAlgorithm a : {VendorAlgorithm::kRing, VendorAlgorithm::kBruck, VendorAlgorithm::kRecursiveDoubling,
                            VendorAlgorithm::kNeighborExchange, VendorAlgorithm::kRecursiveDoublingTree})
    check_vendor_nodes(a, 4096);
  check_vendor_nodes(VendorAlgorithm::kShift, 512);
  check_vendor_nodes(VendorAlgorithm::kLinear, 512);
}

// The shift and linear have P-1 steps or P(P-1) messages to step through.
TEST(ClosedForm, VendorShiftAndLinear) {
  check_vendor(VendorAlgorithm::kShift, 1024);
  check_vendor(VendorAlgorithm::kLinear, 1024);
}

TEST(ClosedFormFull, VendorShiftAndLinearUpTo4096) {
  check_vendor(VendorAlgorithm::kShift, 4096);
  check_vendor(VendorAlgorithm::kLinear, 4096);
}
