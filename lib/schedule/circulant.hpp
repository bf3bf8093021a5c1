// SPDX-License-Identifier: BSD-3-Clause
// Gossip on the optimal circulant G(N; s, s+1) (Monakhova & Monakhov,
// Monakhova & Monakhov §5): every rank broadcasts along the same minimum spanning tree,
// translated; the gossip is their superposition.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "schedule/explicit.hpp"

namespace torusgather {

/// Node-invariant: every rank's calls are rank 0's translated, so the
/// schedule keeps rank 0's tree offsets per round and port, as runs of
/// equally spaced offsets (a quadrant's layer is one run: O(D*) runs in all
/// without p), and each program makes its own blocks.
class CirculantSchedule final : public Schedule {
 public:
  /// On ranks 0..N-1 of any shape (the circulant ignores the torus). With
  /// packets > 0 a link carries at most that many blocks per round
  /// (p-gossip, §5.2); 0: no limit (the D-packet model of Proposition 8).
  explicit CirculantSchedule(const Torus& torus, int packets = 0);
  static std::string not_applicable(const Torus& torus);

  /// The diameter D* = ceil((sqrt(2N-1) - 1)/2) (§2) and the chord s of
  /// the optimal G(N; s, s+1) (§5.1, intervals (4) and (5)).
  static long long diameter(long long n);
  static long long chord(long long n);
  /// Proposition 9's rounds for N = 2D^2 + 2D + 1 and p packets.
  static long long prop9_rounds(long long d, long long p);

  const char* name() const override { return "circulant"; }
  long long rounds() const override { return rounds_; }
  int colours() const override { return 1; }
  std::unique_ptr<RankProgram> program(Rank r) const override;
  bool routed_calls_only() const override { return true; }
  int claimed_max_link_messages_per_round() const override { return 1; }
  long long claimed_hops_sum() const override { return rounds_; }
  std::string construction() const override { return construction_; }
  int link_ports() const override { return 4; }
  /// Ports 0/1: -s/+s, 2/3: -(s+1)/+(s+1) (so opposite(p) == p ^ 1).
  Rank link_target(Rank r, Port p) const override;
  bool torus_network() const override { return false; }
  /// The most blocks the tree puts on one link in one round (p = 0), or p.
  long long link_blocks() const { return link_blocks_; }
  /// The p of p-gossip, 0 for none.
  int packets() const { return packets_; }
  /// The blocks every rank sends on port p in round t (1-based; the same
  /// on every rank): the cost model's input.
  long long blocks_on(long long t, Port p) const {
    if (t < 1 || t > scheduled_rounds()) return 0;
    return blocks_[static_cast<std::size_t>((t - 1) * 4 + p)];
  }
  /// How many runs of offsets the schedule keeps (its memory, in 12 bytes).
  std::size_t offset_runs() const { return runs_.size(); }

 private:
  class Program;
  struct RankRounds;
  /// Rank r's rounds, made once and kept for the last rank asked; nullptr
  /// where they need more than kKeptRanges ranges (1 MB).
  std::shared_ptr<const RankRounds> rounds_of(Rank r) const;
  static constexpr std::size_t kKeptRanges = 65536;
  mutable std::mutex cache_mutex_;
  mutable std::shared_ptr<const RankRounds> cached_;
  long long n_, s_;
  long long rounds_ = 0;
  /// Offsets a, first + i * step (mod N) for i < count: the tree edges' sources.
  struct Run {
    std::int32_t first, step, count;
  };
  std::vector<Run> runs_;                 ///< round by round, port by port
  std::vector<std::uint32_t> run_at_;     ///< [t * 4 + p]: the first run of round t + 1, port p; then the end
  std::vector<std::int32_t> blocks_;      ///< [t * 4 + p]: how many offsets those runs hold
  long long scheduled_rounds() const { return static_cast<long long>(blocks_.size() / 4); }
  /// The offsets of round t (0-based) on port p.
  void offsets_of(long long t, Port p, std::vector<Rank>& out) const;
  long long link_blocks_ = 0;
  int packets_ = 0;
  std::string construction_;
};

}  // namespace torusgather
