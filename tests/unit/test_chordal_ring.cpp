// SPDX-License-Identifier: BSD-3-Clause
// `chordal-ring` (Barrière, Cohen & Mitjana §4.1, §4.3).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "schedule/chordal_ring.hpp"
#include "schedule/explicit.hpp"
#include "schedule/phases.hpp"
#include "simulate/simulate.hpp"
#include "schedule_checks.hpp"

using namespace torusgather;

// Barrière, Cohen & Mitjana §4.1 and §4.3: C(N, c) for every even N up to 160 and every odd
// chord: the three phases in 2⌈log2 s⌉ + (gossip among r) rounds, the calls
// of a round edge-disjoint (every call and its way back are arc-disjoint)
// and one-port (a rank talks to one partner per round: the line model).
// (c+1) | N takes §4.1's paths; other N §4.3's components, with the paper's
// paths P' where a >= b/2 (§4.3.1) and searched ones where a < b/2 (§4.3.2,
// which prints none).
TEST(ChordalRing, ThreePhasesOnEveryChordUpTo160Ranks) {
  int built = 0, divisible = 0, papers = 0;
  for (int n = 6; n <= 160; n += 2)
    for (int c = 3; c <= n / 2; c += 2) {
      ASSERT_TRUE(ChordalRingSchedule::not_applicable(Torus({n}), c).empty()) << "C(" << n << ", " << c << ")";
      const ChordalRingSchedule s(Torus({n}), c);
      const auto rep = step_through(s);
      ASSERT_TRUE(rep.complete) << "C(" << n << ", " << c << ")\n" << all_errors(rep);
      EXPECT_EQ(rep.rounds, ChordalRingSchedule::formula_rounds(n, c));
      EXPECT_EQ(rep.max_link_messages_per_round, 1);
      for (const auto& round : calls_of_programs(s)) {
        std::vector<Rank> partner(static_cast<std::size_t>(n), -1);
        for (const Call& call : round)
          for (const auto& [me, other] : {std::pair{call.from, call.to}, std::pair{call.to, call.from}}) {
            Rank& p = partner[static_cast<std::size_t>(me)];
            EXPECT_TRUE(p == -1 || p == other) << "C(" << n << ", " << c << "): rank " << me << " talks to " << p
                                               << " and " << other << " in one round";
            p = other;
          }
      }
      ++built;
      divisible += n % (c + 1) == 0;
      const auto routes = ChordalRingSchedule::gossip_routes(n, c);
      ASSERT_TRUE(routes.has_value());
      const bool section432 = n % (c + 1) != 0 && n / (c + 1) < n % (c + 1) / 2;
      EXPECT_EQ(routes->papers, !section432) << "C(" << n << ", " << c << ")";
      EXPECT_NE(s.construction().find(routes->papers ? "the paper's paths" : "searched paths"), std::string::npos);
      papers += routes->papers;
    }
  EXPECT_EQ(built, 1560);     // every even N <= 160, every odd chord 3 <= c <= N/2
  EXPECT_EQ(divisible, 209);  // of which (c+1) | N: §4.1
  EXPECT_EQ(papers, 209 + 579);  // §4.1 and §4.3.1 on the paper's paths; §4.3.2's 772 searched
  // The paper's Fig. 1: C(64, 7) has a = 8 >= c + 1 cycles, so r = c - 1 = 6
  // components of at most 2 cycles: 2·⌈log2 16⌉ + ⌈log2 6⌉ = 11 rounds.
  EXPECT_EQ(ChordalRingSchedule::formula_rounds(64, 7), 11);
  // a < c + 1: r = a single cycles: C(48, 11): 4 cycles of 12, 2·4 + 2 = 10.
  EXPECT_EQ(ChordalRingSchedule::formula_rounds(48, 11), 10);
  EXPECT_FALSE(ChordalRingSchedule::not_applicable(Torus({51})).empty());     // odd N
  EXPECT_FALSE(ChordalRingSchedule::not_applicable(Torus({50}), 27).empty());  // c > N/2
  EXPECT_FALSE(ChordalRingSchedule::not_applicable(Torus({50}), 8).empty());   // even chord
}

// §4.3's components. C(50, 7) = 6·8 + 2: a = 6 >= b/2 = 1 and a < c+1, so
// a components, the first a type-A subgraph of c+3 = 10 vertices
// accumulating in its vertex c+1, the others 8-cycles accumulating in c-1.
// C(70, 7) = 8·8 + 6, a >= c+1: c-1 = 6 components of α+1 = 2 or α = 1
// subgraphs (a = 1·6 + 2), the first b/2 = 3 starting with an A.
// C(44, 17) = 2·18 + 8: a = 2 < b/2 = 4, §4.3.2: the two cycles and the
// path of 8 vertices, accumulating in its vertex b-2.
TEST(ChordalRing, GeneralCaseComponents) {
  using C = ChordalRingSchedule::Component;
  auto same = [](const std::vector<C>& got, const std::vector<C>& want) {
    if (got.size() != want.size()) return false;
    for (std::size_t k = 0; k < got.size(); ++k)
      if (got[k].lo != want[k].lo || got[k].hi != want[k].hi || got[k].acc != want[k].acc) return false;
    return true;
  };
  EXPECT_TRUE(same(ChordalRingSchedule::components(50, 7),
                   {{0, 10, 8}, {10, 18, 16}, {18, 26, 24}, {26, 34, 32}, {34, 42, 40}, {42, 50, 48}}));
  EXPECT_TRUE(same(ChordalRingSchedule::components(70, 7),
                   {{0, 18, 8}, {18, 36, 26}, {36, 46, 44}, {46, 54, 52}, {54, 62, 60}, {62, 70, 68}}));
  EXPECT_TRUE(same(ChordalRingSchedule::components(44, 17), {{0, 18, 16}, {18, 36, 34}, {36, 44, 42}}));
  // shape() counts them and finds the largest without making them.
  for (long long n = 6; n <= 400; n += 2)
    for (int c = 3; c <= n / 2; c += 2) {
      const auto comps = ChordalRingSchedule::components(n, c);
      long long largest = 0, next = 0;
      for (const auto& k : comps) {
        EXPECT_EQ(k.lo, next);
        next = k.hi;
        largest = std::max(largest, k.hi - k.lo);
      }
      EXPECT_EQ(next, n);
      EXPECT_EQ(ChordalRingSchedule::shape(n, c).count, static_cast<long long>(comps.size())) << n << " " << c;
      EXPECT_EQ(ChordalRingSchedule::shape(n, c).largest, largest) << n << " " << c;
    }
  // §4.4: s = c+3 when a < c+1: 2⌈log2 10⌉ + ⌈log2 6⌉ = 11 rounds for C(50, 7).
  EXPECT_EQ(ChordalRingSchedule::formula_rounds(50, 7), 11);
  const ChordalRingSchedule s(Torus({50}), 7);
  EXPECT_NE(s.construction().find("§4.3.1"), std::string::npos) << s.construction();
  EXPECT_TRUE(step_through(s).complete);
}

// §4.3.1's paths P' (lanes R-2k, R-2k+2 in a type-A subgraph) need no
// search, so they serve any number of components: C(4094, 125), 31 type-A
// subgraphs and a cycle, 32 components of at most 128 nodes, takes the 19
// rounds of the formula, each round edge-disjoint. And for every even N up to 2000 the chosen
// chord has the fewest rounds the formula gives over all chords.
TEST(ChordalRing, PaperPathsAtScaleAndTheBestChord) {
  const ChordalRingSchedule s(Torus({4094}), 125);
  EXPECT_NE(s.construction().find("§4.3.1: 31 type-A subgraphs, the paper's paths"), std::string::npos)
      << s.construction();
  const auto rep = step_through(s);
  EXPECT_TRUE(rep.complete);
  EXPECT_EQ(rep.rounds, 19);
  EXPECT_EQ(rep.max_link_messages_per_round, 1);
  for (long long n = 6; n <= 2000; n += 2) {
    long long fewest = -1;
    for (int c = 3; c <= n / 2; c += 2) {
      const long long rounds = ChordalRingSchedule::formula_rounds(n, c);
      if (fewest < 0 || rounds < fewest) fewest = rounds;
    }
    const int c = ChordalRingSchedule::best_chord(n);
    ASSERT_NE(c, 0) << n;
    EXPECT_EQ(ChordalRingSchedule::formula_rounds(n, c), fewest) << "N = " << n << ", c = " << c;
  }
}

// Each rank's program makes exactly the calls of the whole construction
// derived with every rank's holdings (GossipBuilder: a call carries what
// the caller holds and the callee lacks): the halving tree reversed, the
// gossip's exchanges along gossip_routes(), the halving tree.
TEST(ChordalRing, EachRanksProgramMakesTheConstructionsCalls) {
  int compared = 0;
  for (int n = 6; n <= 90; n += 2)
    for (int c = 3; c <= n / 2; c += 2) {
      const ChordalRingSchedule s(Torus({n}), c);
      const auto comps = ChordalRingSchedule::components(n, c);
      const auto routes = ChordalRingSchedule::gossip_routes(n, c);
      ASSERT_TRUE(routes.has_value());
      GossipBuilder b(n, [&s](Rank x, Port p) { return s.link_target(x, p); });
      std::vector<std::vector<std::pair<Rank, Rank>>> tree;
      for (const auto& k : comps) {
        const auto rounds = halving_broadcast(k.lo, k.hi, k.acc);
        if (tree.size() < rounds.size()) tree.resize(rounds.size());
        for (std::size_t i = 0; i < rounds.size(); ++i) tree[i].insert(tree[i].end(), rounds[i].begin(), rounds[i].end());
      }
      auto along = [](Rank from, Rank to) {
        return std::vector<Port>(static_cast<std::size_t>(std::abs(to - from)), to > from ? Port{1} : Port{0});
      };
      for (auto it = tree.rbegin(); it != tree.rend(); ++it) {
        b.next_round();
        for (const auto& [root, callee] : *it) b.call(callee, along(callee, root));
      }
      for (const auto& round : routes->rounds) {
        b.next_round();
        for (const auto& route : round) {
          std::vector<Port> back(route.ports.rbegin(), route.ports.rend());
          for (Port& p : back) p = p == 2 ? 2 : 1 - p;
          b.call(route.from, route.ports);
          b.call(b.target(route.from, route.ports), back);
        }
      }
      for (const auto& round : tree) {
        b.next_round();
        for (const auto& [root, callee] : round) b.call(root, along(root, callee));
      }
      expect_programs_make(s, b.finish());
      ++compared;
    }
  EXPECT_EQ(compared, 484);  // every even N <= 90, every odd chord 3 <= c <= N/2
}
