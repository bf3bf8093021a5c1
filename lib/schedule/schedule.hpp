// SPDX-License-Identifier: BSD-3-Clause
// Schedules as plain data: what each rank sends and receives in each round.
// No MPI in this layer; the simulator and the MPI executor both consume it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "topology/torus.hpp"

namespace torusgather {

/// Which part of a block a message carries. A block of `count` elements is cut
/// by element count into `colours` parts; `half` optionally halves that part
/// again (used when the same part would otherwise arrive twice in one round).
struct Piece {
  /// Units of a block in a weighted piece's range (2^15).
  static constexpr long long kUnits = 1 << 15;
  std::uint16_t colour = 0;
  std::uint16_t colours = 1;
  std::uint8_t half = 0;  ///< 0: the whole part, 1: its first half, 2: its second half
  /// A weighted colour: units [lo, hi) of kUnits; hi == 0: the colour's
  /// equal share, 1/colours of the block.
  std::uint16_t lo = 0, hi = 0;

  /// Element range [first, second) of a block of `count` elements.
  std::pair<long long, long long> elements(long long count) const {
    long long from = hi ? count * lo / kUnits : count * colour / colours;
    long long to = hi ? count * hi / kUnits : count * (colour + 1) / colours;
    const long long mid = from + (to - from) / 2;
    if (half == 1) to = mid;
    if (half == 2) from = mid;
    return {from, to};
  }
  /// What part of a block it is.
  double share() const {
    const double whole = hi ? static_cast<double>(hi - lo) / kUnits : 1.0 / colours;
    return half ? whole / 2 : whole;
  }
  /// Which colour and half, as a bit mask (used by the simulator to check
  /// that every part arrives exactly once): 2 bits per colour.
  std::uint32_t unit_mask() const {
    const std::uint32_t both = 3u << (2 * colour);
    if (half == 1) return 1u << (2 * colour);
    if (half == 2) return 2u << (2 * colour);
    return both;
  }
  friend bool operator==(const Piece& a, const Piece& b) {
    return a.colour == b.colour && a.colours == b.colours && a.half == b.half && a.lo == b.lo && a.hi == b.hi;
  }
};

/// A set of blocks: those of every rank whose coordinates equal `origin`'s on
/// every axis not in `free_axes`. A single block has free_axes == 0. The
/// origin is canonical: its coordinates on the free axes are zero. In the
/// row-major recvbuf such a set is a regular sub-box, so the executor can
/// describe it with O(d) nested vector datatypes.
struct BlockSet {
  Rank origin = 0;
  std::uint32_t free_axes = 0;
  friend bool operator==(const BlockSet& a, const BlockSet& b) {
    return a.origin == b.origin && a.free_axes == b.free_axes;
  }
};

/// Blocks [first, second) of the receive buffer, as a sorted list of
/// disjoint, non-adjacent ranges: the block sets of routed schedules, which
/// are not sub-boxes of the torus.
using BlockRanges = std::vector<std::pair<Rank, Rank>>;

/// One message of a round, seen from one rank.
///
/// A neighbour call (peer < 0) goes out of, or comes in on, `port` and
/// carries `blocks`. A routed call (peer >= 0: the circuit-switched calls of
/// Monakhova & Monakhov and Delmas & Pérennes) goes to or comes from rank `peer` along `route`, the
/// ports taken hop by hop from the sender, and carries `ranges`; `port` is
/// then the sender's first port on both sides (it tells apart calls between
/// the same two ranks in one round). The route and ranges belong to the
/// schedule, which outlives its programs.
///
/// A relay receive (`relay`, receives only) brings one block the rank already
/// holds or gets in the same round: time-independent forwarding rules (seed
/// 000 §4, without switching) pass packets on past ranks that have them. The
/// executor receives it into scratch memory, never into the receive buffer,
/// which may be sending the same block in that round.
struct Transfer {
  Port port = 0;
  BlockSet blocks;
  Piece piece;
  Rank peer = -1;
  const std::vector<Port>* route = nullptr;
  const BlockRanges* ranges = nullptr;
  bool relay = false;
  /// Tells apart the messages of one colour on one link in one round (the
  /// overlapped node ring passes on several): sender and receiver number
  /// them alike, 0 to kMaxSeq; the MPI tag carries it.
  std::uint8_t seq = 0;
  static constexpr int kMaxSeq = 15;

  bool routed() const { return peer >= 0; }
};

/// Calls f(rank) for every block of the set.
template <class F>
void for_each_block(const Torus& t, const BlockSet& b, F&& f) {
  std::vector<int> free;
  for (int a = 0; a < t.ndims(); ++a)
    if (b.free_axes & (1u << a)) free.push_back(a);
  std::vector<int> idx(free.size(), 0);
  while (true) {
    Rank r = b.origin;
    for (std::size_t k = 0; k < free.size(); ++k) r += idx[k] * t.stride(free[k]);
    f(r);
    std::size_t k = 0;
    while (k < free.size() && ++idx[k] == t.dim(free[k])) idx[k++] = 0;
    if (k == free.size()) break;
  }
}

/// Calls f(rank) for every block a transfer carries.
template <class F>
void for_each_block(const Torus& t, const Transfer& x, F&& f) {
  if (!x.ranges) return for_each_block(t, x.blocks, f);
  for (const auto& range : *x.ranges)
    for (Rank b = range.first; b < range.second; ++b) f(b);
}

/// What one rank does in one round.
struct RoundOps {
  std::vector<Transfer> sends;
  std::vector<Transfer> recvs;
  void clear() {
    sends.clear();
    recvs.clear();
  }
};

/// The program of one rank: a cursor that yields its rounds one by one.
/// Implementations keep O(d) state: origins are derived by walking each
/// stream back one hop per round (time-independence: the stream's past
/// is its route run backwards), never from a table of P entries.
class RankProgram {
 public:
  virtual ~RankProgram() = default;
  /// Fills `ops` (cleared first) with the next round.
  virtual void next_round(RoundOps& ops) = 0;
};

/// What a schedule's structure proves without stepping through every round.
struct StructuralProof {
  bool supported = false;  ///< false: this schedule has no structural proof
  bool complete = false;
  long long rounds = 0;
  int max_link_messages_per_round = 0;
  double max_link_blocks_per_round = 0;  ///< in units of s
  double volume_per_rank_blocks = 0;
  std::string detail;  ///< what was proven, or what failed
};

/// Where colours run as streams (Schedule::independent_colours), the part
/// of the smaller of a round's CPU time (its messages' overheads) and its
/// network time that the other streams do not hide. Fitted in SimGrid on
/// seven presets, 256 B to 8 KiB (docs/design.md, "Pricing streams").
constexpr double kStreamsUnhidden = 0.1;

/// A round of streams: its start-up, the longer of its overheads and its
/// transfer, and kStreamsUnhidden of the shorter (in seconds for predict(),
/// in one block's time over a link for DimRingsSchedule::model_cost).
inline double streams_round(double start_up, double overheads, double transfer) {
  return start_up + std::max(overheads, transfer) + kStreamsUnhidden * std::min(overheads, transfer);
}

/// A neighbour-only allgather schedule on a torus.
class Schedule {
 public:
  explicit Schedule(Torus torus) : torus_(std::move(torus)) {}
  virtual ~Schedule() = default;

  virtual const char* name() const = 0;
  const Torus& torus() const { return torus_; }
  /// Number of rounds, as given by the construction's theorem.
  virtual long long rounds() const = 0;
  /// Parts each block is cut into.
  virtual int colours() const = 0;
  /// The most messages any directed link carries in one round, as claimed.
  virtual int claimed_max_link_messages_per_round() const = 0;
  virtual std::unique_ptr<RankProgram> program(Rank r) const = 0;
  /// Which construction the schedule uses, where there is a choice.
  virtual std::string construction() const { return {}; }
  /// O(P*d) proof from the structure, for P too large to step through.
  virtual StructuralProof prove() const { return {}; }
  /// True where every transfer of every program is a routed call (peer,
  /// route and ranges set), so the calls can be checked one by one.
  virtual bool routed_calls_only() const { return false; }
  /// Each colour's calls read only what the same colour received: the
  /// executor may run the colours as independent streams, each round of a
  /// colour waiting for that colour's receives only.
  virtual bool independent_colours() const { return false; }
  /// Streams whose rounds drift apart: their links' time in a fluid model,
  /// in one block's time over one link, which the cost profile spreads
  /// over the rounds in place of each round's busiest link (0: none).
  virtual double streams_link_blocks() const { return 0; }
  /// The part of every block colour c carries (before any halving).
  virtual Piece colour_piece(int colour) const {
    return Piece{static_cast<std::uint16_t>(colour), static_cast<std::uint16_t>(colours()), 0};
  }

  /// The network the schedule's ports and routes refer to: the torus by
  /// default; a circulant or chordal ring on the same ranks overrides both.
  virtual int link_ports() const { return torus_.ports(); }
  virtual Rank link_target(Rank r, Port p) const { return torus_.neighbor(r, p); }
  /// False where link_ports/link_target describe another graph than the
  /// torus: its links are then multi-hop paths of the physical torus.
  virtual bool torus_network() const { return true; }
  /// The sum over rounds of each round's longest route, in hops: the
  /// coefficient of the per-hop delay in a circuit-switched cost formula
  /// (Delmas & Pérennes: 4α + 12δ + ...). Negative: no claim.
  virtual long long claimed_hops_sum() const { return -1; }
  /// The sum over rounds of each round's largest message, in blocks: the
  /// transfer term of Juurlink, Rao & Sibeyn's cost rounds·r + blocks (units of sβ).
  /// Fractions of a block where blocks are cut into colours. Negative: no
  /// claim.
  virtual double claimed_blocks_sum() const { return -1; }

 private:
  Torus torus_;
};

}  // namespace torusgather
