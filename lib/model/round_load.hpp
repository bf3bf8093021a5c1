// SPDX-License-Identifier: BSD-3-Clause
// One round's loads while a profile steps through it: what profile() and the
// program-free profiles (profiles/) charge for each message.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "model/cost.hpp"
#include "model/route.hpp"
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

  /// With the torus, so that run() can charge a run of links at once.
  RoundLoad(const Torus& t, int node_ranks = 1, int node_axis = -1)
      : RoundLoad(t.size(), t.ports(), node_ranks, node_axis) {
    torus_ = &t;
    rise_.assign(link_.size(), 0.0);
  }

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
  /// link() on each of `hops` links from r through p along its axis, in
  /// O(1): a rise of the load where the run starts and a fall past its
  /// end, summed along the axis's lines in finish(). Needs the torus
  /// (the constructor that takes it).
  void run(Rank r, Port p, int hops, double blocks) {
    const int a = port_axis(p), n = torus_->dim(a);
    if (hops <= kShortRun) {  // link by link: no pass over the port's lines
      walk_run(*torus_, r, p, hops, [&](Rank at, Port q) { link(at, q, blocks); });
      return;
    }
    const bool node = k_ > 1 && a == node_axis_;
    const Rank owner = k_ > 1 && !node ? r - r % k_ : r;
    const int c = torus_->coord(owner, a);
    const Rank base = owner - static_cast<Rank>(c) * torus_->stride(a);
    auto rise = [&](int x) -> double& {
      return rise_[static_cast<std::size_t>((base + static_cast<Rank>(x) * torus_->stride(a)) * ports_ + p)];
    };
    int first = port_plus(p) ? c : c - hops + 1;  // the run's lowest position on its line
    if (first < 0) first += n;
    const int end = first + hops;
    rise(first) += blocks;
    if (end < n) {
      rise(end) -= blocks;
    } else if (end > n) {  // round the wrap
      rise(0) += blocks;
      rise(end - n) -= blocks;
    }
    run_ports_ |= 1ull << p;
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
    if (run_ports_) sum_runs();
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
  /// Each line of an axis with runs: its links' loads, links and runs
  /// together, into the round's most; the rises back to zero. O(P) a port.
  void sum_runs() {
    const Torus& t = *torus_;
    for (Port p = 0; p < ports_; ++p) {
      if (!((run_ports_ >> p) & 1u)) continue;
      const int a = port_axis(p), n = t.dim(a);
      const Rank stride = t.stride(a);
      double& most = k_ > 1 && a == node_axis_ ? cost_.node_blocks : cost_.link_blocks;
      // A line: base + x·stride, base = outer·n·stride + inner (inner < stride).
      for (Rank outer = 0; outer < t.size(); outer += static_cast<Rank>(n) * stride)
        for (Rank base = outer; base < outer + stride; ++base) {
          double load = 0;
          for (int x = 0; x < n; ++x) {
            const auto l = static_cast<std::size_t>((base + static_cast<Rank>(x) * stride) * ports_ + p);
            load += std::exchange(rise_[l], 0.0);
            most = std::max(most, load + link_[l]);
          }
        }
    }
    run_ports_ = 0;
  }
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
  static constexpr int kShortRun = 8;
  const Torus* torus_ = nullptr;
  std::vector<double> rise_;         ///< run(): the change of load from the link before on its line
  unsigned long long run_ports_ = 0;  ///< the ports that have runs this round
};

}  // namespace torusgather
