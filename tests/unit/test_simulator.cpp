// SPDX-License-Identifier: BSD-3-Clause
// The simulator must reject broken schedules, and its two methods must agree.
#include <gtest/gtest.h>

#include <functional>
#include <memory>

#include "schedule/dim_rings.hpp"
#include "schedule/hamiltonian.hpp"
#include "schedule/partial_cycles.hpp"
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
