// SPDX-License-Identifier: BSD-3-Clause
// The latency family (Monakhova & Monakhov; Barrière, Cohen & Mitjana; Delmas & Pérennes): round counts, route lengths and
// arc-disjointness as the papers state them, checked by stepping through
// every rank; and the simulator's checks of routed calls can fail.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "schedule/chordal_ring.hpp"
#include "schedule/circulant.hpp"
#include "schedule/explicit.hpp"
#include "schedule/lee_code.hpp"
#include "schedule/phases.hpp"
#include "schedule/three_phase.hpp"
#include "report_text.hpp"
#include "simulate/simulate.hpp"

using namespace torusgather;

namespace {

/// A routed schedule written by hand, to feed the simulator defects.
class Handmade final : public ExplicitSchedule {
 public:
  Handmade(const Torus& t, std::vector<std::vector<Call>> calls, int colours = 1) : ExplicitSchedule(t) {
    set_colours(colours);
    set_calls(std::move(calls));
  }
  const char* name() const override { return "handmade"; }
  int claimed_max_link_messages_per_round() const override { return 1; }
};

}  // namespace

// Delmas & Pérennes Prop. 5.8: TM(7)^3 in 4 rounds, cost 4α + 12δ + ...: the dipaths
// of rounds 2-a and 2-b have at most 5 hops and are arc-disjoint.
TEST(LeeCode, SevenCubedInFourRoundsAndTwelveHops) {
  const LeeCodeSchedule s{Torus({7, 7, 7})};
  const auto rep = step_through(s);
  EXPECT_TRUE(rep.complete) << all_errors(rep);
  EXPECT_EQ(rep.rounds, 4);
  EXPECT_EQ(rep.hops_max, 5);
  EXPECT_EQ(rep.hops_sum, 12);
  EXPECT_EQ(rep.max_link_messages_per_round, 1);  // arc-disjoint in every round
  // Round 1: the 294 non-code nodes call their code node; rounds 2-a, 2-b
  // and 3: each of the 49 code nodes makes 6 calls.
  const auto& calls = s.calls();
  ASSERT_EQ(calls.size(), 4u);
  EXPECT_EQ(calls[0].size(), 294u);
  for (int r = 1; r < 4; ++r) EXPECT_EQ(calls[static_cast<std::size_t>(r)].size(), 49u * 6);
  // Round 2-b carries 7 x 7 blocks per call, the broadcast everything the
  // neighbour lacks: all but its own block.
  EXPECT_EQ(block_count(calls[2][0].ranges), 49);
  EXPECT_EQ(block_count(calls[3][0].ranges), 342);
}

// Rounds by the recursion of §5.2 (4i on 7^i; the same shape in 2D and 1D:
// (d+1) per level), and a ring phase on sub-tori the code does not divide.
TEST(LeeCode, RoundsOnEveryShapeItAccepts) {
  struct Case {
    std::vector<int> dims;
    long long rounds;
    long long hops;
  };
  const std::vector<Case> cases = {
      {{3}, 2, 2},         {{9}, 4, 8},           {{27}, 6, 26},       {{6}, 3, 5},        {{12}, 4, 8},
      {{3, 1}, 2, 2},      {{5, 5}, 3, 5},        {{10, 10}, 5, 15},   {{25, 25}, 6, 30},  {{5, 15}, 4, 10},
      {{7, 7, 7}, 4, 12},  {{7, 7, 14}, 5, 19},   {{14, 14, 14}, 7, 33}};
  for (const auto& c : cases) {
    const Torus t(c.dims);
    SCOPED_TRACE(t.to_string());
    const LeeCodeSchedule s{t};
    EXPECT_EQ(s.rounds(), c.rounds);
    const auto rep = step_through(s);
    EXPECT_TRUE(rep.complete) << all_errors(rep);
    EXPECT_EQ(rep.rounds, c.rounds);
    EXPECT_EQ(rep.hops_sum, c.hops);
    EXPECT_EQ(rep.max_link_messages_per_round, 1);
  }
}

// Delmas & Pérennes Prop. 6.3: the large-message variant on TM(7)^3 in 5 rounds and
// 13 hops, the broadcast split into 3-a (each code node sends neighbour y
// the piece m_c(y)) and 3-b (the non-code nodes pass their piece on, the
// code nodes send m_0). The largest messages sum to 1 + 7 + 49 + 48 + 49
// blocks: the paper's 1 + 7 + 3·49 less the receiver's own block in 3-a.
TEST(LeeCode, LargeMessagesSevenCubedInFiveRounds) {
  const LeeCodeSchedule s{Torus({7, 7, 7}), true};
  EXPECT_STREQ(s.name(), "lee-code-large");
  const auto rep = step_through(s);
  EXPECT_TRUE(rep.complete) << all_errors(rep);
  EXPECT_EQ(rep.rounds, 5);
  EXPECT_EQ(rep.hops_sum, 13);
  EXPECT_EQ(rep.max_link_messages_per_round, 1);
  EXPECT_DOUBLE_EQ(rep.blocks_sum, 1 + 7 + 49 + 48 + 49);
  const auto& calls = s.calls();
  ASSERT_EQ(calls.size(), 5u);
  // 3-a: 49 code nodes x 6 neighbours, a 49-block piece less the own block.
  ASSERT_EQ(calls[3].size(), 49u * 6);
  for (const Call& c : calls[3]) {
    EXPECT_EQ(block_count(c.ranges), 48);
    EXPECT_EQ(c.route.size(), 1u);
  }
  // 3-b: every node calls its 6 neighbours except that a node outside the
  // code skips its one code neighbour, which holds everything; each call is
  // one whole piece.
  EXPECT_EQ(calls[4].size(), 343u * 6 - 294);
  for (const Call& c : calls[4]) EXPECT_EQ(block_count(c.ranges), 49);
}

// Prop. 6.4: 5i rounds and 13/9·D δ on 7^i sides; in general one round more
// per level of the recursion than lee-code, one hop of the level's dilation
// more, and far fewer blocks.
TEST(LeeCode, LargeMessagesOneRoundMorePerLevel) {
  struct Case {
    std::vector<int> dims;
    long long rounds, hops, blocks_sum, plain_blocks_sum;
  };
  const std::vector<Case> cases = {
      {{9}, 6, 12, 13, 18},          {{27}, 9, 39, 58, 81},         {{6}, 4, 6, 7, 9},
      {{12}, 5, 9, 14, 18},          {{5, 5}, 4, 6, 15, 30},        {{10, 10}, 6, 16, 75, 135},
      {{25, 25}, 8, 36, 453, 900},   {{5, 15}, 5, 11, 50, 95},      {{7, 7, 7}, 5, 13, 154, 399},
      {{7, 7, 14}, 6, 20, 315, 805}, {{14, 14, 14}, 8, 34, 1281, 3241}};
  for (const auto& c : cases) {
    const Torus t(c.dims);
    SCOPED_TRACE(t.to_string());
    const LeeCodeSchedule plain{t}, large{t, true};
    EXPECT_EQ(large.rounds(), c.rounds);
    const auto rep = step_through(large);
    EXPECT_TRUE(rep.complete) << all_errors(rep);
    EXPECT_EQ(rep.rounds, c.rounds);
    EXPECT_EQ(rep.hops_sum, c.hops);
    EXPECT_DOUBLE_EQ(rep.blocks_sum, c.blocks_sum);
    EXPECT_EQ(rep.max_link_messages_per_round, 1);
    EXPECT_DOUBLE_EQ(step_through(plain).blocks_sum, c.plain_blocks_sum);
  }
  // A ring of 3: every piece is one block, its receiver's own.
  EXPECT_FALSE(LeeCodeSchedule::not_applicable(Torus({3}), true).empty());
  EXPECT_TRUE(LeeCodeSchedule::not_applicable(Torus({3})).empty());
  EXPECT_THROW((LeeCodeSchedule{Torus({3}), true}), std::invalid_argument);
}

TEST(LeeCode, DeclinesOtherShapes) {
  for (const auto& dims : std::vector<std::vector<int>>{{4}, {7}, {4, 4}, {7, 7}, {5, 10, 3}, {5, 5, 5}, {3, 3, 3, 3}}) {
    const Torus t(dims);
    EXPECT_FALSE(LeeCodeSchedule::not_applicable(t).empty()) << t.to_string();
    EXPECT_THROW(LeeCodeSchedule{t}, std::invalid_argument);
  }
}

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

TEST(RoutedSimulator, CatchesSharedArcsAndWrongEnds) {
  const Torus ring({5});
  const Port plus = make_port(0, true);
  // 0 -> 2 and 1 -> 3 both cross the arc 1 -> 2.
  Handmade shared(ring, {{Call{0, 2, {plus, plus}, {{0, 1}}}, Call{1, 3, {plus, plus}, {{1, 2}}}}});
  const auto a = step_through(shared);
  EXPECT_FALSE(a.complete);
  EXPECT_EQ(a.max_link_messages_per_round, 2);
  EXPECT_NE(all_errors(a).find("link load 2"), std::string::npos) << all_errors(a);
  // A route that ends one hop short of the rank called.
  Handmade short_route(ring, {{Call{0, 2, {plus}, {{0, 1}}}}});
  const auto b = step_through(short_route);
  EXPECT_NE(all_errors(b).find("ends at rank 1"), std::string::npos) << all_errors(b);
  // A block the caller does not hold.
  Handmade not_held(ring, {{Call{0, 1, {plus}, {{3, 4}}}}});
  EXPECT_NE(all_errors(step_through(not_held)).find("does not hold"), std::string::npos);
}

// The call-level check (CallChecker, for explicit schedules beyond the
// step-through limit and lee-code streamed beyond what can be kept) must
// catch the same defects as step_through(), and more.
TEST(CallChecker, CatchesWhatStepThroughCatches) {
  const Torus ring({5});
  const Port plus = make_port(0, true);
  Handmade shared(ring, {{Call{0, 2, {plus, plus}, {{0, 1}}}, Call{1, 3, {plus, plus}, {{1, 2}}}}});
  const auto a = check_calls(shared);
  EXPECT_EQ(a.method, "calls");
  EXPECT_FALSE(a.complete);
  EXPECT_EQ(a.max_link_messages_per_round, 2);
  EXPECT_NE(all_errors(a).find("link load 2"), std::string::npos) << all_errors(a);
  EXPECT_NE(all_errors(check_calls(Handmade(ring, {{Call{0, 2, {plus}, {{0, 1}}}}}))).find("ends at rank 1"),
            std::string::npos);
  EXPECT_NE(all_errors(check_calls(Handmade(ring, {{Call{0, 1, {plus}, {{3, 4}}}}}))).find("does not hold"),
            std::string::npos);
  // Rank 2 gets back its own block 2 in round 2; rank 4 gets block 3 twice
  // in round 1 (the second call would land it a second time).
  const Port minus = make_port(0, false);
  Handmade twice(ring, {{Call{0, 1, {plus}, {{0, 1}}}, Call{2, 1, {minus}, {{2, 3}}}, Call{3, 4, {plus}, {{3, 4}}},
                         Call{3, 4, {minus, minus, minus, minus}, {{3, 4}}}},
                        {Call{1, 2, {plus}, {{1, 3}}}}});
  const std::string errors = all_errors(check_calls(twice));
  EXPECT_NE(errors.find("round 2: the call from rank 1 to rank 2 brings block 2"), std::string::npos) << errors;
  EXPECT_NE(errors.find("round 1: the call from rank 3 to rank 4 brings block 3"), std::string::npos) << errors;
  // Ranges out of order.
  EXPECT_NE(all_errors(check_calls(Handmade(ring, {{Call{0, 1, {plus}, {{0, 1}, {0, 1}}}}}))).find("out of order"),
            std::string::npos);
  // A correct but unfinished gossip: every rank lacks blocks.
  const auto unfinished = check_calls(Handmade(ring, {{Call{0, 1, {plus}, {{0, 1}}}}}));
  EXPECT_FALSE(unfinished.complete);
  EXPECT_NE(all_errors(unfinished).find("ends without block"), std::string::npos) << all_errors(unfinished);
  EXPECT_NE(all_errors(unfinished).find("5 ranks end without every block"), std::string::npos) << all_errors(unfinished);
}

// Blocks cut into colours: each colour is its own gossip. Rank 0 and 1 of a
// ring of 2 swap part 0 only: both checkers report part 1 missing; swapping
// part 1 in a second round completes it, at half a block per message.
TEST(CallChecker, KeepsColoursApart) {
  const Torus ring({2});
  const Port plus = make_port(0, true), minus = make_port(0, false);
  const Call a{0, 1, {plus}, {{0, 1}}, 0}, b{1, 0, {minus}, {{1, 2}}, 0};
  Call a1 = a, b1 = b;
  a1.colour = b1.colour = 1;
  const Handmade half(ring, {{a, b}}, 2), both(ring, {{a, b}, {a1, b1}}, 2);
  for (const auto& rep : {step_through(half), check_calls(half)}) {
    EXPECT_FALSE(rep.complete);
    EXPECT_NE(all_errors(rep).find("ends without"), std::string::npos) << all_errors(rep);
  }
  EXPECT_NE(all_errors(check_calls(half)).find("part 1"), std::string::npos) << all_errors(check_calls(half));
  for (const auto& rep : {step_through(both), check_calls(both)}) {
    EXPECT_TRUE(rep.complete) << all_errors(rep);
    EXPECT_EQ(rep.rounds, 2);
    EXPECT_EQ(rep.blocks_sum, 1.0);
    EXPECT_EQ(rep.max_link_blocks_per_round, 0.5);
  }
  // A part the schedule does not have.
  Call c = a;
  c.colour = 2;
  EXPECT_NE(all_errors(check_calls(Handmade(ring, {{c}}, 2))).find("part 2 of blocks cut into 2"), std::string::npos);
}

TEST(CallChecker, AgreesWithStepThroughOnTheLatencyFamily) {
  std::vector<std::unique_ptr<Schedule>> all;
  all.push_back(std::make_unique<LeeCodeSchedule>(Torus({7, 7, 7})));
  all.push_back(std::make_unique<LeeCodeSchedule>(Torus({10, 10}), true));
  all.push_back(std::make_unique<LeeCodeSchedule>(Torus({27})));
  all.push_back(std::make_unique<CirculantSchedule>(Torus({61})));
  all.push_back(std::make_unique<CirculantSchedule>(Torus({50}), 3));
  all.push_back(std::make_unique<ChordalRingSchedule>(Torus({96}), 5));
  for (const auto& s : all) {
    SCOPED_TRACE(std::string(s->name()) + " " + s->torus().to_string());
    const auto a = step_through(*s);
    const auto b = check_calls(*s);
    EXPECT_TRUE(a.complete) << all_errors(a);
    EXPECT_TRUE(b.complete) << all_errors(b);
    EXPECT_EQ(a.rounds, b.rounds);
    EXPECT_EQ(a.max_link_messages_per_round, b.max_link_messages_per_round);
    EXPECT_EQ(a.max_link_blocks_per_round, b.max_link_blocks_per_round);
    EXPECT_EQ(a.volume_per_rank_blocks, b.volume_per_rank_blocks);
    EXPECT_EQ(a.hops_max, b.hops_max);
    EXPECT_EQ(a.hops_sum, b.hops_sum);
    EXPECT_EQ(a.blocks_sum, b.blocks_sum);
  }
}

// Beyond kStepThroughLimit, verify() checks explicit schedules call by call
// (before, it asked them for a structural proof they do not have).
TEST(CallChecker, VerifiesExplicitSchedulesBeyondTheStepThroughLimit) {
  const LeeCodeSchedule s{Torus({21, 21, 21})};
  ASSERT_GT(s.torus().size(), kStepThroughLimit);
  const auto rep = verify(s);
  EXPECT_EQ(rep.method, "calls");
  EXPECT_TRUE(rep.complete) << all_errors(rep);
  EXPECT_EQ(rep.rounds, 7);
  EXPECT_EQ(rep.hops_sum, 33);
}

// stream() hands out exactly the calls the kept schedule stores, in order,
// so what tg-plan checks beyond kMaxRanks is the schedule that would run.
TEST(LeeCode, StreamedCallsAreTheKeptOnes) {
  for (const bool large : {false, true}) {
    const Torus t({7, 7, 14});
    const LeeCodeSchedule kept{t, large};
    std::vector<std::vector<Call>> streamed;
    const auto made = LeeCodeSchedule::stream(t, large, [&](long long round, const Call& c) {
      streamed.resize(static_cast<std::size_t>(round));
      streamed.back().push_back(c);
    });
    EXPECT_EQ(made.rounds, kept.rounds());
    EXPECT_EQ(made.hops, kept.claimed_hops_sum());
    EXPECT_EQ(made.construction, kept.construction());
    ASSERT_EQ(streamed.size(), kept.calls().size());
    for (std::size_t r = 0; r < streamed.size(); ++r) {
      ASSERT_EQ(streamed[r].size(), kept.calls()[r].size()) << r;
      for (std::size_t k = 0; k < streamed[r].size(); ++k) {
        EXPECT_EQ(streamed[r][k].from, kept.calls()[r][k].from);
        EXPECT_EQ(streamed[r][k].to, kept.calls()[r][k].to);
        EXPECT_EQ(streamed[r][k].route, kept.calls()[r][k].route);
        EXPECT_EQ(streamed[r][k].ranges, kept.calls()[r][k].ranges);
      }
    }
  }
  EXPECT_FALSE(LeeCodeSchedule::not_applicable(Torus({28, 28, 28})).empty());
  EXPECT_TRUE(LeeCodeSchedule::not_streamable(Torus({28, 28, 28})).empty());
  EXPECT_FALSE(LeeCodeSchedule::not_streamable(Torus({56, 56, 56})).empty());
  EXPECT_THROW(LeeCodeSchedule::stream(Torus({8, 8}), false, [](long long, const Call&) {}), std::invalid_argument);
}

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
      for (const auto& round : s.calls()) {
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

// The hierarchical three-phase (Barrière, Cohen & Mitjana's phases with the machine's nodes as
// components): 2⌈log2 g⌉ + the leaders' gossip (⌈log2 r⌉ for r even,
// Algorithm 3's for r odd) rounds, one call per ordered pair and round,
// complete; for nodes of consecutive ranks, of unequal sizes, and for
// nodes that interleave.
TEST(ThreePhase, RoundsForNodesOfEverySize) {
  struct Case {
    int ranks, node_size;
    long long rounds;
  };
  // (8, 2): 1 + 2 + 1; (7, 3): nodes 3, 3, 1: 2 + 3 + 2; (64, 4): 2 + 4 + 2;
  // (25, 6): nodes 6, 6, 6, 6, 1: 3 + 4 + 3; (343, 7): 49 nodes, 3 + 7 + 3;
  // (12, 12): one node, 4 + 0 + 4; (12, 1): K_12's 4; (9, 1): Algorithm 3 on
  // 9 ranks: 1 + 3 (n' = 6) + 1.
  const std::vector<Case> cases = {{8, 2, 4},  {7, 3, 7},   {64, 4, 8}, {25, 6, 10}, {343, 7, 13},
                                   {12, 12, 8}, {12, 1, 4}, {9, 1, 5},  {2, 1, 1},   {2, 2, 2},
                                   {100, 10, 12}, {96, 8, 10}};
  for (const auto& c : cases) {
    SCOPED_TRACE(std::to_string(c.ranks) + " ranks, nodes of " + std::to_string(c.node_size));
    std::vector<int> node_of(static_cast<std::size_t>(c.ranks));
    for (int r = 0; r < c.ranks; ++r) node_of[static_cast<std::size_t>(r)] = r / c.node_size;
    const ThreePhaseSchedule s{Torus({c.ranks}), node_of};
    EXPECT_EQ(s.rounds(), c.rounds);
    EXPECT_EQ(s.nodes(), (c.ranks + c.node_size - 1) / c.node_size);
    const auto rep = step_through(s);
    EXPECT_TRUE(rep.complete) << all_errors(rep);
    EXPECT_EQ(rep.rounds, c.rounds);
    EXPECT_EQ(rep.max_link_messages_per_round, 1);
    // Only leaders call across nodes, and only in the gossip rounds.
    const auto& calls = s.calls();
    const long long inner = (s.rounds() - static_cast<long long>(complete_gossip(s.nodes()).size())) / 2;
    for (std::size_t k = 0; k < calls.size(); ++k)
      for (const Call& call : calls[k]) {
        const bool across = node_of[static_cast<std::size_t>(call.from)] != node_of[static_cast<std::size_t>(call.to)];
        const bool gossip = static_cast<long long>(k) >= inner && static_cast<long long>(k) < s.rounds() - inner;
        EXPECT_EQ(across, gossip) << "round " << k + 1 << ": " << call.from << " -> " << call.to;
        if (across) {
          EXPECT_EQ(call.from % c.node_size, 0);
          EXPECT_EQ(call.to % c.node_size, 0);
        }
      }
  }
}

TEST(ThreePhase, NodesNeedNotBeRunsOfRanks) {
  // Round-robin placement: rank r on node r mod 3 (12 ranks, nodes of 4
  // with leaders 0, 1, 2); and a map with arbitrary labels.
  std::vector<int> round_robin(12), labels = {7, 7, -2, 7, 40, -2, 40, 40, 7};
  for (int r = 0; r < 12; ++r) round_robin[static_cast<std::size_t>(r)] = r % 3;
  for (const auto& node_of : {round_robin, labels}) {
    const ThreePhaseSchedule s{Torus({static_cast<int>(node_of.size())}), node_of};
    EXPECT_EQ(s.nodes(), 3);
    EXPECT_EQ(s.rounds(), ThreePhaseSchedule::formula_rounds(4, 3));
    const auto rep = step_through(s);
    EXPECT_TRUE(rep.complete) << all_errors(rep);
    EXPECT_EQ(rep.rounds, s.rounds());
    EXPECT_EQ(rep.max_link_messages_per_round, 1);
  }
  EXPECT_FALSE(ThreePhaseSchedule::not_applicable(Torus({1})).empty());
  EXPECT_FALSE(ThreePhaseSchedule::not_applicable(Torus({4}), {0, 0, 1}).empty());
  EXPECT_THROW((ThreePhaseSchedule{Torus({4}), {0, 0, 1}}), std::invalid_argument);
}
