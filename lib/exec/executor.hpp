// SPDX-License-Identifier: BSD-3-Clause
// The MPI executor (layer 4 of docs/design.md): runs a verified schedule.
#pragma once

#include <mpi.h>

#include <memory>
#include <vector>

#include "schedule/schedule.hpp"

namespace torusgather {

/// Runs `schedule` on `comm`, whose rank r is torus rank r, and which no one
/// else sends on (a private duplicate). `recvbuf` already holds this rank's
/// own block in its slot. Per round: receives go straight into the slots of
/// recvbuf (relay receives, copies of blocks held, into scratch) and sends
/// come straight from them (zero copy); a piece of a block
/// is cut by element count, a set of blocks is a nested vector datatype.
/// Returns an MPI error code.
int execute(const Schedule& schedule, MPI_Comm comm, void* recvbuf, int recvcount, MPI_Datatype recvtype);

/// One rank's calls of a schedule for blocks of `recvcount` elements of
/// `recvtype`, made once: every round's peers, tags, buffer offsets and
/// derived datatypes. A program that repeats its allgathers runs these
/// instead of walking the schedule and committing types at every call.
class Prepared {
 public:
  Prepared() = default;
  Prepared(const Prepared&) = delete;
  Prepared& operator=(const Prepared&) = delete;
  ~Prepared();

  /// Runs the calls on comm into recvbuf (own block already in its slot).
  /// Each round waits for its receives only (they gate the next round's
  /// sends); every send completes by the end. Where the schedule's colours
  /// are independent, each colour is a stream: its next round waits for
  /// its own receives only. Returns an MPI error code.
  int run(MPI_Comm comm, void* recvbuf) const;
  /// Messages over all rounds (sends and receives).
  std::size_t messages() const;

  /// Binds the calls to recvbuf on comm (the caller's own communicator: a
  /// persistent allgather may be in flight while other calls run). Once;
  /// then start() and progress() run them, round after round, each start
  /// posting the round's nonblocking calls.
  int bind(MPI_Comm comm, void* recvbuf);
  /// Starts round 0 of the bound calls.
  int start();
  /// Runs the rounds whose receives have arrived (all of them if `block`):
  /// *done once every round has arrived and every send completed.
  int progress(bool block, bool* done);
  /// Displacements of its indexed datatypes (what they hold in memory).
  std::size_t type_entries() const { return type_entries_; }

  struct Op {
    MPI_Aint offset = 0;  ///< from recvbuf (receives into scratch: unused)
    int count = 0;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    int peer = 0, tag = 0;
    int scratch = -1;  ///< a relay receive: its scratch buffer
    MPI_Aint scratch_shift = 0;  ///< where in the scratch buffer the data starts
    int stream = 0;              ///< its colour, where the colours run as streams
  };

 private:
  friend int prepare_blocks(const Schedule&, MPI_Comm, int, const struct VarBlocks*, MPI_Datatype,
                            std::unique_ptr<Prepared>*);
  std::vector<std::vector<Op>> recvs_, sends_;  ///< per round
  std::vector<MPI_Datatype> owned_;             ///< freed with it
  std::size_t type_entries_ = 0;
  mutable std::vector<std::vector<char>> scratch_;
  mutable std::vector<MPI_Request> requests_;
  int streams_ = 1;  ///< colours run as streams (1: rounds in step)
  mutable std::vector<int> owners_;  ///< each request's stream, or -1 for a send
  int run_streams(MPI_Comm comm, char* base) const;
  int wait_one(int* owner) const;
  // bind(): where the calls go, their requests per round, the round in
  // progress (rounds before it have arrived), and whether sends may still
  // be in flight.
  MPI_Comm bound_comm_ = MPI_COMM_NULL;
  char* bound_base_ = nullptr;
  std::vector<std::vector<MPI_Request>> bound_recvs_, bound_sends_;
  std::size_t round_ = 0;
  bool sends_pending_ = false;
  int start_round(std::size_t round);
};

/// Whether the SimGrid flavour sends block sets as plain messages
/// (TG_Smpi_traffic_only); false elsewhere. Prepared calls depend on it.
bool traffic_only_mode();

/// Makes schedule's calls for this rank of comm (rank r is torus rank r).
int prepare(const Schedule& schedule, MPI_Comm comm, int recvcount, MPI_Datatype recvtype,
            std::unique_ptr<Prepared>* out);

/// Blocks of their own sizes (MPI_Allgatherv): torus rank t's block is
/// counts[t] elements at byte displacement displs[t] from the buffer.
struct VarBlocks {
  std::vector<int> counts;
  std::vector<MPI_Aint> displs;
};

/// prepare() for blocks of their own sizes: every piece of a block is cut
/// from that block's own count, and a message of several blocks is one
/// hindexed type of their pieces (empty pieces left out, an empty message
/// not sent: sender and receiver see the same counts).
int prepare_v(const Schedule& schedule, MPI_Comm comm, const VarBlocks& blocks, MPI_Datatype type,
              std::unique_ptr<Prepared>* out);

/// The common body of prepare() and prepare_v() (v null: blocks of recvcount).
int prepare_blocks(const Schedule& schedule, MPI_Comm comm, int recvcount, const VarBlocks* v, MPI_Datatype recvtype,
                   std::unique_ptr<Prepared>* out);

}  // namespace torusgather
