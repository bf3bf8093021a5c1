// SPDX-License-Identifier: BSD-3-Clause
// Routed schedules given by their full list of calls (hand-made ones in the
// tests), and the builder that derives what each call carries from every
// rank's holdings, P x P bits: the tests' oracle for the latency family,
// whose programs make each rank's calls alone.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "schedule/schedule.hpp"

namespace torusgather {

/// One call: `from` sends `ranges` to `to` along `route` (ports of the
/// schedule's network, hop by hop from `from`): of each block, the part
/// `colour` of the schedule's colours() (the whole block when it has one).
struct Call {
  Rank from = 0;
  Rank to = 0;
  std::vector<Port> route;
  BlockRanges ranges;
  std::uint16_t colour = 0;
};

/// A schedule stored as its calls, round by round, and indexed by rank.
/// Memory is O(calls + ranges). Every call is a routed Transfer, also those
/// of one hop.
class ExplicitSchedule : public Schedule {
 public:
  /// Rounds as the construction's formula gives them; the simulator compares
  /// them with the rounds that move data. Subclasses with a formula override.
  long long rounds() const override { return static_cast<long long>(calls().size()); }
  int colours() const override { return colours_; }
  std::unique_ptr<RankProgram> program(Rank r) const override;
  bool routed_calls_only() const override { return true; }
  const std::vector<std::vector<Call>>& calls() const { return calls_; }

 protected:
  using Schedule::Schedule;
  /// Takes the calls and indexes them by rank.
  void set_calls(std::vector<std::vector<Call>> calls);
  /// Blocks cut into `colours` parts; each call carries the part it names.
  void set_colours(int colours) { colours_ = colours; }

 private:
  friend class ExplicitProgram;
  struct Ref {
    std::uint32_t round;
    std::uint32_t index;
    bool send;
  };
  std::vector<std::vector<Call>> calls_;
  std::vector<std::vector<Ref>> by_rank_;
  int colours_ = 1;
};

/// Who holds which block, as P x P bits (row r: rank r's blocks), and what
/// arrives in the current round, which lands when the round ends: nothing
/// is forwarded in the round it arrives. Every rank starts with its own
/// block. Used by GossipBuilder and by the simulator's CallChecker.
class HoldingBits {
 public:
  explicit HoldingBits(Rank ranks);
  Rank ranks() const { return P_; }
  /// 64-bit words per row.
  std::size_t words() const { return words_; }
  const std::uint64_t* held(Rank r) const { return &held_[static_cast<std::size_t>(r) * words_]; }
  std::uint64_t* incoming(Rank r) { return &incoming_[static_cast<std::size_t>(r) * words_]; }
  /// Ends the round: what arrived is held.
  void land();
  /// r holds the blocks set in `mask` from now on.
  void give(Rank r, const std::vector<std::uint64_t>& mask);

 private:
  Rank P_;
  std::size_t words_;
  std::vector<std::uint64_t> held_, incoming_;
};

/// Derives the blocks of each call from who calls whom: a call carries what
/// the caller holds and the callee neither holds nor receives earlier in the
/// same round, so no block arrives twice; calls left empty are dropped. This
/// is how the papers' "x sends its information to y" is made exact. Holdings
/// are P x P bits.
class GossipBuilder {
 public:
  using Hop = std::function<Rank(Rank, Port)>;
  /// Receives each call as it is made, with its round (1-based).
  using Sink = std::function<void(long long round, const Call&)>;
  GossipBuilder(Rank ranks, Hop hop);

  /// Calls go to `sink` as they are made instead of being kept, for
  /// schedules too large to store: finish() then returns rounds without
  /// calls. The holdings (P x P bits, twice) are still kept.
  void stream_to(Sink sink) { sink_ = std::move(sink); }
  /// What a counting sink receives of each call: who calls whom, and how
  /// many blocks.
  using CountSink = std::function<void(long long round, Rank from, Rank to, long long blocks)>;
  /// Calls are only counted, no blocks listed: a cost model's loads.
  void count_to(CountSink sink) { count_sink_ = std::move(sink); }
  /// Where `hops` links through one port lead, in one step: call_line()
  /// then does not walk its route hop by hop.
  using Line = std::function<Rank(Rank, Port, int hops)>;
  void lines_by(Line line) { line_ = std::move(line); }

  /// Starts the next round (the first call of a round starts round 1).
  void next_round();
  /// `from` calls the end of `route`.
  void call(Rank from, std::vector<Port> route) { call(from, std::move(route), nullptr); }
  /// As call(), but only blocks whose bit is set in `mask` (P bits, as
  /// mask(); null means every block): a piece of what the caller holds, as
  /// in Delmas & Pérennes §6's coloured broadcast.
  void call(Rank from, std::vector<Port> route, const std::vector<std::uint64_t>* mask);
  /// call() along `hops` links through `port`, the route made only where
  /// the call is kept.
  void call_line(Rank from, Port port, int hops, const std::vector<std::uint64_t>* mask = nullptr);
  /// An empty mask of P bits for the masked call().
  std::vector<std::uint64_t> mask() const { return std::vector<std::uint64_t>(bits_.words(), 0); }
  /// `r` holds the blocks of `mask` from now on: what a phase counted
  /// without calls brought it.
  void give(Rank r, const std::vector<std::uint64_t>& mask) { bits_.give(r, mask); }
  /// `from` sends the given blocks (sorted) along `route`, as the
  /// construction says; nothing is derived (the simulator checks it).
  void call(Rank from, std::vector<Port> route, const std::vector<Rank>& blocks);
  /// `from` sends those of `blocks` (held by it) that the callee neither
  /// holds nor receives earlier in the round: a packet of the construction
  /// less what the callee already has. Nothing is sent if that is empty.
  void offer(Rank from, std::vector<Port> route, const std::vector<Rank>& blocks);
  Rank target(Rank from, const std::vector<Port>& route) const;
  /// Number of rounds started so far.
  long long rounds() const { return static_cast<long long>(calls_.size()); }
  std::vector<std::vector<Call>> finish();

 private:
  void emit(Call&& c);
  /// Counts and marks as incoming what `from` sends `to` (the masked call()).
  long long count_call(Rank from, Rank to, const std::vector<std::uint64_t>* mask);
  HoldingBits bits_;
  Hop hop_;
  Line line_;
  Sink sink_;
  CountSink count_sink_;
  std::vector<std::vector<Call>> calls_;
};

/// Sorted blocks as ranges.
BlockRanges to_ranges(const std::vector<Rank>& sorted_blocks);
/// Number of blocks in ranges.
Rank block_count(const BlockRanges& ranges);

}  // namespace torusgather
