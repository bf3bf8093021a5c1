// SPDX-License-Identifier: BSD-3-Clause
// The routed calls a rank's program makes in one round, for the schedules
// that make each rank's calls from their construction (the latency family).
#pragma once

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "schedule/schedule.hpp"

namespace torusgather {

/// A round's calls: each call's route and blocks stay here until the next
/// round starts, so the transfers handed out may point into them.
class RoundCalls {
 public:
  /// Starts a round: the last round's calls go.
  void clear() {
    calls_.clear();
    used_ = 0;
  }
  /// A send or a receive along `route` (its sender's ports, hop by hop)
  /// carrying `blocks`; none where it carries nothing.
  void add(bool send, Rank peer, std::vector<Port> route, std::shared_ptr<const BlockRanges> blocks) {
    if (blocks->empty()) return;
    if (routes_.size() <= used_) routes_.resize(used_ + 1);
    routes_[used_] = std::move(route);
    calls_.push_back({send, peer, used_++, std::move(blocks)});
  }
  void add(bool send, Rank peer, std::vector<Port> route, BlockRanges blocks) {
    add(send, peer, std::move(route), std::make_shared<const BlockRanges>(std::move(blocks)));
  }
  /// The round's transfers, into `ops` (cleared first).
  void emit(RoundOps& ops) const {
    ops.clear();
    for (const Made& c : calls_) {
      Transfer x;
      x.port = routes_[c.slot].front();
      x.peer = c.peer;
      x.route = &routes_[c.slot];
      x.ranges = c.blocks.get();
      (c.send ? ops.sends : ops.recvs).push_back(x);
    }
  }

 private:
  struct Made {
    bool send;
    Rank peer;
    std::size_t slot;
    std::shared_ptr<const BlockRanges> blocks;
  };
  std::vector<Made> calls_;
  std::vector<std::vector<Port>> routes_;  ///< reused round after round
  std::size_t used_ = 0;
};

/// Ranges sorted, adjacent ones joined (they must not overlap).
inline BlockRanges joined(BlockRanges ranges) {
  std::sort(ranges.begin(), ranges.end());
  BlockRanges out;
  for (const auto& x : ranges)
    if (!out.empty() && out.back().second == x.first)
      out.back().second = x.second;
    else
      out.push_back(x);
  return out;
}

}  // namespace torusgather
