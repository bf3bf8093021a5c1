// SPDX-License-Identifier: BSD-3-Clause
// The cost model of the selector (Meyer & Sibeyn §5, Delmas & Pérennes §2): what
// a schedule's time depends on, as data, and the predicted time of a call.
// No MPI in this layer: the selector feeds it calibrated machine parameters.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "schedule/schedule.hpp"

namespace torusgather {

/// What one round costs depends on, maximised over the ranks and links of
/// that round. Blocks are in units of one block (s bytes).
struct RoundCost {
  double link_blocks = 0;  ///< most data on one directed link (messages sharing it add up)
  double recv_blocks = 0;  ///< most data one rank receives
  int sends = 0;           ///< most messages one rank sends
  int recvs = 0;           ///< most messages one rank receives
  int hops = 0;            ///< the longest route (1: neighbours only)
  /// Most data on one link of the node axis (shared memory), where the
  /// torus's last axis is a node's ranks; link_blocks is then the busiest
  /// network link of a node, the sum over the node's ranks.
  double node_blocks = 0;
  /// The round's colours run as streams (Schedule::independent_colours):
  /// one colour's overheads overlap another's transfers (predict()).
  bool streams = false;
  friend bool operator==(const RoundCost& a, const RoundCost& b) {
    return a.link_blocks == b.link_blocks && a.recv_blocks == b.recv_blocks && a.sends == b.sends &&
           a.recvs == b.recvs && a.hops == b.hops && a.node_blocks == b.node_blocks && a.streams == b.streams;
  }
};

/// A schedule's rounds, run-length encoded: (how many in a row, what each costs).
struct CostProfile {
  std::vector<std::pair<long long, RoundCost>> runs;

  void add(const RoundCost& c, long long times = 1);
  long long rounds() const;
  /// Flat form for MPI_Bcast (8 doubles per run) and back.
  std::vector<double> serialize() const;
  static CostProfile deserialize(const std::vector<double>& flat);
};

/// The machine: Meyer & Sibeyn's model (a message of m bytes costs α + mβ) with
/// Delmas & Pérennes's δ per extra hop of a routed call, a per-message overhead o
/// for the messages a rank handles beyond one send and one receive in a
/// round, and, where the ranks share memory rather than torus links
/// (`shared_memory`), the data a rank receives instead of a link's load.
struct Machine {
  double alpha = 1e-6;     ///< seconds per round (one message between neighbours)
  double beta = 1e-10;     ///< seconds per byte per link direction
  double delta = 0;        ///< seconds per hop beyond the first
  double overhead = 0;     ///< seconds a rank spends per message (α holds one send's and one receive's)
  bool shared_memory = false;
  /// The node axis's α and β (shared memory between a node's ranks); 0: as
  /// the network's.
  double node_alpha = 0;
  double node_beta = 0;
  /// A node's injection limit: seconds per byte of what its ranks send and
  /// receive over the network together in a round (0: none below its
  /// links). Charged as 2 · node_ranks · the round's busiest receiver,
  /// since the schedules send about what they receive.
  double inject_beta = 0;
  int node_ranks = 1;  ///< k > 1: the torus's last axis is each node's k ranks (set per plan)
};

/// Predicted seconds of one allgather with blocks of `block_bytes`:
/// Σ over rounds of α + δ·(hops−1) + max(o·(s+r−2) − (α−2o), β·bytes,
/// o·(s−1) + o·(⌈r/s⌉−1) + β·message) for s sends and r receives, bytes
/// being the busiest link's (or, in shared memory, the busiest receiver's):
/// the overheads overlap the transfer (LogP/LogGP; docs/design.md). A
/// round that also moves data on the node axis takes the longer of that
/// and α_node + β_node·(the busiest node-axis link's bytes). With an
/// injection limit, a network round's transfer term is at least
/// inject_beta · 2 · node_ranks · (the busiest receiver's bytes).
/// A streams round (RoundCost::streams) costs α − 2o + δ·(hops−1) +
/// max(C, N) + kStreamsUnhidden · min(C, N), C = o·(s+r) its overheads and
/// N its transfer term: the streams' rounds overlap.
double predict(const CostProfile& profile, const Machine& m, double block_bytes);

/// Streams (Schedule::streams_link_blocks): each round's link term becomes
/// its share of the fluid time, as the round receives, the network link
/// carrying `share` ranks' (a node's); the node axis is among the fluid's links.
void spread_streams(CostProfile* profile, double fluid_blocks, double share);

/// Steps through every round of every rank and records its RoundCost
/// (O(P · rounds · messages)) on the physical torus: calls between ranks
/// that are not torus neighbours take the dimension-order route (what the
/// network does with one MPI message), not the paper's dipath. Schedules with a structural proof and more
/// than `step_limit` ranks are charged their proven per-round maxima on
/// every round instead.
/// `physical` is the torus the ranks sit on, where it differs from the
/// schedule's own (the circulant and the chordal ring are built on a ring of
/// P ranks; their calls cross the communicator's torus).
/// `node_ranks` k > 1: the physical torus's last axis is each node's k
/// ranks: its links go to node_blocks, and the network links of a node's k
/// ranks are one link (their loads add up). A node-aware schedule
/// (NodeSlicedSchedule) is charged its inner schedule's profile with every
/// link shared by the k slices, then its node ring.
CostProfile profile(const Schedule& schedule, long long step_limit = 4096, const Torus* physical = nullptr,
                    int node_ranks = 1);

/// The allgathers an MPI library picks from (Open MPI's coll/tuned, MPICH,
/// SimGrid SMPI's default of one isend/irecv per pair: `kLinear`), run on
/// the torus with the communicator's rank order and dimension-order routes.
/// Recursive doubling on a P that is not a power of two, and neighbour
/// exchange on an odd P, are charged as Open MPI runs them: Bruck, ring.
/// `kShift` is SimGrid SMPI's "ring" (after Faraj and Yuan): in step i of
/// P-1, rank r sends its own block to r+i, over ever longer routes.
/// `kRecursiveDoublingTree` is recursive doubling as MPICH (and SimGrid's
/// "rdb") runs it on any P: where the partner subtree of a step is
/// incomplete, the ranks that had a partner pass what they received on to
/// those that had none, halving the distance in extra rounds.
enum class VendorAlgorithm {
  kRing,
  kNeighborExchange,
  kRecursiveDoubling,
  kBruck,
  kTwoProc,
  kLinear,
  kShift,
  kRecursiveDoublingTree
};
const char* to_string(VendorAlgorithm a);
/// The vendor algorithm's profile by routing every message of every step:
/// O(P * messages * hops). The reference vendor_profile's closed forms
/// (model/closed_form.hpp) are tested against. With node_ranks k > 1
/// (the last axis is each node's ranks) a node's network links are shared
/// by its k ranks and the node axis is charged to node_blocks, as profile().
CostProfile vendor_profile_stepped(const Torus& torus, VendorAlgorithm a, int node_ranks = 1);

/// Which algorithm the vendor's allgather runs for P ranks and blocks of
/// `block_bytes`: "ompi" (Open MPI 4.1 coll/tuned's fixed decision, also
/// SimGrid's smpi/allgather:ompi), "mpich" (MPICH's classic thresholds:
/// recursive doubling below 512 KiB in total for powers of two, Bruck below
/// 80 KiB, ring above), or a single algorithm ("ring", "rdb", "bruck",
/// "neighbor"). Empty name: unknown vendor -> false.
bool vendor_choice(const std::string& vendor, long long P, long long block_bytes, VendorAlgorithm* out);

}  // namespace torusgather
