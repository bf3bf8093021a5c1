// SPDX-License-Identifier: BSD-3-Clause
// Everything torusgather keeps per communicator, in parts whose lifetimes
// and collective steps the types say, built on first use and cached in an
// MPI attribute.
#pragma once

#include <mpi.h>

#include <array>
#include <list>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "api/calibrate.hpp"
#include "api/torus_source.hpp"
#include "exec/executor.hpp"
#include "model/auto_policy.hpp"
#include "model/predictions.hpp"
#include "model/cost.hpp"
#include "schedule/schedule.hpp"

namespace torusgather {

/// What the buffer checks need of a datatype: MPI_BOTTOM needs a true lower
/// bound, and the send and receive spans may not overlap.
struct Layout {
  MPI_Aint extent = 0, true_lb = 0, true_extent = 0;
};

/// Whether TORUSGATHER_TUNING_FILE was read for this plan (rank 0 reads it,
/// collectively, once; its lines go to AutoState::tuning).
struct TuningFileState {
  bool read = false;
};

/// The last call's arguments apart from its buffers, and what they decided:
/// a program that calls MPI_Allgather in a loop repeats them, and the checks
/// and the choice they need are then skipped. Kept only when both types
/// are predefined: a freed derived type's handle may come back as another.
struct CallMemo {
  bool valid = false;
  std::string requested;  ///< the algorithm asked for ("auto", a name)
  bool from_environment = false;  ///< requested is TORUSGATHER_ALGORITHM's (the caller named none)
  bool in_place = false;
  int sendcount = 0, recvcount = 0;
  MPI_Datatype sendtype = MPI_DATATYPE_NULL, recvtype = MPI_DATATYPE_NULL;
  Layout send, recv;
  bool contiguous = false;             ///< recvtype: count elements are count*extent bytes
  bool memcpy_own = false;             ///< the own block is copied with memcpy
  /// recvcount * extent where recvtype is contiguous, else 0: the schedule
  /// then moves bytes, so colours cut a block by bytes (one element of a
  /// large type is still split d ways) and a derived type's calls can be kept.
  int bytes = 0;
  const Schedule* schedule = nullptr;  ///< what runs (nullptr: the vendor's allgather)
  /// The vendor's allgather runs, on more than one rank: a repeated call
  /// goes straight to it, whose own checks are then the call's.
  bool hand_off = false;
  /// auto hands the call to the vendor while its learning waits
  /// (api/learning.hpp): the call is counted toward the wait.
  bool waiting = false;
};

/// A built schedule's identity: its algorithm and variant (a size-tuned
/// one's r bucket, else kDefaultVariant).
struct ScheduleKey {
  AlgorithmId id = kUniversal;
  long variant = kDefaultVariant;
  bool operator<(const ScheduleKey& o) const { return std::tie(id, variant) < std::tie(o.id, o.variant); }
};

/// A plan's schedules: each built on first need on the ranks that run it,
/// and kept for the plan's life. Local; agreed_schedule_of() (plan_cache.hpp)
/// adds one collective step the first time a key is asked for.
struct ScheduleCache {
  /// Built schedules by algorithm and parameters (two r buckets may share one).
  std::map<std::pair<AlgorithmId, std::string>, std::unique_ptr<Schedule>> built;
  std::map<ScheduleKey, const Schedule*> by_key;
  std::map<ScheduleKey, std::string> declined;  ///< why it does not apply
  std::set<ScheduleKey> agreed;                 ///< every rank has built it (or declined alike)
  /// Size-tuned algorithm -> r bucket -> its parameters (the search is slow).
  std::map<AlgorithmId, std::map<long, std::string>> params;
  /// The schedule rank 0 last built only to profile it: dropped after the
  /// decision, so every rank keeps only what runs.
  std::unique_ptr<Schedule> profiling_scratch;
};

/// A plan's cost profiles: computed by rank 0 and broadcast (collective the
/// first time a key is asked for), kept for the plan's life.
struct ProfileCache {
  std::map<ProfileKey, CostProfile> profiles;
  std::map<ProfileKey, std::string> declined;  ///< why there is none
};

/// What a plan keeps of its calls: the decisions of recent calls, and the
/// calls made for recent schedules, sizes and types. Local, bounded; reused
/// by repeated calls, which then walk no schedule and check no arguments
/// but the buffers.
struct CallCache {
  /// The decisions of the last few distinct calls (a program that
  /// alternates sizes repeats each), replaced oldest first.
  static constexpr std::size_t kMemos = 8;
  std::array<CallMemo, kMemos> memos;
  std::size_t next_memo = 0;
  std::size_t last_hit = 0;  ///< the memo a repeated call looks at first
  /// Made calls (exec/executor.hpp) of recent (schedule, count, type)s,
  /// newest first: at most kPrepared, each of at most kPreparedMessages
  /// messages (some 50 bytes each) and kPreparedEntries indexed-type
  /// displacements, so a plan keeps some 10 MB at most besides the relay
  /// scratch of its block sizes. Not under SimGrid SMPI, whose simulated
  /// ranks share one process: P plans' worth in one address space.
  struct PreparedCalls {
    const Schedule* schedule = nullptr;
    int recvcount = 0;
    MPI_Datatype recvtype = MPI_DATATYPE_NULL;
    bool traffic_only = false;
    std::unique_ptr<Prepared> calls;
  };
  static constexpr std::size_t kPrepared = 8;
  static constexpr std::size_t kPreparedMessages = 16384;
  static constexpr std::size_t kPreparedEntries = 16384;
  std::list<PreparedCalls> prepared;
  /// The same for MPI_Allgatherv: the calls of the last kPreparedV
  /// (schedule, counts, displacements, type)s, newest first. Their tables
  /// hold O(P) entries, as the caller's counts and displacements do.
  struct PreparedV {
    const Schedule* schedule = nullptr;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    VarBlocks blocks;
    std::unique_ptr<Prepared> calls;
  };
  static constexpr std::size_t kPreparedV = 2;
  std::list<PreparedV> prepared_v;
  /// A topology file's torus order: the scratch buffer the schedule runs on.
  std::vector<char> permuted_scratch;
};

/// auto's wait before it learns on this plan (api/learning.hpp): local
/// counts, and the last agreed time the plan's group has spent.
struct LearningWait {
  bool asked = false;           ///< the first agreement was made
  bool open = false;            ///< the wait is over (agreed; never closes again)
  unsigned long calls = 0;      ///< calls handed to the vendor while waiting
  double agreed_seconds = 0;    ///< the group's time at the last agreement
  double own_seconds = 0;       ///< this plan's own account, where the group has no key
  double* group_seconds = nullptr;  ///< the group's account (api/learning.cpp), once looked up
};
/// Everything torusgather keeps per communicator: built collectively on
/// the first call, deleted with the communicator (an MPI attribute).
struct Plan {
  /// Private communicator over the user's ranks (a dup, or a split in a
  /// topology file's order); rank t is torus rank t (the user's rank unless
  /// a topology file reorders them).
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0, size = 0;  ///< in comm
  Torus torus;
  TorusSource source = TorusSource::none;
  /// k > 1: the torus's last axis is the k ranks of each node (shared
  /// memory), the others the node torus (docs/usage.md, "Many ranks per node").
  int node_ranks = 1;
  /// Source none: why no torus is known (auto then runs the vendor's
  /// allgather; a forced algorithm runs on MPI_Dims_create's shape).
  std::string torus_note;
  /// torus rank -> the user's rank, where a topology file reorders the
  /// ranks (empty otherwise): the schedule then runs on a scratch buffer in
  /// torus order, copied to the user's slots (one extra local copy).
  std::vector<int> user_rank;
  /// The node of each rank (its node's lowest rank), for the algorithms
  /// that need it (AlgorithmInfo::needs_node_map): empty until
  /// ensure_node_map() (P ints: not kept where it never runs).
  std::vector<int> node_of;

  /// The machine, measured on first need (collective; api/machine.hpp), and
  /// the model's view of this plan made from it once.
  std::unique_ptr<Calibration> calibration;
  std::unique_ptr<ModelContext> model;

  ScheduleCache schedules;
  ProfileCache profiles;
  AutoState autos;
  LearningWait learning;
  TuningFileState tuning_file;
  mutable CallCache calls;
  std::set<std::string> announced;  ///< TORUSGATHER_VERBOSE's lines said once
  /// The plan's ranks as a key of the process's caches (api/group.hpp).
  std::string group_key;
  bool group_key_known = false;

  explicit Plan(Torus t) : torus(std::move(t)) {}
};

/// Runs fn when MPI_Finalize begins: MPI deletes the attributes of
/// MPI_COMM_SELF first thing in MPI_Finalize (MPI-3.1 §8.7.1), so fn runs as
/// the delete callback of one. For freeing torusgather's keyvals.
void at_finalize(void (*fn)());

/// The cached plan of comm, built (collectively) if absent.
int get_plan(MPI_Comm comm, Plan** plan);

/// The cached plan of comm, or nullptr: local, builds nothing.
Plan* find_plan(MPI_Comm comm);

}  // namespace torusgather
