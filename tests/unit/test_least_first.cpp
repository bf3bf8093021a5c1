// SPDX-License-Identifier: BSD-3-Clause
// least_first picks what trying every option in turn picks, ties included,
// and works out fewer costs.
#include <gtest/gtest.h>

#include <random>
#include <utility>
#include <vector>

#include "schedule/least_first.hpp"

using namespace torusgather;

TEST(LeastFirst, PicksWhatTryingEveryOptionInTurnPicks) {
  std::mt19937 rng(7);
  int fewer = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    // Costs on a coarse grid, so that ties in time and in steps are common.
    const int n = 1 + static_cast<int>(rng() % 40);
    std::vector<std::pair<double, long long>> costs(static_cast<std::size_t>(n + 1));
    std::vector<Option<int>> options;
    for (int i = 0; i <= n; ++i) {
      costs[static_cast<std::size_t>(i)] = {static_cast<double>(rng() % 8), static_cast<long long>(rng() % 3)};
      if (i > 0) options.push_back({i, costs[static_cast<std::size_t>(i)].first - static_cast<double>(rng() % 4)});
    }
    int in_turn = 0;  // option 0 is the start
    for (int i = 1; i <= n; ++i)
      if (costs[static_cast<std::size_t>(i)] < costs[static_cast<std::size_t>(in_turn)]) in_turn = i;
    int worked_out = 0;
    const int picked = least_first(0, options, [&](int i) {
      ++worked_out;
      return costs[static_cast<std::size_t>(i)];
    });
    ASSERT_EQ(picked, in_turn) << "trial " << trial;
    fewer += worked_out < n + 1;
  }
  EXPECT_GT(fewer, 1000);
}
