// SPDX-License-Identifier: BSD-3-Clause
// The pieces of Barrière, Cohen & Mitjana's three-phase gossip that do not depend on the
// chordal ring: the broadcast by halving a run of labels (Farley's Lemma 1,
// used for accumulation reversed) and the gossip among r nodes as in the
// complete graph K_r (Algorithms 2 and 3). Shared by `chordal-ring` and the
// hierarchical `three-phase`.
#pragma once

#include <utility>
#include <vector>

#include "topology/torus.hpp"

namespace torusgather {

long long ceil_log2(long long v);

/// Rounds of (caller, callee) that broadcast from `root` over the labels
/// [lo, hi): the informed node of a run calls the nearest node of the run's
/// other half, so the calls of a round lie in disjoint runs; ⌈log2(hi-lo)⌉
/// rounds. Reversed, callee to caller, it accumulates into `root`.
std::vector<std::vector<std::pair<Rank, Rank>>> halving_broadcast(Rank lo, Rank hi, Rank root);

/// A call of halving_broadcast at `depth` (its round, 0-based): `root`
/// calls `callee`, which then roots the labels [lo, hi).
struct HalvingCall {
  int depth;
  Rank root, callee, lo, hi;
};
/// The calls of halving_broadcast(lo, hi, root) that `self` makes or takes,
/// by depth, without the others': O(log(hi - lo)).
std::vector<HalvingCall> halving_calls_of(Rank lo, Rank hi, Rank root, Rank self);

/// One round of the gossip among r nodes: pairs that exchange everything.
struct GossipRound {
  std::vector<std::pair<int, int>> pairs;
  int groups;  ///< pseudo-components in this round (r, or n' when merged)
};
/// Barrière, Cohen & Mitjana Algorithm 2 (r even: i <-> i + 2^j - 1 for even i, ⌈log2 r⌉
/// rounds) or Algorithm 3 (r odd, m = ⌊r/2⌋: i <-> i+m, the gossip among the
/// first n' (n' = m+1 for m odd, m+2 for m even), and i <-> i+m again). The
/// middle rounds of Algorithm 3 merge the nodes n'-1 .. r-1 into one
/// (`groups` = n'), which only the chordal ring's paths need to know.
std::vector<GossipRound> complete_gossip(int r);

/// The `groups` of round t (0-based) of complete_gossip(r). O(1).
int gossip_groups(int r, int t);
/// Sorted, disjoint, non-adjacent intervals [first, second) of node indices.
using NodeIntervals = std::vector<std::pair<int, int>>;
/// complete_gossip(r).size() without making it: O(log r).
int gossip_round_count(int r);
/// Node k's pair in round t (0-based) of complete_gossip(r), as the round
/// lists it ({first, second}), or {-1, -1} where k sits the round out. O(1).
std::pair<int, int> gossip_pair(int r, int t, int k);
/// The nodes whose blocks node k holds when round t (0-based; t = the
/// number of rounds: at the end) of complete_gossip(r) starts, in closed
/// form: Algorithm 2's node holds a cyclic interval of min(2^t, r) nodes.
/// O(1) intervals, so a rank finds what it sends without the other nodes'.
NodeIntervals gossip_holding(int r, int t, int k);
/// a less b.
NodeIntervals minus(const NodeIntervals& a, const NodeIntervals& b);

}  // namespace torusgather
