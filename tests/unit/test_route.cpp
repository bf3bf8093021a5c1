// SPDX-License-Identifier: BSD-3-Clause
// The dimension-order route every stepped profile charges a routed message
// to: neighbour by neighbour, the shorter way round a ring (+ on a tie),
// straight along an open axis, ending at its target.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "model/route.hpp"

using namespace torusgather;

TEST(Route, EveryPairHopByHopToItsTarget) {
  int pairs = 0;
  for (const char* shape : {"7", "6m", "2x2", "4x4", "5mx5", "3x2x5", "4x3mx2", "5x4x3x2", "2x3mx2x3x2x2"}) {
    std::uint32_t open = 0;
    const Torus t(parse_dims(shape, &open), 0, open);
    for (Rank from = 0; from < t.size(); ++from)
      for (Rank to = 0; to < t.size(); ++to) {
        Rank at = from;
        int axis = 0, expected = 0;
        const int hops = walk_route(t, from, to, [&](Rank r, Port p) {
          EXPECT_EQ(r, at) << shape;
          EXPECT_GE(port_axis(p), axis) << shape << ": axes in order";
          EXPECT_TRUE(t.has_link(r, p)) << shape;
          axis = port_axis(p);
          at = t.neighbor(r, p);
        });
        EXPECT_EQ(at, to) << shape << " " << from << " -> " << to;
        for (int a = 0; a < t.ndims(); ++a) {
          const int d = std::abs(t.coord(to, a) - t.coord(from, a));
          expected += t.open(a) ? d : std::min(d, t.dim(a) - d);
        }
        EXPECT_EQ(hops, expected) << shape << " " << from << " -> " << to;
        if (::testing::Test::HasFailure()) return;
        ++pairs;
      }
  }
  EXPECT_GT(pairs, 30000);
}
