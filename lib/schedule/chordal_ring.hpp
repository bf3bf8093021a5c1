// SPDX-License-Identifier: BSD-3-Clause
// Three-phase gossip on the chordal ring C(N, c) under the line model
// (Barrière, Cohen & Mitjana §3.1, §4.1, §4.3): accumulate into
// one node per component (runs of (c+1)-cycles; for N = a(c+1) + b also
// type-A subgraphs or a path of b vertices), gossip among the accumulation
// nodes as in a complete graph (Algorithms 2 and 3) on edge-disjoint paths
// through the chords (the paper's for §4.1 and §4.3.1, searched for
// §4.3.2), broadcast back.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "schedule/schedule.hpp"

namespace torusgather {

/// Each rank makes its own calls from the construction (its component, its
/// place in the halving tree, the gossip's closed form), O(log N + path
/// length) per rank; the schedule keeps the components, O(sqrt N).
class ChordalRingSchedule final : public Schedule {
 public:
  /// On ranks 0..N-1 of any shape (the chordal ring ignores the torus);
  /// chord 0 picks the c with the fewest rounds.
  explicit ChordalRingSchedule(const Torus& torus, int chord = 0);
  /// Empty if C(N, c) is built here: N even, c odd, 3 <= c <= N/2, and
  /// edge-disjoint gossip paths (the paper's or searched) exist.
  static std::string not_applicable(const Torus& torus, int chord = 0);
  /// A component: the run of labels [lo, hi), accumulating in `acc`.
  struct Component {
    long long lo, hi, acc;
  };
  /// The components of §4.1 (N = a(c+1): runs of (c+1)-cycles) and §4.3
  /// (N = a(c+1) + b: type-A subgraphs of c+3 vertices first, for a >= b/2;
  /// the a cycles and a path of b vertices, for a < b/2). At most sqrt(N) + 1.
  static std::vector<Component> components(long long n, int c);
  /// How many components, and the most nodes in one: O(1).
  struct Shape {
    long long count, largest;
  };
  static Shape shape(long long n, int c);
  /// A gossip call's path: from accumulation node `from`, the ports taken.
  struct Route {
    Rank from;
    std::vector<Port> ports;
  };
  /// For each gossip round (complete_gossip over the components), one
  /// route per pair in the round's order, edge-disjoint within the round.
  struct Routes {
    std::vector<std::vector<Route>> rounds;
    bool papers;  ///< the paper's paths (§4.1, §4.3.1); else searched
  };
  /// Where the gossip's paths come from.
  enum class Paths { none, papers, searched };
  /// The paper's paths where they are edge-disjoint, else searched ones (up
  /// to kMaxSearchedRanks), else none. Decided once per (N, c) and
  /// remembered: O(N log r) time, the searched paths kept.
  static Paths paths(long long n, int c);
  /// Every gossip path: the paper's where they are edge-disjoint, else the
  /// searched ones; empty if neither.
  static std::optional<Routes> gossip_routes(long long n, int c);
  /// The paths of §4.1 (P) and §4.3.1 (P'), walked lane by lane; empty
  /// where they are not defined (§4.3.2) or not edge-disjoint.
  static std::optional<Routes> paper_routes(long long n, int c);
  /// Edge-disjoint paths searched by negotiated congestion (up to
  /// kMaxSearchedRanks); empty if the search fails.
  static std::optional<Routes> search_routes(long long n, int c);
  /// Walks the paper's paths round by round, keeping them in `out` if not
  /// null: false where one leaves its lanes or two share an edge.
  static bool walk_paper_paths(long long n, int c, Routes* out);
  /// The paper's path of one pair (first, second) of a gossip round with
  /// `groups` pseudo-components; empty where it leaves its lanes.
  static std::optional<Route> paper_route(long long n, int c, const std::vector<Component>& comps, int groups,
                                          int first, int second);
  /// The search keeps a cost per edge of the whole ring and every pair's path.
  static constexpr long long kMaxSearchedRanks = 16384;
  /// 2⌈log2 s⌉ + the gossip's rounds among r components (⌈log2 r⌉ for r
  /// even; Algorithm 3's exchange, the gossip among n' and the exchange for r odd).
  static long long formula_rounds(long long n, int chord);
  /// The valid chord with the fewest rounds (the smallest on ties), or 0.
  static int best_chord(long long n);

  const char* name() const override { return "chordal-ring"; }
  long long rounds() const override { return rounds_; }
  int colours() const override { return 1; }
  std::unique_ptr<RankProgram> program(Rank r) const override;
  bool routed_calls_only() const override { return true; }
  int claimed_max_link_messages_per_round() const override { return 1; }
  std::string construction() const override { return construction_; }
  int link_ports() const override { return 3; }
  /// Port 0: i-1, port 1: i+1, port 2: the chord (i+c for even i, i-c for odd i).
  Rank link_target(Rank r, Port p) const override;
  bool torus_network() const override { return false; }
  int chord() const { return c_; }

 private:
  class Program;
  /// The searched paths of C(n, c), remembered with paths().
  static std::shared_ptr<const Routes> searched(long long n, int c);
  long long n_;
  int c_;
  std::vector<Component> comps_;
  int depth_ = 0;          ///< the halving tree's rounds, ⌈log2⌉ of the largest component
  int gossip_rounds_ = 0;  ///< complete_gossip(r)'s
  std::shared_ptr<const Routes> searched_;  ///< null where the paper's paths are taken
  long long rounds_ = 0;
  std::string construction_;
};

}  // namespace torusgather
