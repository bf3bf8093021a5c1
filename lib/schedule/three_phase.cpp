// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/three_phase.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "schedule/explicit.hpp"
#include "schedule/phases.hpp"
#include "schedule/round_calls.hpp"

namespace torusgather {
namespace {

/// [0, P) less sorted, disjoint ranges.
BlockRanges complement(const BlockRanges& ranges, Rank P) {
  BlockRanges out;
  Rank at = 0;
  for (const auto& [lo, hi] : ranges) {
    if (lo > at) out.emplace_back(at, lo);
    at = hi;
  }
  if (at < P) out.emplace_back(at, P);
  return out;
}

}  // namespace

std::string ThreePhaseSchedule::not_applicable(const Torus& torus, const std::vector<int>& node_of) {
  const long long n = torus.size();
  if (n < 2) return "needs at least 2 ranks";
  if (n > std::numeric_limits<int>::max()) return "counts its nodes in int: fewer than 2^31 ranks";
  if (!node_of.empty() && static_cast<long long>(node_of.size()) != n)
    return "the node map has " + std::to_string(node_of.size()) + " entries for " + std::to_string(n) + " ranks";
  return {};
}

long long ThreePhaseSchedule::formula_rounds(long long largest_node, int nodes) {
  return 2 * ceil_log2(largest_node) + gossip_round_count(nodes);
}

Rank ThreePhaseSchedule::member(int k, Rank pos) const {
  if (uniform_) return static_cast<Rank>(k) * uniform_ + pos;
  if (!starts_.empty()) return starts_[static_cast<std::size_t>(k)] + pos;
  return order_[static_cast<std::size_t>(offsets_[static_cast<std::size_t>(k)] + pos)];
}

int ThreePhaseSchedule::node_of_rank(Rank r) const {
  if (uniform_) return static_cast<int>(r / uniform_);
  if (!starts_.empty())
    return static_cast<int>(std::upper_bound(starts_.begin(), starts_.end(), r) - starts_.begin()) - 1;
  return node_[static_cast<std::size_t>(r)];
}

Rank ThreePhaseSchedule::position_of(Rank r, int k) const {
  if (uniform_ || !starts_.empty()) return r - member(k, 0);
  const auto first = order_.begin() + offsets_[static_cast<std::size_t>(k)];
  const auto last = order_.begin() + offsets_[static_cast<std::size_t>(k) + 1];
  return std::lower_bound(first, last, r) - first;  // ascending within a node
}

Rank ThreePhaseSchedule::node_size(int k) const {
  const Rank P = torus().size();
  if (uniform_) return std::min(P, (k + 1) * uniform_) - k * uniform_;
  const auto& bounds = starts_.empty() ? offsets_ : starts_;
  return bounds[static_cast<std::size_t>(k) + 1] - bounds[static_cast<std::size_t>(k)];
}

BlockRanges ThreePhaseSchedule::positions(int k, Rank lo, Rank hi) const {
  if (lo >= hi) return {};
  if (uniform_ || !starts_.empty()) return {{member(k, lo), member(k, lo) + (hi - lo)}};
  const auto first = order_.begin() + offsets_[static_cast<std::size_t>(k)];
  return to_ranges(std::vector<Rank>(first + lo, first + hi));
}

BlockRanges ThreePhaseSchedule::ranks_of(int a, int b) const {
  if (a >= b) return {};
  if (uniform_ || !starts_.empty()) return {{member(a, 0), member(b - 1, 0) + node_size(b - 1)}};
  std::vector<Rank> ranks(order_.begin() + offsets_[static_cast<std::size_t>(a)],
                          order_.begin() + offsets_[static_cast<std::size_t>(b)]);
  std::sort(ranks.begin(), ranks.end());
  return to_ranges(ranks);
}

/// One rank's rounds: the halving tree over its node's positions (Lemma 1)
/// reversed, the leaders' exchanges of what the other lacks (the gossip's
/// closed form), the halving tree. A call goes straight to its peer.
class ThreePhaseSchedule::Program final : public RankProgram {
 public:
  Program(const ThreePhaseSchedule& s, Rank self) : s_(s), self_(self), node_(s.node_of_rank(self)) {
    tree_ = halving_calls_of(0, s.node_size(node_), 0, s.position_of(self, node_));
  }

  void next_round(RoundOps& ops) override {
    calls_.clear();
    next(round_++);
    calls_.emit(ops);
  }

 private:
  /// Round t (0-based): the tree reversed, the leaders' gossip, the tree.
  void next(long long t) {
    const long long D = s_.depth_, G = s_.gossip_rounds_;
    if (t < D) {
      for (const HalvingCall& call : tree_)
        if (call.depth == D - 1 - t) {
          const Rank root = s_.member(node_, call.root), callee = s_.member(node_, call.callee);
          add(self_ == callee, self_ == callee ? root : callee, s_.positions(node_, call.lo, call.hi));
        }
    } else if (t < D + G) {
      if (self_ != s_.member(node_, 0)) return;
      const int r = s_.nodes_, g = static_cast<int>(t - D);
      const auto [first, second] = gossip_pair(r, g, node_);
      if (first < 0) return;
      const int other = first == node_ ? second : first;
      const Rank peer = s_.member(other, 0);
      const NodeIntervals held = gossip_holding(r, g, node_), theirs = gossip_holding(r, g, other);
      add(true, peer, ranks_of(minus(held, theirs)));
      add(false, peer, ranks_of(minus(theirs, held)));
    } else if (t < 2 * D + G) {
      for (const HalvingCall& call : tree_)
        if (call.depth == t - D - G) {
          const Rank root = s_.member(node_, call.root), callee = s_.member(node_, call.callee);
          add(self_ == root, self_ == root ? callee : root,
              complement(s_.positions(node_, call.lo, call.hi), s_.torus().size()));
        }
    }
  }

  BlockRanges ranks_of(const NodeIntervals& nodes) const {
    BlockRanges out;
    for (const auto& [a, b] : nodes) {
      BlockRanges part = s_.ranks_of(a, b);
      out.insert(out.end(), part.begin(), part.end());
    }
    return joined(std::move(out));
  }

  /// A call straight to or from `peer` (port p leads to rank p).
  void add(bool send, Rank peer, BlockRanges ranges) {
    calls_.add(send, peer, {static_cast<Port>(send ? peer : self_)}, std::move(ranges));
  }

  const ThreePhaseSchedule& s_;
  Rank self_;
  int node_;
  std::vector<HalvingCall> tree_;
  long long round_ = 0;
  RoundCalls calls_;
};

std::unique_ptr<RankProgram> ThreePhaseSchedule::program(Rank r) const { return std::make_unique<Program>(*this, r); }

ThreePhaseSchedule::ThreePhaseSchedule(const Torus& torus, const std::vector<int>& node_of) : Schedule(torus) {
  if (std::string why = not_applicable(torus, node_of); !why.empty()) throw std::invalid_argument("three-phase: " + why);
  const Rank P = torus.size();
  Rank largest = 1;
  if (node_of.empty()) {
    uniform_ = 1;
    nodes_ = static_cast<int>(P);
  } else {
    // The nodes in the order of their lowest rank, each as its ranks in
    // ascending order; the lowest is the leader (the accumulation node).
    std::unordered_map<int, int> index;
    index.reserve(static_cast<std::size_t>(std::min<Rank>(P, 1 << 20)));
    std::vector<int> node(static_cast<std::size_t>(P));
    std::vector<Rank> size;
    bool runs = true;
    for (Rank r = 0; r < P; ++r) {
      const auto [it, fresh] = index.emplace(node_of[static_cast<std::size_t>(r)], static_cast<int>(size.size()));
      if (fresh) size.push_back(0);
      runs = runs && (r == 0 || it->second == node[static_cast<std::size_t>(r - 1)] || fresh);
      node[static_cast<std::size_t>(r)] = it->second;
      ++size[static_cast<std::size_t>(it->second)];
    }
    nodes_ = static_cast<int>(size.size());
    largest = *std::max_element(size.begin(), size.end());
    bool equal = runs && size.back() <= size[0];
    for (std::size_t k = 0; k + 1 < size.size(); ++k) equal = equal && size[k] == size[0];
    if (equal) {
      uniform_ = size[0];
    } else {
      auto& bounds = runs ? starts_ : offsets_;
      bounds.assign(size.size() + 1, 0);
      for (std::size_t k = 0; k < size.size(); ++k) bounds[k + 1] = bounds[k] + size[k];
      if (!runs) {
        order_.resize(static_cast<std::size_t>(P));
        std::vector<Rank> next(offsets_.begin(), offsets_.end() - 1);
        for (Rank r = 0; r < P; ++r) order_[static_cast<std::size_t>(next[static_cast<std::size_t>(node[static_cast<std::size_t>(r)])]++)] = r;
        node_ = std::move(node);
      }
    }
  }
  if (uniform_) largest = std::min(uniform_, P);
  depth_ = static_cast<int>(ceil_log2(largest));
  gossip_rounds_ = gossip_round_count(nodes_);
  rounds_ = formula_rounds(largest, nodes_);
  construction_ = std::to_string(nodes_) + " node" + (nodes_ == 1 ? "" : "s") + " of at most " +
                  std::to_string(largest) + " rank" + (largest == 1 ? "" : "s") + ": accumulate in " +
                  std::to_string(depth_) + ", gossip among the leaders in " + std::to_string(gossip_rounds_) +
                  " (Algorithm " + (nodes_ % 2 ? "3" : "2") + "), broadcast in " + std::to_string(depth_);
}

}  // namespace torusgather
