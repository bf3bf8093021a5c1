// SPDX-License-Identifier: BSD-3-Clause
// The simulator must reject broken schedules (stepped through, routed calls,
// call by call), and its methods must agree.
#include <gtest/gtest.h>

#include <functional>
#include <memory>

#include "schedule/chordal_ring.hpp"
#include "schedule/circulant.hpp"
#include "schedule/dim_rings.hpp"
#include "schedule/explicit.hpp"
#include "schedule/hamiltonian.hpp"
#include "schedule/lee_code.hpp"
#include "schedule/partial_cycles.hpp"
#include "schedule/three_phase.hpp"
#include "schedule_checks.hpp"
#include "simulate/simulate.hpp"

using namespace torusgather;

namespace {

/// dim-rings (or another schedule) with a defect injected into every rank's program.
class Mutated final : public Schedule {
 public:
  using Mutation = std::function<void(Rank, long long, RoundOps&)>;
  Mutated(const Torus& t, Mutation m, long long rounds_delta = 0, int link_delta = 0)
      : Mutated(std::make_shared<DimRingsSchedule>(t), std::move(m), rounds_delta, link_delta) {}
  Mutated(std::shared_ptr<const Schedule> inner, Mutation m, long long rounds_delta = 0, int link_delta = 0)
      : Schedule(inner->torus()),
        inner_(std::move(inner)),
        mutation_(std::move(m)),
        rounds_delta_(rounds_delta),
        link_delta_(link_delta) {}
  const char* name() const override { return "mutated"; }
  long long rounds() const override { return inner_->rounds() + rounds_delta_; }
  int colours() const override { return inner_->colours(); }
  bool independent_colours() const override { return inner_->independent_colours(); }
  Piece colour_piece(int colour) const override { return inner_->colour_piece(colour); }
  int claimed_max_link_messages_per_round() const override {
    return inner_->claimed_max_link_messages_per_round() + link_delta_;
  }
  std::unique_ptr<RankProgram> program(Rank r) const override {
    struct P final : RankProgram {
      std::unique_ptr<RankProgram> inner;
      const Mutated* outer;
      Rank self;
      long long round = 0;
      void next_round(RoundOps& ops) override {
        ++round;
        if (round <= outer->inner_->rounds()) inner->next_round(ops);
        else ops.clear();
        outer->mutation_(self, round, ops);
      }
    };
    auto p = std::make_unique<P>();
    p->inner = inner_->program(r);
    p->outer = this;
    p->self = r;
    return p;
  }

 private:
  std::shared_ptr<const Schedule> inner_;
  Mutation mutation_;
  long long rounds_delta_;
  int link_delta_;
};

bool reports(const SimulationReport& rep, const std::string& fragment) {
  for (const auto& e : rep.errors)
    if (e.find(fragment) != std::string::npos) return true;
  return false;
}

/// Rows and columns as "cycles": a valid pairing of ports, but each colour
/// forms n1 (or n2) short cycles, not one Hamiltonian cycle.
class StraightLines final : public CycleSchedule {
 public:
  using CycleSchedule::CycleSchedule;
  const char* name() const override { return "straight-lines"; }
  Port partner(Rank, Port in) const override { return opposite(in); }
  int colour(Rank, Port p) const override { return port_axis(p); }
};

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

TEST(Simulator, AcceptsTheUnmodifiedSchedule) {
  const Mutated s(Torus({4, 6}), [](Rank, long long, RoundOps&) {});
  EXPECT_TRUE(step_through(s).complete);
}

TEST(Simulator, DetectsAMissingMessage) {
  const Mutated s(Torus({4, 6}), [](Rank r, long long round, RoundOps& ops) {
    if (r == 5 && round == 2) ops.sends.pop_back();
  });
  const auto rep = step_through(s);
  EXPECT_FALSE(rep.complete);
  EXPECT_TRUE(reports(rep, "nothing sent for"));
  EXPECT_TRUE(reports(rep, "ends without"));
}

TEST(Simulator, DetectsSenderAndReceiverDisagreeing) {
  const Mutated s(Torus({4, 6}), [](Rank r, long long round, RoundOps& ops) {
    if (r == 3 && round == 1) ops.sends.front().blocks.origin = 0;
  });
  const auto rep = step_through(s);
  EXPECT_FALSE(rep.complete);
  EXPECT_TRUE(reports(rep, "expected"));
}

TEST(Simulator, DetectsSendingWhatIsNotHeld) {
  // Everyone forwards, in round 1, blocks it will only receive later.
  const Mutated s(Torus({5, 5}), [](Rank, long long round, RoundOps& ops) {
    if (round == 1)
      for (auto& x : ops.sends) x.blocks.origin = 12;
    if (round == 1)
      for (auto& x : ops.recvs) x.blocks.origin = 12;
  });
  EXPECT_TRUE(reports(step_through(s), "does not hold"));
}

TEST(Simulator, DetectsADuplicateDelivery) {
  // An extra round repeating round 1 delivers everything a second time.
  const Torus t({3, 3});
  auto plain = std::make_shared<DimRingsSchedule>(t);
  const Mutated s(
      t,
      [plain](Rank r, long long round, RoundOps& ops) {
        if (round == 3) plain->program(r)->next_round(ops);
      },
      1);
  const auto rep = step_through(s);
  EXPECT_FALSE(rep.complete);
  EXPECT_TRUE(reports(rep, "twice"));
}

TEST(Simulator, DetectsFalseClaims) {
  EXPECT_TRUE(reports(step_through(Mutated(Torus({4, 4}), [](Rank, long long, RoundOps&) {}, 0, 1)), "claimed"));
  const auto rep = step_through(Mutated(Torus({4, 4}), [](Rank, long long, RoundOps&) {}, 2));
  EXPECT_FALSE(rep.complete);
  EXPECT_TRUE(reports(rep, "differ from the construction"));
}

TEST(Simulator, RejectsCyclesThatAreNotHamiltonian) {
  const StraightLines s(Torus({4, 6}));
  EXPECT_FALSE(s.prove().complete);
  EXPECT_FALSE(prove_structure(s).complete);
  EXPECT_FALSE(step_through(s).complete);
}

// The structural proof and the round-by-round run agree wherever both run.
TEST(Simulator, StructuralProofAgreesWithStepThrough) {
  for (const auto& dims : std::vector<std::vector<int>>{{2, 2}, {6, 8}, {8, 6}, {10, 4}, {16, 16}, {2, 64}, {64, 64}}) {
    const HamiltonianSchedule h{Torus(dims)};
    const DimRingsSchedule r{Torus(dims)};
    for (const Schedule* s : {static_cast<const Schedule*>(&h), static_cast<const Schedule*>(&r)}) {
      SCOPED_TRACE(std::string(s->name()) + " " + s->torus().to_string());
      const auto a = step_through(*s);
      const auto b = prove_structure(*s);
      EXPECT_TRUE(a.complete);
      EXPECT_TRUE(b.complete);
      EXPECT_EQ(a.rounds, b.rounds);
      EXPECT_EQ(a.max_link_messages_per_round, b.max_link_messages_per_round);
      EXPECT_DOUBLE_EQ(a.max_link_blocks_per_round, b.max_link_blocks_per_round);
      EXPECT_DOUBLE_EQ(a.volume_per_rank_blocks, b.volume_per_rank_blocks);
    }
  }
}

TEST(Simulator, VerifyStepsThroughSmallToriAndProvesLargeOnes) {
  EXPECT_EQ(verify(HamiltonianSchedule(Torus({64, 64}))).method, "step-through");
  const auto big = verify(HamiltonianSchedule(Torus({1000, 1000})));
  EXPECT_EQ(big.method, "structural");
  EXPECT_TRUE(big.complete);
  EXPECT_EQ(big.rounds, 500000);
}

// Relay receives (copies of held blocks, partial-cycles-ti) are the one
// exception to "nothing arrives twice", and only when they are copies.
TEST(Simulator, RelayReceivesMustBeCopiesAndCopiesMustBeRelays) {
  const auto ti = std::make_shared<PartialCyclesSchedule>(Torus({6, 8}), true);
  const SimulationReport ok = step_through(*ti);
  EXPECT_TRUE(ok.complete) << (ok.errors.empty() ? "" : ok.errors.front());
  EXPECT_GT(ok.relayed_blocks, 0.0);

  // A first arrival marked as a copy: the block is never really received.
  const Mutated early(ti, [](Rank r, long long round, RoundOps& ops) {
    if (r == 0 && round == 1)
      for (auto& x : ops.recvs) x.relay = true;
  });
  EXPECT_TRUE(reports(step_through(early), "relays part of block"));

  // A copy not marked as one: it arrives twice.
  const Mutated unmarked(ti, [](Rank, long long, RoundOps& ops) {
    for (auto& x : ops.recvs) x.relay = false;
  });
  EXPECT_TRUE(reports(step_through(unmarked), "twice"));
}

// Where colours run as streams the executor cannot keep relay scratch round
// by round: a relay receive there is refused.
TEST(Simulator, RelayReceivesAreRefusedWhereColoursAreStreams) {
  const auto streams = std::make_shared<DimRingsSchedule>(Torus({4, 4}));
  ASSERT_TRUE(streams->independent_colours());
  const Mutated relay(streams, [](Rank r, long long round, RoundOps& ops) {
    if (r == 0 && round == 2) ops.recvs.front().relay = true;
  });
  EXPECT_TRUE(reports(step_through(relay), "whose colours run as streams"));
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
