// SPDX-License-Identifier: BSD-3-Clause
// auto does not profile a candidate whose rounds alone put it behind three
// others: the bound must hold (never above its real prediction), and the
// candidate must really be behind (its real prediction after the third).
// Nor one whose calls list their blocks, where that listing and one round
// put it behind three others.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/closed_form.hpp"
#include "model/predictions.hpp"
#include "model_context.hpp"
#include "schedule/partial_cycles.hpp"
#include "schedule/registry.hpp"

using namespace torusgather;


TEST(Unprofiled, BoundHoldsAndTheCandidateIsBehind) {
  int left_out = 0, checked = 0, listing = 0;
  for (const auto& [dims, k] : std::vector<std::pair<std::vector<int>, int>>{
           {{16, 16}, 1}, {{32, 16}, 1}, {{12, 8}, 1}, {{5, 7}, 1}, {{6, 6, 6}, 1}, {{4, 4, 4, 4}, 1}, {{4, 4, 8, 4}, 4}}) {
    const Torus t(dims);
    for (double alpha : {1e-6, 20e-6}) {
      Machine m;
      m.alpha = alpha;
      m.overhead = 0.2e-6;
      m.node_ranks = k;
      ModelView c(t, m);
      for (long long bytes : {8LL, 1024LL, 65536LL, 1LL << 20}) {
        std::vector<Candidate> table;
        int best = -1;
        ASSERT_EQ(predict_all(c.ctx, bytes, nullptr, &table, &best), 0);
        std::vector<double> times;
        for (const Candidate& x : table)
          if (x.profile && !x.pick.vendor && !x.named_only) times.push_back(x.predicted);
        std::sort(times.begin(), times.end());
        for (const Candidate& x : table) {
          if (x.at_least <= 0) continue;
          ++left_out;
          // Its real prediction, as if it had been profiled.
          std::string why;
          const auto s = try_build(algorithm(x.pick.id), t, &why);
          ASSERT_TRUE(s) << why;
          const CostProfile p = profile(*s, t.size(), &t, k);
          const double real = predict(p, m, static_cast<double>(bytes)) + x.per_call;
          const std::string what = x.pick.name() + " on " + t.to_string() + " at " + std::to_string(bytes) + " B";
          EXPECT_LE(x.at_least, real) << what;
          EXPECT_GE(x.at_least_rounds, 1) << what;
          if (algorithm(x.pick.id).profile.listing_ns_per_block > 0) ++listing;
          ASSERT_GE(times.size(), 3u) << what;
          EXPECT_GT(real, times[2]) << what;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(left_out, 20);
  EXPECT_GT(listing, 5);  // left out for their listing (and one round)
  EXPECT_EQ(checked, left_out);
}

// The bound on partial-cycles' rounds is the rounds of what it builds, also
// where the order with the longest last side fails (4x4x8x4 builds with a
// last side of 4, 2x512 with 2: 512 rounds, not 257).
TEST(Unprofiled, PartialCyclesRoundsAtLeast) {
  int checked = 0;
  for (const std::vector<int>& dims : std::vector<std::vector<int>>{
           {4, 4}, {16, 16}, {12, 8}, {5, 7}, {3, 3}, {6, 6, 6}, {4, 4, 4, 4}, {2, 4, 6}, {4, 4, 8, 4}, {2, 512}}) {
    const Torus t(dims);
    if (!PartialCyclesSchedule::not_applicable(t).empty()) continue;
    const PartialCyclesSchedule s(t);
    EXPECT_EQ(PartialCyclesSchedule::rounds_at_least(t), profile(s, t.size(), &t, 1).rounds()) << t.to_string();
    EXPECT_GE(PartialCyclesSchedule::rounds_at_least(t), t.size() / t.ndims() / 2) << t.to_string();
    ++checked;
  }
  EXPECT_GE(checked, 8);
  EXPECT_EQ(PartialCyclesSchedule::rounds_at_least(Torus({2, 512})), 512);
}
