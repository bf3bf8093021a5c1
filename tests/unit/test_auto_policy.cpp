// SPDX-License-Identifier: BSD-3-Clause
// auto's policy without MPI (lib/model/auto_policy): waiting to learn, and
// the model's prediction as the prior of a trial.
#include <gtest/gtest.h>

#include <vector>

#include "model/auto_policy.hpp"
#include "model/cost.hpp"

namespace tg = torusgather;

namespace {

/// Inputs whose model predicts `rings` for dim-rings, `bruck` for
/// torus-bruck and `vendor` for the vendor (seconds), counting its calls.
tg::AutoInputs inputs(double rings, double bruck, double vendor, int* predictions) {
  tg::AutoInputs in;
  in.may_measure = true;
  in.trials_per_candidate = [](long) { return 15; };
  in.predict = [=](std::vector<tg::Candidate>* rows, int* best) {
    ++*predictions;
    static const tg::CostProfile profile;  // ranked() takes the rows that have one
    tg::Candidate a, b, v;
    a.profile = b.profile = v.profile = &profile;
    a.pick = tg::Pick::of(tg::AlgorithmId::dim_rings);
    a.predicted = rings;
    b.pick = tg::Pick::of(tg::AlgorithmId::torus_bruck);
    b.predicted = bruck;
    v.pick = tg::Pick::the_vendor();
    v.predicted = vendor;
    *rows = {a, b, v};
    *best = rings <= vendor ? 0 : 2;
    return 0;
  };
  return in;
}

}  // namespace

TEST(AutoPolicy, WaitingToLearnHandsTheCallToTheVendorWithoutTheModel) {
  tg::AutoState state;
  int predictions = 0;
  tg::AutoInputs in = inputs(1e-6, 1e-6, 1e-6, &predictions);
  in.learning_allowed = false;
  tg::AutoDecision d;
  ASSERT_EQ(tg::decide_auto(state, in, 8, &d), 0);
  EXPECT_TRUE(d.waiting);
  ASSERT_EQ(d.ranked.size(), 1u);
  EXPECT_TRUE(d.ranked[0].vendor);
  EXPECT_EQ(d.trial_class, tg::kNoTrial);
  EXPECT_EQ(predictions, 0);  // no calibration, no profiles
  // A measured class runs its winner even while waiting.
  state.measured[tg::size_class(8)] = tg::Pick::of(tg::AlgorithmId::dim_rings);
  ASSERT_EQ(tg::decide_auto(state, in, 8, &d), 0);
  EXPECT_FALSE(d.waiting);
  EXPECT_EQ(d.ranked[0], tg::Pick::of(tg::AlgorithmId::dim_rings));
}

TEST(AutoPolicy, TheModelAsPriorLeavesOutCandidatesItPutsAtTwiceTheVendor) {
  int predictions = 0;
  {
    tg::AutoState state;
    tg::AutoDecision d;
    // dim-rings predicted 1.5x the vendor: tried; torus-bruck 2x: not.
    ASSERT_EQ(tg::decide_auto(state, inputs(1.5e-6, 2e-6, 1e-6, &predictions), 8, &d), 0);
    EXPECT_NE(d.trial_class, tg::kNoTrial);
    const tg::Trial& t = state.trials.at(d.trial_class);
    ASSERT_EQ(t.picks.size(), 2u);
    EXPECT_EQ(t.picks[0], tg::Pick::of(tg::AlgorithmId::dim_rings));
    EXPECT_TRUE(t.picks[1].vendor);
  }
  {
    // Both at 2x or more: no trial, the vendor.
    tg::AutoState state;
    tg::AutoDecision d;
    ASSERT_EQ(tg::decide_auto(state, inputs(2e-6, 3e-6, 1e-6, &predictions), 8, &d), 0);
    EXPECT_EQ(d.trial_class, tg::kNoTrial);
    EXPECT_TRUE(state.trials.empty());
    ASSERT_FALSE(d.ranked.empty());
    EXPECT_TRUE(d.ranked[0].vendor);
  }
  {
    // A model on defaults (a rejected calibration) leaves no one out.
    tg::AutoState state;
    tg::AutoDecision d;
    tg::AutoInputs in = inputs(2e-6, 3e-6, 1e-6, &predictions);
    in.prior_trusted = [] { return false; };
    ASSERT_EQ(tg::decide_auto(state, in, 8, &d), 0);
    ASSERT_NE(d.trial_class, tg::kNoTrial);
    EXPECT_EQ(state.trials.at(d.trial_class).picks.size(), 3u);
    EXPECT_FALSE(state.trials.at(d.trial_class).early_win);  // nor wins before the last round
  }
}
