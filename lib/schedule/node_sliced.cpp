// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/node_sliced.hpp"

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <vector>

namespace torusgather {
namespace {

class NodeSlicedProgram final : public RankProgram {
 public:
  NodeSlicedProgram(const NodeSlicedSchedule& s, Rank self)
      : s_(s), k_(s.node_ranks()), j_(static_cast<int>(self % s.node_ranks())),
        inner_(s.inner().program(self / s.node_ranks())) {}

  void next_round(RoundOps& ops) override {
    ops.clear();
    ++round_;
    const long long inner_rounds = s_.inner().rounds();
    if (round_ <= inner_rounds) {
      // Slice j: the inner schedule's blocks y are this torus's y*k + j, on
      // the same ports (the node axis is the last).
      inner_->next_round(inner_ops_);
      const auto lift = [this](Transfer x) {
        if (x.routed()) throw std::logic_error("node-sliced: routed calls cannot be lifted");
        x.blocks.origin = x.blocks.origin * k_ + j_;
        return x;
      };
      for (const Transfer& x : inner_ops_.sends) ops.sends.push_back(lift(x));
      for (const Transfer& x : inner_ops_.recvs) ops.recvs.push_back(lift(x));
      // The node's k ranks share its links, and each message waits for the
      // overhead of those posted before it: rank j starts j/k of the way
      // round its list, so the node's first messages go out on different
      // links.
      const auto n = static_cast<std::ptrdiff_t>(ops.sends.size());
      if (n > 1) std::rotate(ops.sends.begin(), ops.sends.begin() + j_ * n / k_ % n, ops.sends.end());
      return;
    }
    const long long step = round_ - inner_rounds;
    if (step > k_ / 2) return;
    // The node ring: slice j' is the block set of every node's rank j'.
    const int axis = s_.torus().ndims() - 1;
    const std::uint32_t nodes_mask = (1u << axis) - 1;
    const auto slice = [&](long long delta) {
      return BlockSet{static_cast<Rank>(((j_ + delta) % k_ + k_) % k_), nodes_mask};
    };
    // On an even ring the last step brings the opposite slice from both
    // sides: the one travelling towards +axis carries the first half.
    const bool halves = k_ % 2 == 0 && step == k_ / 2;
    for (int c = 0; c < s_.colours(); ++c) {
      Piece plus = s_.colour_piece(c), minus = plus;
      plus.half = static_cast<std::uint8_t>(halves ? 1 : 0);
      minus.half = static_cast<std::uint8_t>(halves ? 2 : 0);
      ops.recvs.push_back({make_port(axis, false), slice(-step), plus});
      ops.recvs.push_back({make_port(axis, true), slice(step), minus});
      ops.sends.push_back({make_port(axis, true), slice(-(step - 1)), plus});
      ops.sends.push_back({make_port(axis, false), slice(step - 1), minus});
    }
  }

 private:
  const NodeSlicedSchedule& s_;
  int k_, j_;
  std::unique_ptr<RankProgram> inner_;
  RoundOps inner_ops_;
  long long round_ = 0;
};

}  // namespace

Torus NodeSlicedSchedule::node_torus(const Torus& t) {
  std::vector<int> dims = t.dims();
  if (dims.size() > 1) dims.pop_back();
  return Torus(dims, t.two_link_axes(), t.open_axes());
}

std::string NodeSlicedSchedule::not_applicable(const Torus& t) {
  if (t.ndims() < 2) return "needs a node torus and a node axis (at least 2 axes)";
  if (t.dim(t.ndims() - 1) < 2) return "one rank per node (the last axis has side 1)";
  if (node_torus(t).size() < 2) return "one node";
  return {};
}

NodeSlicedSchedule::NodeSlicedSchedule(const Torus& torus, std::unique_ptr<Schedule> inner)
    : Schedule(torus), inner_(std::move(inner)) {
  if (std::string why = not_applicable(torus); !why.empty()) throw std::invalid_argument(why);
  if (!inner_ || inner_->torus().dims() != node_torus(torus).dims())
    throw std::invalid_argument("the inner schedule is not on the node torus");
  if (inner_->routed_calls_only() || !inner_->torus_network())
    throw std::invalid_argument(std::string(inner_->name()) + " is not a neighbour-only torus schedule");
  k_ = torus.dim(torus.ndims() - 1);
  name_ = std::string("node-") + inner_->name();
  rounds_ = formula_rounds(inner_->rounds(), k_);
}

int NodeSlicedSchedule::claimed_max_link_messages_per_round() const {
  return std::max(inner_->claimed_max_link_messages_per_round(), colours());
}

std::unique_ptr<RankProgram> NodeSlicedSchedule::program(Rank r) const {
  return std::make_unique<NodeSlicedProgram>(*this, r);
}

StructuralProof NodeSlicedSchedule::prove() const {
  StructuralProof proof = inner_->prove();
  if (!proof.supported || !proof.complete) return proof;
  // Ring of k: as in dim-rings, floor(k/2) bidirectional steps deliver the
  // k-1 other slices (both halves of the opposite one when k is even).
  const auto N = static_cast<double>(nodes());
  proof.rounds = rounds_;
  proof.max_link_messages_per_round = claimed_max_link_messages_per_round();
  // A link carries a whole slice per step, half of one on an even ring's last.
  proof.max_link_blocks_per_round = std::max(proof.max_link_blocks_per_round, k_ == 2 ? N / 2 : N);
  proof.volume_per_rank_blocks += static_cast<double>(k_ - 1) * N;
  proof.detail = "each of the " + std::to_string(k_) + " slices: " + proof.detail + "; then a ring of " +
                 std::to_string(k_) + " over the node's ranks";
  return proof;
}

}  // namespace torusgather
