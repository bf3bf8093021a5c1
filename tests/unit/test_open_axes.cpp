// SPDX-License-Identifier: BSD-3-Clause
// Open axes (mesh axes: no wraparound link): the torus's view of them, the
// simulator's refusal of a message over a link that is not there, dim-rings'
// lines and torus-bruck's straight calls verified on all ranks, the
// network-routed schedules, and every other algorithm declining.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "model/closed_form.hpp"
#include "model/cost.hpp"
#include "model/route.hpp"
#include "schedule/circulant.hpp"
#include "schedule/dim_rings.hpp"
#include "schedule/explicit.hpp"
#include "schedule/node_sliced.hpp"
#include "schedule/registry.hpp"
#include "schedule/torus_bruck.hpp"
#include "schedule_checks.hpp"
#include "simulate/simulate.hpp"

using namespace torusgather;

namespace {

/// Rounds of dim-rings on t: floor(n/2) per closed side, n − 1 per open one.
long long expected_rounds(const Torus& t) {
  long long rounds = 0;
  for (int a : t.active_axes()) rounds += t.open(a) ? t.dim(a) - 1 : t.dim(a) / 2;
  return rounds;
}

/// One round in which every rank sends its block towards +axis 0, and
/// receives from -axis 0: a ring's step, which an open axis cannot carry.
class WrappingStep final : public Schedule {
 public:
  using Schedule::Schedule;
  const char* name() const override { return "wrapping-step"; }
  long long rounds() const override { return 1; }
  int colours() const override { return 1; }
  int claimed_max_link_messages_per_round() const override { return 1; }
  std::unique_ptr<RankProgram> program(Rank r) const override {
    struct Program final : RankProgram {
      const Torus& t;
      Rank self;
      Program(const Torus& torus, Rank r) : t(torus), self(r) {}
      void next_round(RoundOps& ops) override {
        ops.clear();
        ops.sends.push_back({make_port(0, true), BlockSet{self, 0}, Piece{}});
        ops.recvs.push_back({make_port(0, false), BlockSet{t.shift(self, 0, -1), 0}, Piece{}});
      }
    };
    return std::make_unique<Program>(torus(), r);
  }
};

/// The same step as routed calls: each rank sends its block one hop
/// towards +axis 0.
class WrappingCalls final : public ExplicitSchedule {
 public:
  explicit WrappingCalls(const Torus& t) : ExplicitSchedule(t) {
    std::vector<Call> round;
    for (Rank r = 0; r < t.size(); ++r) {
      const Rank to = t.shift(r, 0, 1);
      round.push_back({r, to, {make_port(0, true)}, {{r, r + 1}}});
    }
    set_calls({round});
  }
  const char* name() const override { return "wrapping-calls"; }
  int claimed_max_link_messages_per_round() const override { return 1; }
};

}  // namespace

TEST(OpenAxes, ParsedMarkedAndCounted) {
  const Torus t = parsed_torus("4x5mx2mx3");
  EXPECT_EQ(t.dims(), (std::vector<int>{4, 5, 2, 3}));
  EXPECT_TRUE(t.open(1));
  EXPECT_FALSE(t.open(2));  // an open side of 2 is its one link, both ways
  EXPECT_TRUE(t.shared_link(2));
  EXPECT_EQ(t.open_axes(), 1u << 1);
  EXPECT_EQ(t.to_string(), "4x5mx2x3");
  // The worst-placed node: 2 links on a closed 4 and 3, 1 on the open 5, 1 on the 2.
  EXPECT_EQ(t.incoming_links(), 2 + 1 + 1 + 2);
  // Only the end ranks of the open axis lack a port.
  const Rank first = t.rank({1, 0, 1, 2}), last = t.rank({1, 4, 1, 2});
  EXPECT_FALSE(t.has_link(first, make_port(1, false)));
  EXPECT_TRUE(t.has_link(first, make_port(1, true)));
  EXPECT_FALSE(t.has_link(last, make_port(1, true)));
  EXPECT_TRUE(t.has_link(t.rank({0, 2, 0, 0}), make_port(1, false)));
  EXPECT_TRUE(t.has_link(t.rank({3, 0, 0, 0}), make_port(0, true)));  // closed axes wrap
  // Two links on an open side of 2 are not there.
  EXPECT_TRUE(Torus({4, 2}, network_axes(2), 1u << 1).shared_link(1));
  EXPECT_THROW(parse_dims("4x4m"), std::invalid_argument);  // where no open axes are accepted
  std::uint32_t open = 0;
  EXPECT_THROW(parse_dims("4xm4", &open), std::invalid_argument);
  EXPECT_THROW(parse_dims("4mm", &open), std::invalid_argument);
}

TEST(OpenAxes, SimulatorRefusesAMessageOverAMissingLink) {
  const WrappingStep ring(Torus({5}));
  EXPECT_EQ(all_errors(step_through(ring)).find("open axis"), std::string::npos);
  const WrappingStep line(parsed_torus("5m"));
  const SimulationReport rep = step_through(line);
  EXPECT_FALSE(rep.complete);
  EXPECT_NE(all_errors(rep).find("crosses the end of an open axis"), std::string::npos) << all_errors(rep);
  // A routed call's hops too.
  EXPECT_NE(all_errors(step_through(WrappingCalls(parsed_torus("5m")))).find("crosses the end of an open axis at rank"),
            std::string::npos);
  EXPECT_EQ(all_errors(step_through(WrappingCalls(Torus({5})))).find("open axis"), std::string::npos);
}

// The vendor's messages in the cost model: straight along an open axis,
// over links that are there, the shorter way round a closed one.
TEST(OpenAxes, VendorRoutesGoStraight) {
  const Torus t = parsed_torus("5mx5");
  std::vector<std::pair<Rank, Port>> hops;
  const auto walk = [&](Rank from, Rank to) {
    hops.clear();
    return walk_route(t, from, to, [&](Rank at, Port p) { hops.emplace_back(at, p); });
  };
  EXPECT_EQ(walk(t.rank({4, 0}), t.rank({0, 4})), 4 + 1);  // 4 hops towards - on the line, 1 round the ring
  for (const auto& [at, p] : hops) EXPECT_TRUE(t.has_link(at, p)) << at << " " << p;
  EXPECT_EQ(hops.front().second, make_port(0, false));
  EXPECT_EQ(hops.back().second, make_port(1, false));
  EXPECT_EQ(walk(t.rank({1, 2}), t.rank({1, 2})), 0);
  EXPECT_EQ(walk(0, t.rank({3, 0})), 3);
}

// Every variant on meshes and mixed shapes: complete on all ranks, in the
// rounds of its lines and rings, link loads as claimed, the structural
// proof agreeing with the step-through.
TEST(OpenAxes, DimRingsLinesVerifiedOnAllRanks) {
  int checked = 0;
  for (const char* shape : {"3m", "8m", "4mx4m", "5mx3m", "4mx6", "8x3m", "4mx4mx4m", "3mx2x5", "4mx2x4mx2",
                            "3mx3mx3mx3m", "2x3mx2x3mx2"}) {
    const Torus t = parsed_torus(shape);
    SCOPED_TRACE(t.to_string());
    const int d = static_cast<int>(t.active_axes().size());
    std::vector<DimRingsParams> variants = {{0, false, false, true}};
    for (int c = 1; c <= d; ++c)
      for (bool whole : {false, true}) variants.push_back({c, whole, false, false});
    variants.push_back({1, false, true, false});
    for (const DimRingsParams& v : variants) {
      const DimRingsSchedule s(t, v);
      const SimulationReport rep = step_through(s);
      ASSERT_TRUE(rep.complete) << DimRingsSchedule::to_string(v) << ": " << all_errors(rep);
      EXPECT_EQ(rep.rounds, expected_rounds(t));
      const SimulationReport proof = prove_structure(s);
      EXPECT_TRUE(proof.complete) << all_errors(proof);
      EXPECT_EQ(proof.rounds, rep.rounds);
      EXPECT_DOUBLE_EQ(proof.max_link_blocks_per_round, rep.max_link_blocks_per_round);
      EXPECT_NEAR(proof.volume_per_rank_blocks, rep.volume_per_rank_blocks, 1e-9) << DimRingsSchedule::to_string(v);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 80);
}

// torus-bruck's calls go straight along an open axis: every radix, both
// orders and a node axis, complete on all ranks, in ceil(log_k n) rounds per
// axis, with the link loads and route lengths its load() claims.
TEST(OpenAxes, TorusBruckLinesVerifiedOnAllRanks) {
  int checked = 0;
  for (const char* shape : {"3m", "8m", "4mx4m", "5mx3m", "4mx6", "8x3m", "4mx4mx4m", "2x4mx4m", "9mx3"})
    for (int node_ranks : {1, 2}) {
      Torus t = parsed_torus(shape);
      if (node_ranks > 1) {
        std::vector<int> dims = t.dims();
        dims.push_back(node_ranks);
        t = Torus(dims, 0, t.open_axes());
      }
      SCOPED_TRACE(t.to_string());
      for (int k = 2; k <= 2 * t.ndims() + 1; ++k)
        for (bool far : {false, true}) {
          const TorusBruckSchedule s(t, TorusBruckSchedule::Params{k, far}, node_ranks);
          const SimulationReport rep = step_through(s);
          ASSERT_TRUE(rep.complete) << k << (far ? ",far" : "") << ": " << all_errors(rep);
          EXPECT_EQ(rep.rounds, TorusBruckSchedule::formula_rounds(t, k));
          ++checked;
        }
    }
  EXPECT_EQ(checked, 180);
}

// A mesh's corner node has one link per axis: (P − 1) blocks over d links.
// Balanced lines reach it (colour c's phase on axis a takes n_a − 1 rounds
// of its group, and the rotations fill every link).
// Unequal sides leave some link idle for a while (6mx4m: 12.5 against 11.5;
// 2x4mx4m: 10.96 against 10.33, 12.0 with equal weights).
TEST(OpenAxes, BalancedLinesReachTheCornersBound) {
  for (const auto& [shape, slack] : std::vector<std::pair<const char*, double>>{
           {"8mx8m", 1.0}, {"4mx4mx4m", 1.0}, {"8mx8mx8m", 1.0}, {"6mx4m", 1.09}, {"2x4mx4m", 1.07}}) {
    const Torus t = parsed_torus(shape);
    const DimRingsSchedule s(t, DimRingsParams{0, false, false, true});
    const double bound = static_cast<double>(t.size() - 1) / t.incoming_links();
    EXPECT_LE(s.fluid_blocks(), bound * slack * (1 + 1e-4)) << shape;  // weights in 2^-15 units
    EXPECT_GE(s.fluid_blocks(), bound * (1 - 1e-9)) << shape;
  }
  EXPECT_NEAR(DimRingsSchedule(parsed_torus("8mx8m"), DimRingsParams{0, false, false, true}).fluid_blocks(), 63.0 / 2, 1e-6);
}

// Only dim-rings and node-dim-rings (over the node torus) run on open axes;
// every other algorithm declines, and says why.
// The schedules whose calls are MPI messages (circulant, chordal-ring,
// three-phase) run on a mesh as on a torus: the network routes each call,
// straight along an open axis, and the cost model charges those routes.
TEST(OpenAxes, RoutedByTheNetwork) {
  int checked = 0;
  for (const char* shape : {"4mx3", "5mx4m", "3mx2x4m", "6mx6m"}) {
    const Torus t = parsed_torus(shape);
    SCOPED_TRACE(t.to_string());
    for (AlgorithmId id : {AlgorithmId::circulant, AlgorithmId::chordal_ring, AlgorithmId::three_phase}) {
      std::string why;
      const auto s = try_build(algorithm(id), t, &why);
      if (!s) {
        EXPECT_EQ(why.find("wraparound"), std::string::npos) << why;
        continue;
      }
      const SimulationReport rep = step_through(*s);
      ASSERT_TRUE(rep.complete) << algorithm(id).name << ": " << all_errors(rep);
      ++checked;
    }
    // The chords' routes go straight along the open axes: longer than on
    // the closed shape, and the closed form follows them.
    const CirculantSchedule c(t);
    const Torus closed(t.dims());
    CostProfile on_mesh, on_torus;
    ASSERT_TRUE(closed_form_profile(c, &on_mesh, 1, &t));
    ASSERT_TRUE(closed_form_profile(c, &on_torus, 1, &closed));
    const CostProfile stepped = profile(c, t.size(), &t);
    ASSERT_EQ(on_mesh.runs.size(), stepped.runs.size());
    for (std::size_t i = 0; i < stepped.runs.size(); ++i) {
      EXPECT_EQ(on_mesh.runs[i].first, stepped.runs[i].first);
      EXPECT_TRUE(on_mesh.runs[i].second == stepped.runs[i].second) << "run " << i;
    }
    int mesh_hops = 0, torus_hops = 0;
    for (const auto& run : on_mesh.runs) mesh_hops = std::max(mesh_hops, run.second.hops);
    for (const auto& run : on_torus.runs) torus_hops = std::max(torus_hops, run.second.hops);
    EXPECT_GT(mesh_hops, torus_hops);
  }
  EXPECT_EQ(checked, 12);
}

TEST(OpenAxes, OthersDecline) {
  const Torus t = parsed_torus("4mx4x4");
  for (const AlgorithmInfo& info : algorithms()) {
    const std::string why = declines(info, t);
    if (info.id == AlgorithmId::dim_rings || info.id == AlgorithmId::node_dim_rings ||
        info.id == AlgorithmId::torus_bruck || info.id == AlgorithmId::circulant ||
        info.id == AlgorithmId::chordal_ring || info.id == AlgorithmId::three_phase) {
      EXPECT_TRUE(why.empty()) << info.name << ": " << why;
    } else {
      EXPECT_NE(why.find("wraparound"), std::string::npos) << info.name << ": " << why;
      std::string built_why;
      EXPECT_FALSE(try_build(info, t, &built_why)) << info.name;
    }
  }
  // node-dim-rings: the node torus keeps the open axes, the node axis is closed.
  BuildContext ctx;
  ctx.node_ranks = 4;
  std::string why;
  const auto s = try_build(algorithm(AlgorithmId::node_dim_rings), t, &why, ctx);
  ASSERT_TRUE(s) << why;
  EXPECT_EQ(NodeSlicedSchedule::node_torus(t).to_string(), "4mx4");
  const SimulationReport rep = step_through(*s);
  EXPECT_TRUE(rep.complete) << all_errors(rep);
}
