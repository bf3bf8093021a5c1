// SPDX-License-Identifier: BSD-3-Clause
// Weights of dim-rings' balanced colours. Each colour runs the axes in its
// own order, as its own stream (a round waits for that colour's receives
// only), and carries its weight's share of every block. The weights come
// from a fluid model of one node's links: every directed link shares its
// bandwidth equally among the colours' messages on it, and a colour's next
// round starts when its round's messages have arrived.
#pragma once

#include <vector>

#include "schedule/lanes.hpp"

namespace torusgather {

/// One colour's rings in order, covering the torus's sides > 1 once.
using AxisOrder = std::vector<Ring>;

/// The time, in one block's time over one link, for the colours to finish
/// with these weights (summing to 1): a shared link (Torus::shared_link)
/// takes both directions, every other side has one link each way, and a
/// lane two links of its own. `whole_antipode`: an even ring's last step
/// sends the group whole towards + (DimRingsParams::whole_antipode).
double fluid_time(const Torus& torus, const std::vector<AxisOrder>& orders, const std::vector<double>& weights,
                  bool whole_antipode = false);

/// fluid_time where the node also passes at most `inject` links' worth in
/// and out together (0: no limit), each message sharing its link and the
/// limit max-min fair. Both carry a repeating state of the links forward
/// whole periods at a time; `skip_repeats` false steps through every round
/// (the tests' reference).
double fluid_time_limited(const Torus& torus, const std::vector<AxisOrder>& orders,
                          const std::vector<double>& weights, bool whole_antipode, double inject,
                          bool skip_repeats = true);

/// Weights for `orders` that make fluid_time small, in units of `units`
/// summing to `units` (a colour may get 0). Deterministic: the same on
/// every rank.
std::vector<long long> balanced_weights(const Torus& torus, const std::vector<AxisOrder>& orders, long long units);

}  // namespace torusgather
