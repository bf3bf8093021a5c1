// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/node_sliced.hpp"

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <vector>

namespace torusgather {
namespace {

/// The node ring's sets of overlapped round r, level by level: level l
/// passes on what the inner round r - l delivered (`received_at(t)`,
/// unlifted, on the node torus), or at t = 0 the rank's own block in each
/// colour's piece; f(level, both_ways, set), both_ways false on an even
/// ring's last level.
template <class R, class F>
void for_each_ring_set(const NodeSlicedSchedule& s, Rank node, long long r, R&& received_at, F&& f) {
  const long long inner_rounds = s.inner().rounds();
  for (int level = 1; level <= s.levels(); ++level) {
    const long long t = r - level;
    if (t < 0 || t > inner_rounds) continue;
    const bool both_ways = !(s.node_ranks() % 2 == 0 && level == s.levels());
    if (t > 0) {
      for (const Transfer& x : received_at(t)) f(level, both_ways, x);
      continue;
    }
    for (int c = 0; c < s.colours(); ++c) f(level, both_ways, Transfer{0, BlockSet{node, 0}, s.colour_piece(c)});
  }
}

class NodeSlicedProgram final : public RankProgram {
 public:
  NodeSlicedProgram(const NodeSlicedSchedule& s, Rank self)
      : s_(s), k_(s.node_ranks()), j_(static_cast<int>(self % s.node_ranks())), node_(self / s.node_ranks()),
        inner_(s.inner().program(node_)) {
    if (s.overlap()) received_.resize(static_cast<std::size_t>(s.levels()) + 1);
  }

  void next_round(RoundOps& ops) override {
    ops.clear();
    ++round_;
    const long long inner_rounds = s_.inner().rounds();
    if (round_ <= inner_rounds) {
      // Slice j: the inner schedule's blocks y are this torus's y*k + j, on
      // the same ports (the node axis is the last).
      inner_->next_round(inner_ops_);
      for (const Transfer& x : inner_ops_.sends) ops.sends.push_back(lift(x, 0));
      for (const Transfer& x : inner_ops_.recvs) ops.recvs.push_back(lift(x, 0));
      // The node's k ranks share its links, and each message waits for the
      // overhead of those posted before it: rank j starts j/k of the way
      // round its list, so the node's first messages go out on different
      // links.
      const auto n = static_cast<std::ptrdiff_t>(ops.sends.size());
      if (n > 1) std::rotate(ops.sends.begin(), ops.sends.begin() + j_ * n / k_ % n, ops.sends.end());
      if (s_.overlap()) received_[slot(round_)] = inner_ops_.recvs;
    }
    if (s_.overlap()) return overlapped_ring(ops);
    if (round_ <= inner_rounds) return;
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
  /// An inner transfer as slice j + delta's.
  Transfer lift(Transfer x, int delta) const {
    if (x.routed()) throw std::logic_error("node-sliced: routed calls cannot be lifted");
    x.blocks.origin = x.blocks.origin * k_ + ((j_ + delta) % k_ + k_) % k_;
    return x;
  }
  std::size_t slot(long long round) const { return static_cast<std::size_t>(round) % received_.size(); }

  /// Level s passes on towards +axis slice j − (s − 1) of what the inner
  /// rounds delivered s rounds ago, and receives slice j − s (mirrored
  /// towards −axis, except on an even ring's last level).
  void overlapped_ring(RoundOps& ops) {
    const int axis = s_.torus().ndims() - 1;
    // A colour's messages on one node link are numbered in the order both
    // ends list them: the ranks of a node run the same inner program.
    plus_.assign(static_cast<std::size_t>(s_.colours()), 0);
    minus_ = plus_;
    const auto received_at = [this](long long t) -> const std::vector<Transfer>& { return received_[slot(t)]; };
    for_each_ring_set(s_, node_, round_, received_at, [&](int level, bool both_ways, const Transfer& x) {
      Transfer out = lift(x, -(level - 1)), in = lift(x, -level);
      out.port = make_port(axis, true);
      in.port = make_port(axis, false);
      out.seq = in.seq = plus_[x.piece.colour]++;
      ops.sends.push_back(out);
      ops.recvs.push_back(in);
      if (!both_ways) return;
      out = lift(x, level - 1);
      in = lift(x, level);
      out.port = make_port(axis, false);
      in.port = make_port(axis, true);
      out.seq = in.seq = minus_[x.piece.colour]++;
      ops.sends.push_back(out);
      ops.recvs.push_back(in);
    });
  }

  const NodeSlicedSchedule& s_;
  int k_, j_;
  Rank node_;
  std::unique_ptr<RankProgram> inner_;
  RoundOps inner_ops_;
  std::vector<std::vector<Transfer>> received_;  ///< overlapped: the inner receives of the last levels + 1 rounds
  std::vector<std::uint8_t> plus_, minus_;       ///< overlapped: per colour, the round's messages so far each way
  long long round_ = 0;
};

}  // namespace

Torus NodeSlicedSchedule::node_torus(const Torus& t) {
  std::vector<int> dims = t.dims();
  if (dims.size() > 1) dims.pop_back();
  return Torus(dims, t.two_link_axes(), t.open_axes());
}

std::vector<Rank> NodeSlicedSchedule::line_positions(const Torus& n) {
  std::vector<Rank> out{0};
  for (int a = 0; a < n.ndims(); ++a) {
    if (!n.open(a)) continue;
    const std::size_t before = out.size();
    for (int x = 1; x < n.dim(a); ++x)
      for (std::size_t i = 0; i < before; ++i) out.push_back(out[i] + x * n.stride(a));
  }
  return out;
}

std::string NodeSlicedSchedule::overlap_not_applicable(const Torus& t) {
  Rank positions = 1;
  const Torus n = node_torus(t);
  for (int a = 0; a < n.ndims(); ++a)
    if (n.open(a)) positions *= n.dim(a);
  if (positions > kMaxLinePositions)
    return "more than " + std::to_string(kMaxLinePositions) +
           " nodes along the open axes together: each one's inner program would be stepped through";
  return {};
}

std::string NodeSlicedSchedule::not_applicable(const Torus& t) {
  if (t.ndims() < 2) return "needs a node torus and a node axis (at least 2 axes)";
  if (t.dim(t.ndims() - 1) < 2) return "one rank per node (the last axis has side 1)";
  if (node_torus(t).size() < 2) return "one node";
  return {};
}

NodeSlicedSchedule::NodeSlicedSchedule(const Torus& torus, std::unique_ptr<Schedule> inner, bool overlap)
    : Schedule(torus), inner_(std::move(inner)), overlap_(overlap) {
  if (std::string why = not_applicable(torus); !why.empty()) throw std::invalid_argument(why);
  if (!inner_ || inner_->torus().dims() != node_torus(torus).dims())
    throw std::invalid_argument("the inner schedule is not on the node torus");
  if (inner_->routed_calls_only() || !inner_->torus_network())
    throw std::invalid_argument(std::string(inner_->name()) + " is not a neighbour-only torus schedule");
  k_ = torus.dim(torus.ndims() - 1);
  name_ = std::string("node-") + inner_->name();
  rounds_ = formula_rounds(inner_->rounds(), k_);
  if (!overlap_) return;
  if (std::string why = overlap_not_applicable(torus); !why.empty()) throw std::invalid_argument(why);
  // Every node's inner receives, round by round, for one node per line
  // position of the open axes: along a closed axis every node's are alike.
  const Torus& n = inner_->torus();
  const auto blocks_of = [&n](const Transfer& x) {
    double b = x.piece.share();
    for (int a = 0; a < n.ndims(); ++a)
      if (x.blocks.free_axes & (1u << a)) b *= n.dim(a);
    return b;
  };
  const long long inner_rounds = inner_->rounds();
  node_rounds_.assign(static_cast<std::size_t>(rounds_), NodeRound{});
  std::vector<std::vector<Transfer>> received(static_cast<std::size_t>(inner_rounds) + 1);
  std::vector<int> per_colour(static_cast<std::size_t>(colours()));
  for (const Rank node : line_positions(n)) {
    auto program = inner_->program(node);
    RoundOps ops;
    for (long long r = 1; r <= inner_rounds; ++r) {
      program->next_round(ops);
      received[static_cast<std::size_t>(r)] = ops.recvs;
    }
    const auto received_at = [&received](long long t) -> const std::vector<Transfer>& {
      return received[static_cast<std::size_t>(t)];
    };
    for (long long r = 1; r <= rounds_; ++r) {
      NodeRound here;
      std::fill(per_colour.begin(), per_colour.end(), 0);
      for_each_ring_set(*this, node, r, received_at, [&](int, bool both_ways, const Transfer& x) {
        if (++per_colour[x.piece.colour] > Transfer::kMaxSeq + 1)
          throw std::invalid_argument("overlap: more than " + std::to_string(Transfer::kMaxSeq + 1) +
                                      " messages of a colour on a node link in a round");
        const int ways = both_ways ? 2 : 1;
        const double b = blocks_of(x);
        here.messages += 1;
        here.blocks += b;
        here.sends += ways;
        here.recvs += ways;
        here.recv_blocks += ways * b;
      });
      NodeRound& out = node_rounds_[static_cast<std::size_t>(r - 1)];
      out.messages = std::max(out.messages, here.messages);
      out.blocks = std::max(out.blocks, here.blocks);
      out.sends = std::max(out.sends, here.sends);
      out.recvs = std::max(out.recvs, here.recvs);
      out.recv_blocks = std::max(out.recv_blocks, here.recv_blocks);
    }
  }
}

int NodeSlicedSchedule::claimed_max_link_messages_per_round() const {
  int node = colours();
  if (overlap_) {
    node = 0;
    for (const NodeRound& r : node_rounds_) node = std::max(node, r.messages);
  }
  return std::max(inner_->claimed_max_link_messages_per_round(), node);
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
  // A link carries a whole slice per step, half of one on an even ring's
  // last; overlapped, what the inner rounds delivered, level by level.
  double node = k_ == 2 ? N / 2 : N;
  if (overlap_) {
    node = 0;
    for (const NodeRound& r : node_rounds_) node = std::max(node, r.blocks);
  }
  proof.max_link_blocks_per_round = std::max(proof.max_link_blocks_per_round, node);
  proof.volume_per_rank_blocks += static_cast<double>(k_ - 1) * N;
  proof.detail = "each of the " + std::to_string(k_) + " slices: " + proof.detail +
                 (overlap_ ? "; with it, overlapped, a ring of " : "; then a ring of ") + std::to_string(k_) +
                 " over the node's ranks";
  return proof;
}

}  // namespace torusgather
