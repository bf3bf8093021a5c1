// SPDX-License-Identifier: BSD-3-Clause
// One round's loads while a profile steps through it: what profile() and the
// program-free profiles (profiles/) charge for each message.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "model/cost.hpp"
#include "topology/torus.hpp"

namespace torusgather {

/// The loads of one round: per directed link and per rank, reset cheaply
/// by remembering what was touched.
class RoundLoad {
 public:
  /// node_ranks k > 1: the last axis (`node_axis`) is each node's k ranks.
  RoundLoad(Rank ranks, int ports, int node_ranks = 1, int node_axis = -1)
      : ports_(ports),
        k_(node_ranks),
        node_axis_(node_axis),
        link_(static_cast<std::size_t>(ranks * ports), 0.0),
        recv_(static_cast<std::size_t>(ranks), 0.0),
        sends_(static_cast<std::size_t>(ranks), 0),
        recvs_(static_cast<std::size_t>(ranks), 0) {}

  void link(Rank r, Port p, double blocks) {
    const bool node = k_ > 1 && port_axis(p) == node_axis_;
    // A node's ranks share its network links: charged to its first rank's.
    const Rank owner = k_ > 1 && !node ? r - r % k_ : r;
    double& l = link_[static_cast<std::size_t>(owner * ports_ + p)];
    if (l == 0) touched_links_.push_back(static_cast<std::size_t>(owner * ports_ + p));
    l += blocks;
    double& most = node ? cost_.node_blocks : cost_.link_blocks;
    most = std::max(most, l);
  }
  void message(Rank from, Rank to, double blocks, int hops) {
    touch(from);
    touch(to);
    cost_.sends = std::max(cost_.sends, ++sends_[static_cast<std::size_t>(from)]);
    cost_.recvs = std::max(cost_.recvs, ++recvs_[static_cast<std::size_t>(to)]);
    cost_.recv_blocks = std::max(cost_.recv_blocks, recv_[static_cast<std::size_t>(to)] += blocks);
    cost_.hops = std::max(cost_.hops, hops);
  }
  /// The round's cost; the loads start again from zero.
  RoundCost finish() {
    for (std::size_t l : touched_links_) link_[l] = 0;
    for (std::size_t r : touched_ranks_) {
      recv_[r] = 0;
      sends_[r] = recvs_[r] = 0;
    }
    touched_links_.clear();
    touched_ranks_.clear();
    return std::exchange(cost_, RoundCost{});
  }

 private:
  void touch(Rank r) {
    const auto i = static_cast<std::size_t>(r);
    if (sends_[i] == 0 && recvs_[i] == 0) touched_ranks_.push_back(i);
  }
  int ports_;
  int k_ = 1, node_axis_ = -1;
  std::vector<double> link_, recv_;
  std::vector<int> sends_, recvs_;
  std::vector<std::size_t> touched_links_, touched_ranks_;
  RoundCost cost_;
};

}  // namespace torusgather
