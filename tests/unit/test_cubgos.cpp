// SPDX-License-Identifier: BSD-3-Clause
// `cubgos` (Juurlink, Rao & Sibeyn §5.2, §6): bridgeheads on generalised
// diagonals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "schedule/cubgos.hpp"
#include "schedule/explicit.hpp"
#include "schedule/ring_gossip.hpp"
#include "simulate/simulate.hpp"
#include "schedule_checks.hpp"

using namespace torusgather;

// cubgos (§6.2; torgos of §5.2 in 2D): for every parameter choice on tori
// of 2 to 4 dimensions, square or not, the step-through simulator delivers
// every block, and its rounds, the sum of each round's largest message and
// the link load (one message per directed link per round) equal the claims
// that cost() computes from the construction.
namespace {

/// Every parameter set that fits each torus (g = 1 once: b and k unused).
template <class F>
void for_each_parameter_set(const std::vector<std::vector<int>>& shapes, F&& f) {
  for (const auto& dims : shapes) {
    const Torus t(dims);
    const int n0 = t.dim(t.active_axes()[0]);
    for (int a = 1; a <= n0; ++a)
      for (int b = 2; b <= 9; ++b)
        for (int k = 1; k <= n0; ++k) {
          const DiagonalParams p{a, b, k};
          if (!CubgosSchedule::check(t, p).empty()) continue;
          if (n0 / a == 1 && (b > 2 || k > 1)) continue;  // g = 1: no phase 4, b and k unused
          SCOPED_TRACE(t.to_string() + " a,b,k=" + CubgosSchedule::to_string(p));
          f(t, p);
        }
  }
}

const std::vector<std::vector<int>> kShapes = {{4, 4},  {8, 8},    {9, 9},    {12, 6},   {6, 12},
                                               {10, 5}, {4, 4, 4}, {6, 6, 6}, {2, 4, 4}, {2, 2, 2, 2}};

}  // namespace

TEST(Cubgos, FormulaMatchesTheSimulatorForEveryParameter) {
  int built = 0;
  for_each_parameter_set(kShapes, [&](const Torus& t, const DiagonalParams& p) {
    const CubgosSchedule s(t, p);
    const auto rep = step_through(s);
    ASSERT_TRUE(rep.complete) << all_errors(rep);
    EXPECT_EQ(rep.rounds, CubgosSchedule::cost(t, p).steps);
    ++built;
  });
  EXPECT_EQ(built, 107);
}

// g = 1 (a = n_0): every rank is a bridgehead and cubgos is approach 1 along
// each axis in turn (approach 11 of §5.1): ⌊n_i/2⌋ steps whose messages are
// the product of the sides done.
TEST(Cubgos, SpacingOneIsApproachOneAlongEveryAxis) {
  for (const auto& dims : std::vector<std::vector<int>>{{8, 8}, {9, 9}, {5, 10}, {4, 6, 8}}) {
    const Torus t(dims);
    long long steps = 0, blocks = 0, unit = 1;
    for (int n : dims) {
      steps += n / 2;
      blocks += (n / 2) * unit;
      unit *= n;
    }
    const StepCost c = CubgosSchedule::cost(t, {dims[0], 2, 1});
    EXPECT_EQ(c.steps, steps) << t.to_string();
    EXPECT_EQ(c.blocks, blocks) << t.to_string();
  }
}

// §5.2 and §6's point: data concentrated on diagonals is spread along every
// axis at once, so for large sides and middle r torgos/cubgos take fewer
// time units than circgos axis by axis (the seed's Tables 2 and 3 make the
// same comparison; its numbers are lost). Where no spacing fits (8 has only
// powers of 2, and 4x4x4 is small) the search may not gain, never lose
// against its own limit g = 1.
TEST(Cubgos, DiagonalsBeatCircgosPerAxisOnLargeSides) {
  const struct {
    std::vector<int> dims;
    double r;
  } cases[] = {{{27, 27}, 64}, {{27, 27}, 512}, {{9, 9, 9}, 64}, {{9, 9, 9}, 512}, {{16, 16}, 64}};
  for (const auto& c : cases) {
    const Torus t(c.dims);
    const double diag = CubgosSchedule::cost(t, CubgosSchedule::best(t, c.r)).at(c.r);
    const double axis = BridgeheadSchedule::cost(t, BridgeheadSchedule::best(t, c.r)).at(c.r);
    EXPECT_LT(diag, 0.95 * axis) << t.to_string() << " r=" << c.r;
  }
  for (const auto& dims : std::vector<std::vector<int>>{{8, 8}, {4, 4, 4}, {27, 27}})
    for (double r : {0.1, 1.0, 16.0, 1000.0}) {
      const Torus t(dims);
      EXPECT_LE(CubgosSchedule::cost(t, CubgosSchedule::best(t, r)).at(r),
                CubgosSchedule::cost(t, {dims[0], 2, 1}).at(r));
    }
}

TEST(Cubgos, ParametersParseAndAreChecked) {
  DiagonalParams p;
  std::string why;
  ASSERT_TRUE(CubgosSchedule::parse("1,3,3", Torus({27, 27}), &p, &why)) << why;
  EXPECT_EQ(p, (DiagonalParams{1, 3, 3}));
  EXPECT_EQ(CubgosSchedule::to_string(p), "1,3,3");
  EXPECT_FALSE(CubgosSchedule::parse("1,3", Torus({27, 27}), &p, &why));
  EXPECT_FALSE(CubgosSchedule::parse("1,2,1", Torus({27, 27}), &p, &why));  // g = 27 is no power of 2
  EXPECT_NE(why.find("power of b"), std::string::npos) << why;
  EXPECT_FALSE(CubgosSchedule::parse("1,2,1", Torus({8, 4}), &p, &why));  // g = 8 does not divide 4
  EXPECT_FALSE(CubgosSchedule::parse("2,2,3", Torus({8, 4}), &p, &why));  // k = 3 does not divide 8
  EXPECT_FALSE(CubgosSchedule::parse("1,2,1", Torus({8}), &p, &why));     // a ring: circgos
  EXPECT_NE(CubgosSchedule::not_applicable(Torus({8, 1})), "");
  EXPECT_THROW(CubgosSchedule(Torus({9, 9}), {1, 2, 1}), std::invalid_argument);
}

namespace {

/// The construction's calls derived with every rank's holdings
/// (GossipBuilder: a call carries what the caller holds and the callee
/// lacks), as §6.2 describes the phases on the whole torus.
std::vector<std::vector<Call>> builder_calls(const Torus& torus, const DiagonalParams& p) {
  using namespace ring_gossip;
  const auto axes = torus.active_axes();
  const int x0 = axes[0], n0 = torus.dim(x0), g0 = n0 / p.a;
  const Rank P = torus.size();
  GossipBuilder builder(P, [&torus](Rank r, Port q) { return torus.neighbor(r, q); });
  auto line = [](int axis, bool plus, int dist) {
    return std::vector<Port>(static_cast<std::size_t>(dist), make_port(axis, plus));
  };
  std::vector<long long> sigma(static_cast<std::size_t>(P), 0);
  for (Rank r = 0; r < P; ++r)
    for (std::size_t i = 1; i < axes.size(); ++i) sigma[static_cast<std::size_t>(r)] += torus.coord(r, axes[i]);
  auto head = [&](Rank r, int g) { return ((torus.coord(r, x0) - sigma[static_cast<std::size_t>(r)]) % g + g) % g == 0; };
  int leader = 0;
  const auto merges = concentration(g0, &leader);
  std::vector<Rank> rows;
  for (Rank r = 0; r < P; ++r)
    if (torus.coord(r, x0) == 0) rows.push_back(r);
  auto at = [&](Rank row, int rel) {
    const long long c = sigma[static_cast<std::size_t>(row)] % g0;
    return torus.shift(row, x0, ((rel - leader + c) % n0 + n0) % n0);
  };
  auto gather = [&](int axis, int g, int w) {
    for (int s = 1; s <= w / 2; ++s) {
      builder.next_round();
      for (Rank r = 0; r < P; ++r) {
        if (!head(r, g)) continue;
        builder.call(r, line(axis, true, g));
        if (s <= (w - 1) / 2) builder.call(r, line(axis, false, g));
      }
    }
  };
  for (const auto& step : merges) {
    builder.next_round();
    for (Rank row : rows)
      for (const auto& seg : segments(n0, p.a))
        for (const auto& m : step) builder.call(at(row, seg.start + m.from), line(x0, m.to > m.from, std::abs(m.to - m.from)));
  }
  gather(x0, g0, p.a);
  for (std::size_t i = 1; i < axes.size(); ++i) gather(axes[i], g0, torus.dim(axes[i]) / g0);
  std::vector<long long> class_count;
  for (int g = g0; g > 1; g /= p.b) {
    long long r = 1;
    for (std::size_t i = 1; i < axes.size(); ++i) r *= torus.dim(axes[i]) / g;
    class_count.push_back(r);
  }
  const auto chains = chain_rounds(n0, p.a, p.b, p.k, class_count);
  int g = g0;
  for (const auto& round : chains) {
    std::vector<std::vector<Rank>> class_of(rows.size());
    for (std::size_t w = 0; w < rows.size(); ++w) {
      std::vector<Rank> offs{0};
      for (std::size_t i = 1; i < axes.size(); ++i) {
        std::vector<Rank> more;
        const int n = torus.dim(axes[i]);
        for (Rank o : offs)
          for (int y = torus.coord(rows[w], axes[i]) % g; y < n; y += g) more.push_back(o + y * torus.stride(axes[i]));
        offs = std::move(more);
      }
      class_of[w] = std::move(offs);
    }
    for (const auto& step : round) {
      builder.next_round();
      for (std::size_t w = 0; w < rows.size(); ++w)
        for (const auto& c : step) {
          std::vector<Rank> blocks;
          const auto packet = packet_run(n0, p.k, c.packet);
          for (int x = packet.first; x < packet.second; ++x) {
            const Rank col = static_cast<Rank>(torus.coord(at(rows[w], x), x0)) * torus.stride(x0);
            for (Rank o : class_of[w]) blocks.push_back(col + o);
          }
          std::sort(blocks.begin(), blocks.end());
          builder.offer(at(rows[w], c.from), line(x0, c.plus, c.dist), blocks);
        }
    }
    g /= p.b;
    for (std::size_t i = 1; i < axes.size(); ++i) gather(axes[i], g, p.b);
  }
  return builder.finish();
}

}  // namespace

// Each rank's program makes exactly the calls of the construction derived
// with every rank's holdings, round by round, for every parameter set on
// tori of 2 to 4 dimensions (a side of 1 among them).
TEST(Cubgos, EachRanksProgramMakesTheConstructionsCalls) {
  int compared = 0;
  auto shapes = kShapes;
  shapes.push_back({4, 1, 8});
  for_each_parameter_set(shapes, [&](const Torus& t, const DiagonalParams& p) {
    expect_programs_make(CubgosSchedule(t, p), builder_calls(t, p));
    ++compared;
  });
  EXPECT_EQ(compared, 117);  // every parameter set of the shapes above
}
