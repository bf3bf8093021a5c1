// SPDX-License-Identifier: BSD-3-Clause
// The three-phase pieces seen from one rank (schedule/phases.hpp): each
// against the whole construction it answers for.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "schedule/phases.hpp"

using namespace torusgather;

// halving_calls_of(lo, hi, root, self) lists exactly the calls of
// halving_broadcast that self makes or takes, at their depth, and the run
// a callee roots is the set of labels the broadcast reaches through it.
TEST(Phases, HalvingCallsOfOneLabelMatchTheBroadcast) {
  for (Rank size = 1; size <= 70; ++size)
    for (Rank root = 0; root < size; ++root) {
      const Rank lo = 5, hi = 5 + size;
      const auto rounds = halving_broadcast(lo, hi, lo + root);
      std::vector<Rank> parent(static_cast<std::size_t>(size), -1);
      for (const auto& round : rounds)
        for (const auto& [from, to] : round) parent[static_cast<std::size_t>(to - lo)] = from;
      auto reached_through = [&](Rank via, Rank x) {
        for (; x != -1; x = parent[static_cast<std::size_t>(x - lo)])
          if (x == via) return true;
        return false;
      };
      for (Rank self = lo; self < hi; ++self) {
        std::vector<HalvingCall> want;
        for (std::size_t d = 0; d < rounds.size(); ++d)
          for (const auto& [from, to] : rounds[d])
            if (from == self || to == self) want.push_back({static_cast<int>(d), from, to, 0, 0});
        const auto got = halving_calls_of(lo, hi, lo + root, self);
        ASSERT_EQ(got.size(), want.size()) << size << " " << root << " " << self;
        for (std::size_t i = 0; i < got.size(); ++i) {
          EXPECT_EQ(got[i].depth, want[i].depth);
          EXPECT_EQ(got[i].root, want[i].root);
          EXPECT_EQ(got[i].callee, want[i].callee);
          for (Rank x = lo; x < hi; ++x)
            EXPECT_EQ(x >= got[i].lo && x < got[i].hi, reached_through(got[i].callee, x))
                << "size " << size << ", callee " << got[i].callee << ", label " << x;
        }
      }
    }
}

// gossip_pair, gossip_groups and gossip_holding against complete_gossip stepped through
// with every node's holdings (Algorithm 2 for even r, 3 for odd r).
TEST(Phases, GossipPairsAndHoldingsInClosedFormEqualSteppedThrough) {
  std::vector<int> sizes;
  for (int r = 1; r <= 130; ++r) sizes.push_back(r);
  for (int r : {255, 256, 257, 511, 1001}) sizes.push_back(r);
  for (int r : sizes) {
    const auto rounds = complete_gossip(r);
    ASSERT_EQ(gossip_round_count(r), static_cast<int>(rounds.size())) << r;
    std::vector<std::vector<char>> held(static_cast<std::size_t>(r), std::vector<char>(static_cast<std::size_t>(r), 0));
    for (int k = 0; k < r; ++k) held[static_cast<std::size_t>(k)][static_cast<std::size_t>(k)] = 1;
    auto check_holdings = [&](int t) {
      for (int k = 0; k < r; ++k) {
        std::vector<char> got(static_cast<std::size_t>(r), 0);
        for (const auto& [a, b] : gossip_holding(r, t, k)) {
          ASSERT_TRUE(0 <= a && a < b && b <= r) << "r " << r << " t " << t << " k " << k;
          for (int x = a; x < b; ++x) got[static_cast<std::size_t>(x)] = 1;
        }
        ASSERT_EQ(got, held[static_cast<std::size_t>(k)]) << "r " << r << ", before round " << t << ", node " << k;
      }
    };
    for (int t = 0; t < static_cast<int>(rounds.size()); ++t) {
      check_holdings(t);
      EXPECT_EQ(gossip_groups(r, t), rounds[static_cast<std::size_t>(t)].groups) << "r " << r << " t " << t;
      std::vector<std::pair<int, int>> want(static_cast<std::size_t>(r), {-1, -1});
      for (const auto& pr : rounds[static_cast<std::size_t>(t)].pairs)
        want[static_cast<std::size_t>(pr.first)] = want[static_cast<std::size_t>(pr.second)] = pr;
      for (int k = 0; k < r; ++k)
        ASSERT_EQ(gossip_pair(r, t, k), want[static_cast<std::size_t>(k)]) << "r " << r << " t " << t << " k " << k;
      auto next = held;
      for (const auto& [x, y] : rounds[static_cast<std::size_t>(t)].pairs)
        for (int b = 0; b < r; ++b) {
          next[static_cast<std::size_t>(x)][static_cast<std::size_t>(b)] |= held[static_cast<std::size_t>(y)][static_cast<std::size_t>(b)];
          next[static_cast<std::size_t>(y)][static_cast<std::size_t>(b)] |= held[static_cast<std::size_t>(x)][static_cast<std::size_t>(b)];
        }
      held = std::move(next);
    }
    check_holdings(static_cast<int>(rounds.size()));
    for (int k = 0; k < r; ++k) ASSERT_EQ(gossip_pair(r, static_cast<int>(rounds.size()), k), std::pair(-1, -1));
  }
}

TEST(Phases, IntervalsLessIntervals) {
  EXPECT_EQ(minus({{0, 10}}, {{2, 3}, {5, 7}}), (NodeIntervals{{0, 2}, {3, 5}, {7, 10}}));
  EXPECT_EQ(minus({{0, 4}, {6, 9}}, {{3, 7}}), (NodeIntervals{{0, 3}, {7, 9}}));
  EXPECT_EQ(minus({{0, 4}}, {{0, 4}}), NodeIntervals{});
  EXPECT_EQ(minus({{2, 4}}, {}), (NodeIntervals{{2, 4}}));
}
