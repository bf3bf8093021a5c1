// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/explicit.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace torusgather {

class ExplicitProgram final : public RankProgram {
 public:
  ExplicitProgram(const ExplicitSchedule& s, Rank self) : s_(s), refs_(s.by_rank_[static_cast<std::size_t>(self)]) {}

  void next_round(RoundOps& ops) override {
    ops.clear();
    ++round_;
    for (; next_ < refs_.size() && refs_[next_].round + 1 == round_; ++next_) {
      const auto& ref = refs_[next_];
      const Call& c = s_.calls_[ref.round][ref.index];
      Transfer x;
      x.port = c.route.front();
      x.peer = ref.send ? c.to : c.from;
      x.route = &c.route;
      x.ranges = &c.ranges;
      x.piece.colour = c.colour;
      x.piece.colours = static_cast<std::uint16_t>(s_.colours_);
      (ref.send ? ops.sends : ops.recvs).push_back(x);
    }
  }

 private:
  const ExplicitSchedule& s_;
  const std::vector<ExplicitSchedule::Ref>& refs_;
  std::size_t next_ = 0;
  std::uint32_t round_ = 0;
};

std::unique_ptr<RankProgram> ExplicitSchedule::program(Rank r) const {
  return std::make_unique<ExplicitProgram>(*this, r);
}

void ExplicitSchedule::set_calls(std::vector<std::vector<Call>> calls) {
  calls_ = std::move(calls);
  by_rank_.assign(static_cast<std::size_t>(torus().size()), {});
  for (std::size_t r = 0; r < calls_.size(); ++r)
    for (std::size_t k = 0; k < calls_[r].size(); ++k) {
      const Call& c = calls_[r][k];
      by_rank_[static_cast<std::size_t>(c.from)].push_back({static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(k), true});
      by_rank_[static_cast<std::size_t>(c.to)].push_back({static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(k), false});
    }
}

HoldingBits::HoldingBits(Rank ranks) : P_(ranks), words_(static_cast<std::size_t>((ranks + 63) / 64)) {
  held_.assign(static_cast<std::size_t>(P_) * words_, 0);
  incoming_.assign(held_.size(), 0);
  for (Rank r = 0; r < P_; ++r) held_[static_cast<std::size_t>(r) * words_ + static_cast<std::size_t>(r / 64)] |= 1ull << (r % 64);
}

void HoldingBits::land() {
  for (std::size_t i = 0; i < held_.size(); ++i) held_[i] |= incoming_[i];
  std::fill(incoming_.begin(), incoming_.end(), 0);
}

void HoldingBits::give(Rank r, const std::vector<std::uint64_t>& mask) {
  if (mask.size() != words_) throw std::logic_error("HoldingBits: a mask of the wrong size");
  for (std::size_t w = 0; w < words_; ++w) held_[static_cast<std::size_t>(r) * words_ + w] |= mask[w];
}

GossipBuilder::GossipBuilder(Rank ranks, Hop hop) : bits_(ranks), hop_(std::move(hop)) {}

Rank GossipBuilder::target(Rank from, const std::vector<Port>& route) const {
  Rank at = from;
  for (Port p : route) at = hop_(at, p);
  return at;
}

void GossipBuilder::next_round() {
  bits_.land();
  calls_.emplace_back();
}

void GossipBuilder::call(Rank from, std::vector<Port> route, const std::vector<std::uint64_t>* mask) {
  if (mask && mask->size() != bits_.words()) throw std::logic_error("GossipBuilder: a mask of the wrong size");
  if (calls_.empty()) throw std::logic_error("GossipBuilder: call before next_round");
  const Rank to = target(from, route);
  if (to == from) throw std::logic_error("GossipBuilder: a route from rank " + std::to_string(from) + " returns to it");
  if (count_sink_) {
    if (const long long blocks = count_call(from, to, mask)) count_sink_(rounds(), from, to, blocks);
    return;
  }
  const std::uint64_t* have = bits_.held(from);
  const std::uint64_t* got = bits_.held(to);
  std::uint64_t* coming = bits_.incoming(to);
  Call c{from, to, std::move(route), {}};
  for (std::size_t w = 0; w < bits_.words(); ++w) {
    std::uint64_t bits = have[w] & ~got[w] & ~coming[w];
    if (mask) bits &= (*mask)[w];
    coming[w] |= bits;
    const Rank first = static_cast<Rank>(w * 64);
    if (bits == ~0ull) {  // a whole word: the common case of broadcasts
      if (!c.ranges.empty() && c.ranges.back().second == first)
        c.ranges.back().second += 64;
      else
        c.ranges.emplace_back(first, first + 64);
      continue;
    }
    while (bits) {
      const int b = __builtin_ctzll(bits);
      bits &= bits - 1;
      const Rank block = first + b;
      if (!c.ranges.empty() && c.ranges.back().second == block)
        ++c.ranges.back().second;
      else
        c.ranges.emplace_back(block, block + 1);
    }
  }
  if (!c.ranges.empty()) emit(std::move(c));
}

void GossipBuilder::call_line(Rank from, Port port, int hops, const std::vector<std::uint64_t>* mask) {
  if (!count_sink_) return call(from, std::vector<Port>(static_cast<std::size_t>(hops), port), mask);
  if (mask && mask->size() != bits_.words()) throw std::logic_error("GossipBuilder: a mask of the wrong size");
  if (calls_.empty()) throw std::logic_error("GossipBuilder: call before next_round");
  Rank to = from;
  if (line_ && hops > 1)
    to = line_(from, port, hops);
  else
    for (int k = 0; k < hops; ++k) to = hop_(to, port);
  if (to == from) throw std::logic_error("GossipBuilder: a route from rank " + std::to_string(from) + " returns to it");
  if (const long long blocks = count_call(from, to, mask)) count_sink_(rounds(), from, to, blocks);
}

namespace {

/// Set bits of x, inline: without -mpopcnt __builtin_popcountll is a call
/// into libgcc for every word.
inline int ones(std::uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ull);
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return static_cast<int>((x * 0x0101010101010101ull) >> 56);
}

}  // namespace

long long GossipBuilder::count_call(Rank from, Rank to, const std::vector<std::uint64_t>* mask) {
  const std::uint64_t* have = bits_.held(from);
  const std::uint64_t* got = bits_.held(to);
  std::uint64_t* coming = bits_.incoming(to);
  long long blocks = 0;
  for (std::size_t w = 0; w < bits_.words(); ++w) {
    std::uint64_t bits = have[w] & ~got[w] & ~coming[w];
    if (mask) bits &= (*mask)[w];
    if (!bits) continue;
    coming[w] |= bits;
    blocks += ones(bits);
  }
  return blocks;
}

void GossipBuilder::emit(Call&& c) {
  if (sink_)
    sink_(rounds(), c);
  else
    calls_.back().push_back(std::move(c));
}

void GossipBuilder::call(Rank from, std::vector<Port> route, const std::vector<Rank>& blocks) {
  if (calls_.empty()) throw std::logic_error("GossipBuilder: call before next_round");
  if (blocks.empty()) return;
  const Rank to = target(from, route);
  std::uint64_t* coming = bits_.incoming(to);
  for (Rank b : blocks) coming[static_cast<std::size_t>(b / 64)] |= 1ull << (b % 64);
  emit(Call{from, to, std::move(route), to_ranges(blocks)});
}

void GossipBuilder::offer(Rank from, std::vector<Port> route, const std::vector<Rank>& blocks) {
  if (calls_.empty()) throw std::logic_error("GossipBuilder: call before next_round");
  const Rank to = target(from, route);
  const std::uint64_t* got = bits_.held(to);
  std::uint64_t* coming = bits_.incoming(to);
  std::vector<Rank> missing;
  for (Rank b : blocks) {
    const std::size_t w = static_cast<std::size_t>(b / 64);
    const std::uint64_t bit = 1ull << (b % 64);
    if ((got[w] | coming[w]) & bit) continue;
    coming[w] |= bit;
    missing.push_back(b);
  }
  if (!missing.empty()) emit(Call{from, to, std::move(route), to_ranges(missing)});
}

std::vector<std::vector<Call>> GossipBuilder::finish() {
  bits_.land();
  return std::move(calls_);
}

BlockRanges to_ranges(const std::vector<Rank>& sorted_blocks) {
  BlockRanges out;
  for (Rank b : sorted_blocks) {
    if (!out.empty() && out.back().second == b)
      ++out.back().second;
    else
      out.emplace_back(b, b + 1);
  }
  return out;
}

Rank block_count(const BlockRanges& ranges) {
  Rank n = 0;
  for (const auto& r : ranges) n += r.second - r.first;
  return n;
}

}  // namespace torusgather
