// SPDX-License-Identifier: BSD-3-Clause
#include <gtest/gtest.h>

#include <stdexcept>

#include "topology/torus.hpp"

using namespace torusgather;

TEST(Torus, RowMajorLikeMpiCartCreate) {
  const Torus t({3, 4, 5});
  EXPECT_EQ(t.size(), 60);
  EXPECT_EQ(t.stride(2), 1);
  EXPECT_EQ(t.stride(1), 5);
  EXPECT_EQ(t.stride(0), 20);
  for (Rank r = 0; r < t.size(); ++r) {
    const auto c = t.coords(r);
    EXPECT_EQ(r, c[0] * 20 + c[1] * 5 + c[2]);
    EXPECT_EQ(t.rank(c), r);
  }
}

TEST(Torus, NeighboursWrapAround) {
  const Torus t({4, 6});
  const Rank corner = t.rank({0, 0});
  EXPECT_EQ(t.neighbor(corner, make_port(0, false)), t.rank({3, 0}));
  EXPECT_EQ(t.neighbor(corner, make_port(0, true)), t.rank({1, 0}));
  EXPECT_EQ(t.neighbor(corner, make_port(1, false)), t.rank({0, 5}));
  EXPECT_EQ(t.neighbor(corner, make_port(1, true)), t.rank({0, 1}));
  for (Rank r = 0; r < t.size(); ++r)
    for (Port p = 0; p < t.ports(); ++p) EXPECT_EQ(t.neighbor(t.neighbor(r, p), opposite(p)), r);
}

TEST(Torus, SidesOfOneAndTwo) {
  const Torus t({1, 2, 3});
  // A side of 1: both ports lead back to the rank itself.
  EXPECT_EQ(t.neighbor(4, make_port(0, false)), 4);
  EXPECT_EQ(t.neighbor(4, make_port(0, true)), 4);
  // A side of 2: both ports lead to the same rank, yet are distinct ports.
  EXPECT_EQ(t.neighbor(t.rank({0, 0, 1}), make_port(1, false)), t.rank({0, 1, 1}));
  EXPECT_EQ(t.neighbor(t.rank({0, 0, 1}), make_port(1, true)), t.rank({0, 1, 1}));
  EXPECT_NE(make_port(1, false), make_port(1, true));
}

TEST(Torus, ShiftAndClearAxes) {
  const Torus t({5, 7});
  EXPECT_EQ(t.shift(t.rank({2, 3}), 1, -10), t.rank({2, 0}));
  EXPECT_EQ(t.shift(t.rank({2, 3}), 0, 13), t.rank({0, 3}));
  EXPECT_EQ(t.clear_axes(t.rank({2, 3}), 1u << 1), t.rank({2, 0}));
  EXPECT_EQ(t.clear_axes(t.rank({2, 3}), 3u), 0);
}

TEST(Torus, RejectsBadShapes) {
  EXPECT_THROW(Torus({}), std::invalid_argument);
  EXPECT_THROW(Torus({4, 0}), std::invalid_argument);
}

TEST(ParseDims, AcceptsTheUsualForms) {
  EXPECT_EQ(parse_dims("8x8"), (std::vector<int>{8, 8}));
  EXPECT_EQ(parse_dims("4x4x4"), (std::vector<int>{4, 4, 4}));
  EXPECT_EQ(parse_dims("12"), (std::vector<int>{12}));
  EXPECT_EQ(parse_dims("2,3"), (std::vector<int>{2, 3}));
  EXPECT_EQ(Torus(parse_dims("6X8")).to_string(), "6x8");
}

TEST(ParseDims, RejectsMalformedText) {
  for (const char* bad : {"", "x", "8x", "x8", "8xx8", "0x4", "a", "8x-2", "8 x 8", "99999999999x2"})
    EXPECT_THROW(parse_dims(bad), std::invalid_argument) << bad;
}
