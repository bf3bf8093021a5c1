// SPDX-License-Identifier: BSD-3-Clause
// The geometry of circgos(n, a, b) on one ring (Juurlink, Rao & Sibeyn
// §4.1-4.2): where the bridgeheads are and who merges with whom. Shared by
// bridgehead's and cubgos' cost formulas and generators; what each step
// costs is counted by each, and the simulator checks the generators' counts.
#pragma once

#include <memory>
#include <utility>
#include <vector>

namespace torusgather {
namespace ring_gossip {

/// While one lives on a thread, phase 3's geometry (each gap's streams,
/// the bridgeheads round by round, phase 1) is remembered there, for a
/// parameter search that tries thousands of (a, b, k); it goes with the
/// outermost one, so a plan keeps none of it.
class SearchMemo {
 public:
  SearchMemo();
  ~SearchMemo();
  SearchMemo(const SearchMemo&) = delete;
  SearchMemo& operator=(const SearchMemo&) = delete;
  struct Tables;

 private:
  std::unique_ptr<Tables> own_;  ///< null inside an outer SearchMemo
};

/// One call of phase 1: `from` (offset in its segment) sends its group of
/// `size` ranks' data to `to`.
struct Merge {
  int from, to;
  long long size;
};

/// Phase 1 on a segment of m ranks, remembered per m (per thread): its steps, the
/// offset of the leader it ends at, and (if asked) the run of offsets each
/// offset holds after it.
const std::vector<std::vector<Merge>>& concentration(int m, int* leader,
                                                    std::vector<std::pair<int, int>>* held = nullptr);

struct Segment {
  int start, length, bridgehead;
};

/// Phase 1's a segments of a ring of n: segment i is [⌊in/a⌋, ⌊(i+1)n/a⌋),
/// its bridgehead where concentration ends (evenly spaced when a | n).
std::vector<Segment> segments(int n, int a);

/// Packet c of k: the ring positions [cn/k, (c+1)n/k).
std::pair<int, int> packet_run(int n, int k, int c);

/// The bridgeheads' gaps (to the next one, cyclically); a single bridgehead
/// has the whole ring as its gap.
std::vector<int> gaps(const std::vector<int>& heads, int n);

/// The bridgeheads after phase 1 of circgos(n, a, b).
std::vector<int> initial_heads(int n, int a);

/// A call of phase 3 between positions of a ring: + (rightwards, in order)
/// or - (leftwards, in reverse order), carrying packet `packet` (0-based).
struct ChainCall {
  int from, to;
  bool plus;
  int dist;
  int packet;
  int size = 0;  ///< blocks the receiver lacks (set by chain_rounds)
};

/// The pipelined rounds of circgos' phase 3 on a ring of n (bridgeheads
/// after phase 1, multiplied by b per round, k packets of n/k positions),
/// with what each call carries: a position stands for rows[t] rows of data
/// in round t (none given: one, as on a ring; cubgos' phase 4a: the old
/// bridgeheads' class, §6.2). Never more steps than Lemma 5's count.
std::vector<std::vector<std::vector<ChainCall>>> chain_rounds(int n, int a, int b, int k,
                                                              const std::vector<long long>& rows = {});
/// The same rounds for the cost formulas: each kept step's largest call.
std::vector<std::vector<long long>> chain_round_largest(int n, int a, int b, int k,
                                                        const std::vector<long long>& rows = {});
/// How many rounds chain_rounds(n, a, b, k) has, without listing them:
/// O(distinct gaps) once the search memo knows them.
long long phase3_rounds(int n, int a, int b);
/// At most what chain_round_largest(n, a, b, k) keeps: its step count and
/// the sum of its steps' largest calls. Each round's new bridgeheads must
/// receive every packet their phase-1 run does not cover, at most two calls
/// (one per stream) a step, and every step carries a packet less the
/// callee's run. O(1) once the search memo knows (n, a).
std::pair<long long, long long> chain_floor(int n, int a, int b, int k);
/// At most the same, and at least chain_floor: where a packet is longer
/// than any phase-1 run no call is dropped, and each round keeps every
/// step of its longest pipeline (Lemma 5's count). O(rounds) once the
/// search memo knows (n, a, b).
std::pair<long long, long long> pipelines_floor(int n, int a, int b, int k);

}  // namespace ring_gossip
}  // namespace torusgather
