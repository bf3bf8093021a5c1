// Three-phase gossip on the chordal ring C(N, c) under the line model
// (Barrière, Cohen & Mitjana, seed 003 §3.1, §4.1): accumulate into one node
// per component of (c+1)-cycles, gossip among the accumulation nodes as in a
// complete graph (Algorithms 2 and 3) on edge-disjoint paths through the
// chords, broadcast back.
#pragma once

#include <string>

#include "schedule/explicit.hpp"

namespace torusgather {

class ChordalRingSchedule final : public ExplicitSchedule {
 public:
  /// On ranks 0..N-1 of any shape (the chordal ring ignores the torus);
  /// chord 0 picks the c with the fewest rounds.
  explicit ChordalRingSchedule(const Torus& torus, int chord = 0);
  /// Empty if C(N, c) is built here: N even, c odd, 3 <= c <= N/2, and
  /// (c+1) | N (§4.1; §4.3's type-A subgraphs for other N are not built).
  static std::string not_applicable(const Torus& torus, int chord = 0);
  static constexpr long long kMaxRanks = 16384;
  /// 2⌈log2 s⌉ + the gossip's rounds among r components (⌈log2 r⌉ for r
  /// even; Algorithm 3's exchange, the gossip among n' and the exchange for r odd).
  static long long formula_rounds(long long n, int chord);
  /// The valid chord with the fewest rounds (the smallest on ties), or 0.
  static int best_chord(long long n);

  const char* name() const override { return "chordal-ring"; }
  long long rounds() const override { return rounds_; }
  int claimed_max_link_messages_per_round() const override { return 1; }
  std::string construction() const override { return construction_; }
  int link_ports() const override { return 3; }
  /// Port 0: i-1, port 1: i+1, port 2: the chord (i+c for even i, i-c for odd i).
  Rank link_target(Rank r, Port p) const override;
  bool torus_network() const override { return false; }
  int chord() const { return c_; }

 private:
  long long n_;
  int c_;
  long long rounds_ = 0;
  std::string construction_;
};

}  // namespace torusgather
