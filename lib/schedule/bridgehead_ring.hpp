// SPDX-License-Identifier: BSD-3-Clause
// circgos(n, a, b) with k packets on one ring of n positions: its calls,
// made into a GossipBuilder, and its loads for the cost profile. Every ring
// of an axis runs the same steps, so the bridgehead family derives a rank's
// calls and the schedule's loads from one ring (bridgehead.cpp).
#pragma once

#include <memory>
#include <vector>

#include "schedule/bridgehead.hpp"
#include "schedule/explicit.hpp"

namespace torusgather {
namespace bridgehead_ring {

/// A GossipBuilder over the n positions of a ring (port 1 rightwards, 0
/// leftwards) whose routes along the ring jump in one step.
GossipBuilder ring_builder(int n);

/// circgos(n, a, b) on one ring of n positions (port 1 rightwards, 0
/// leftwards), into `builder`, a GossipBuilder over those n positions. A
/// position's data is what its rank held when the axis began (the blocks of
/// the ranks that differ from it on the axes already done), the same amount
/// for every position: so what a call carries follows from the ring alone,
/// and a rank needs only n x n bits, not P x P, to derive its calls.
void ring_generate(GossipBuilder& builder, int n, const RingParams& p);

/// The loads of circgos(n, a, b) with k packets, round by round, in ring
/// positions. Every axis, colour and block size with these parameters has
/// the same: made once in the process.
std::shared_ptr<const std::vector<BridgeheadSchedule::RoundLoad>> ring_loads(int n, const RingParams& p);

}  // namespace bridgehead_ring
}  // namespace torusgather
