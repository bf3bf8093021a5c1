// SPDX-License-Identifier: BSD-3-Clause
// Sides of 2 with two links (Blue Gene/Q): the torus's link count, and the
// lanes of a plane C_n x C_2, two edge-disjoint Hamiltonian cycles that
// dim-rings' balanced colours run on.
#include <gtest/gtest.h>

#include <set>
#include <utility>
#include <vector>

#include "schedule/dim_rings.hpp"
#include "schedule/lanes.hpp"
#include "schedule/node_sliced.hpp"
#include "schedule_checks.hpp"
#include "simulate/simulate.hpp"

using namespace torusgather;

TEST(TwoLinks, OnlyASideOf2HasThem) {
  const Torus one({4, 4, 4, 4, 2});
  const Torus two({4, 4, 4, 4, 2}, network_axes(5));
  EXPECT_EQ(one.incoming_links(), 9);
  EXPECT_EQ(two.incoming_links(), 10);
  EXPECT_TRUE(one.shared_link(4));
  EXPECT_FALSE(two.shared_link(4));
  EXPECT_EQ(two.two_link_axes(), 1u << 4);  // the sides of 4 keep no bit
  // The node axis of a node-aware torus stays shared memory.
  const Torus node({4, 2, 2}, network_axes(2));
  EXPECT_FALSE(node.shared_link(1));
  EXPECT_TRUE(node.shared_link(2));
  EXPECT_EQ(NodeSlicedSchedule::node_torus(node).two_link_axes(), 1u << 1);
}

// Each lane visits the plane's 2n ranks once and returns; its ports lead to
// the lane's next and previous rank, and the receiver's port is the
// opposite one; the two lanes take no directed link in common, and
// together every link of the plane (a side of 2's two links both ways).
TEST(Lanes, AreTwoEdgeDisjointHamiltonianCycles) {
  for (const auto& dims : std::vector<std::vector<int>>{{4, 2}, {2, 2}, {6, 2}, {8, 2}, {3, 4, 2}, {2, 3, 2, 4}}) {
    const Torus t(dims, network_axes(static_cast<int>(dims.size())));
    const int e = t.ndims() - 1;
    const int a = dims == std::vector<int>{2, 3, 2, 4} ? 3 : e - 1;
    const int pair = dims == std::vector<int>{2, 3, 2, 4} ? 2 : e;
    SCOPED_TRACE(t.to_string());
    std::set<std::pair<Rank, Port>> used;
    for (int lane : {0, 1}) {
      const Ring ring(a, pair, lane);
      const int len = ring.length(t);
      for (Rank start = 0; start < t.size(); ++start) {
        std::set<Rank> seen;
        Rank r = start;
        for (int step = 0; step < len; ++step) {
          seen.insert(r);
          // The link leaving r towards the lane's next rank carries this lane only.
          if (start == r) EXPECT_TRUE(used.insert({r, lane_ports(t, ring, r).first}).second);
          r = expect_ring_step(t, ring, r, len);
        }
        EXPECT_EQ(r, start);
        EXPECT_EQ(seen.size(), static_cast<std::size_t>(len));
        // Only the plane's two coordinates change.
        for (Rank x : seen) EXPECT_EQ(t.clear_axes(x, (1u << a) | (1u << pair)), t.clear_axes(start, (1u << a) | (1u << pair)));
      }
    }
    EXPECT_EQ(used.size(), static_cast<std::size_t>(2 * t.size()));
    // Both lanes, both directions: every rank's 4 ports on the plane.
    for (Rank r = 0; r < t.size(); ++r) {
      const auto [next0, prev0] = lane_ports(t, Ring(a, pair, 0), r);
      const auto [next1, prev1] = lane_ports(t, Ring(a, pair, 1), r);
      EXPECT_EQ(std::set<Port>({next0, prev0, next1, prev1}),
                std::set<Port>({make_port(a, true), make_port(a, false), make_port(pair, true), make_port(pair, false)}));
    }
  }
}

// Balanced colours on lanes: stepped through on every rank, rounds as
// claimed (n per plane of C_n x C_2), the claimed link loads those of the
// step-through, and the fluid time within 6 % of (P - 1) blocks over the
// node's links: 4x2 exactly at it, bgq's shapes at 98 % and 95 %.
TEST(Lanes, BalancedDimRingsOnTwoLinkShapes) {
  struct Case {
    std::vector<int> dims;
    long long rounds;
    double at_least;
  };
  for (const Case& c : std::vector<Case>{{{4, 2}, 4, 1.0},
                                         {{2, 2}, 2, 1.0},
                                         {{4, 4, 2}, 6, 0.9},
                                         {{2, 2, 2}, 3, 0.95},
                                         {{3, 4, 2}, 5, 0.9},
                                         {{4, 4, 2, 2, 2}, 9, 0.94},
                                         {{4, 4, 4, 4, 2}, 10, 0.97}}) {
    const Torus t(c.dims, network_axes(static_cast<int>(c.dims.size())));
    SCOPED_TRACE(t.to_string());
    const DimRingsSchedule s(t, DimRingsParams{0, false, false, true});
    EXPECT_EQ(s.rounds(), c.rounds);
    EXPECT_LE(s.colours(), 16);
    bool lanes = false;
    for (int k = 0; k < s.colours(); ++k)
      for (int f = 0; f < s.phases(); ++f) lanes = lanes || s.phase_ring(k, f).pair >= 0;
    EXPECT_TRUE(lanes);
    if (t.size() <= 64) expect_verified(s, c.rounds);
    const SimulationReport rep = step_through(s);
    EXPECT_TRUE(rep.complete) << all_errors(rep);
    EXPECT_EQ(rep.max_link_messages_per_round, s.claimed_max_link_messages_per_round());
    const SimulationReport proof = prove_structure(s);
    EXPECT_NEAR(proof.max_link_blocks_per_round, rep.max_link_blocks_per_round, 1e-12);
    const double bound = static_cast<double>(t.size() - 1) / t.incoming_links();
    EXPECT_GE(bound / s.fluid_blocks(), c.at_least - 1e-9);
  }
}
