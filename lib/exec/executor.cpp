// SPDX-License-Identifier: BSD-3-Clause
#include "exec/executor.hpp"

#include <algorithm>
#include <climits>
#include <map>
#include <tuple>
#include <vector>

namespace torusgather {
namespace {

constexpr int kSend = -1;  ///< run(), run_streams(): the owner of a send request
constexpr int kNone = -2;  ///< wait_one(): nothing completed

/// Derived datatypes for block sets, built once per (free axes, elements)
/// within one call and freed with it (RAII).
class BlockSetTypes {
 public:
  BlockSetTypes(const Torus& t, int recvcount, MPI_Datatype recvtype, MPI_Aint extent)
      : t_(t), recvcount_(recvcount), recvtype_(recvtype), extent_(extent) {}
  BlockSetTypes(const BlockSetTypes&) = delete;
  BlockSetTypes& operator=(const BlockSetTypes&) = delete;
  ~BlockSetTypes() {
    for (auto& entry : cache_) PMPI_Type_free(&entry.second);
  }
  /// Hands the types over (the caller frees them).
  std::vector<MPI_Datatype> release() {
    std::vector<MPI_Datatype> out;
    for (auto& entry : cache_) out.push_back(entry.second);
    cache_.clear();
    return out;
  }

  /// The type describing `elements` elements of every block of a set with
  /// these free axes, relative to the first element of the set's first block.
  int get(std::uint32_t free_axes, long long elements, MPI_Datatype* out) {
    const auto key = std::make_pair(free_axes, elements);
    if (auto it = cache_.find(key); it != cache_.end()) {
      *out = it->second;
      return MPI_SUCCESS;
    }
    MPI_Datatype inner;
    int err = PMPI_Type_contiguous(static_cast<int>(elements), recvtype_, &inner);
    for (int a = t_.ndims() - 1; a >= 0 && err == MPI_SUCCESS; --a) {
      if (!(free_axes & (1u << a))) continue;
      MPI_Datatype outer;
      const MPI_Aint stride = static_cast<MPI_Aint>(t_.stride(a)) * recvcount_ * extent_;
      err = PMPI_Type_create_hvector(t_.dim(a), 1, stride, inner, &outer);
      PMPI_Type_free(&inner);
      inner = outer;
    }
    if (err == MPI_SUCCESS) err = PMPI_Type_commit(&inner);
    if (err != MPI_SUCCESS) return err;
    cache_.emplace(key, inner);
    *out = inner;
    return MPI_SUCCESS;
  }

 private:
  const Torus& t_;
  int recvcount_;
  MPI_Datatype recvtype_;
  MPI_Aint extent_;
  std::map<std::pair<std::uint32_t, long long>, MPI_Datatype> cache_;
};

/// Tags tell apart the messages between one pair of ranks in one round: the
/// sender's port (two ports lead to the same rank on a side of 2), the
/// colour and the message's number among that colour's on the link (seq);
/// routed calls (sender's first port) get tags of their own. Only the port
/// mod 64 is kept, so tags stay within the 32767 every MPI allows: the
/// torus has at most 2d ports, the circulant 4 and the chordal ring 3, and
/// the complete graph of `three-phase` (P ports) has at most one call per
/// pair and round.
int tag_of(const Transfer& x, Port sender_port) {
  return (x.seq << 11) | (x.routed() ? 1 << 10 : 0) | ((sender_port & 63) << 4) | x.piece.colour;
}

#ifdef TORUSGATHER_SMPI
/// See TG_Smpi_traffic_only: per simulated rank (SMPI privatises globals).
bool traffic_only = false;
#endif

}  // namespace

Prepared::~Prepared() {
  for (MPI_Datatype& t : owned_) PMPI_Type_free(&t);
}

int Prepared::bind(MPI_Comm comm, void* recvbuf) {
  // Each start posts nonblocking calls: Open MPI 4.1's persistent requests
  // are slower than them, and SimGrid 3.32's persistent sends of derived
  // types carry stale data (docs/usage.md).
  bound_comm_ = comm;
  bound_base_ = static_cast<char*>(recvbuf);
  bound_recvs_.assign(recvs_.size(), {});
  bound_sends_.assign(sends_.size(), {});
  for (std::size_t round = 0; round < recvs_.size(); ++round) {
    bound_recvs_[round].assign(recvs_[round].size(), MPI_REQUEST_NULL);
    bound_sends_[round].assign(sends_[round].size(), MPI_REQUEST_NULL);
  }
  round_ = recvs_.size();  // inactive until start()
  return MPI_SUCCESS;
}

int Prepared::start_round(std::size_t round) {
  auto& recvs = bound_recvs_[round];
  auto& sends = bound_sends_[round];
  int err = MPI_SUCCESS;
  for (std::size_t i = 0; i < recvs.size() && err == MPI_SUCCESS; ++i) {
    const Op& op = recvs_[round][i];
    char* at = op.scratch >= 0 ? scratch_[static_cast<std::size_t>(op.scratch)].data() + op.scratch_shift
                               : bound_base_ + op.offset;
    err = PMPI_Irecv(at, op.count, op.type, op.peer, op.tag, bound_comm_, &recvs[i]);
  }
  for (std::size_t i = 0; i < sends.size() && err == MPI_SUCCESS; ++i) {
    const Op& op = sends_[round][i];
    err = PMPI_Isend(bound_base_ + op.offset, op.count, op.type, op.peer, op.tag, bound_comm_, &sends[i]);
  }
  sends_pending_ = sends_pending_ || !sends.empty();
  return err;
}

int Prepared::start() {
  round_ = 0;
  sends_pending_ = false;
  return bound_recvs_.empty() ? MPI_SUCCESS : start_round(0);
}

int Prepared::progress(bool block, bool* done) {
  *done = false;
  // A round's receives gate the next round's sends (what they forward).
  while (round_ < bound_recvs_.size()) {
    auto& recvs = bound_recvs_[round_];
    int arrived = 1;
    const int n = static_cast<int>(recvs.size());
    const int err = block ? PMPI_Waitall(n, recvs.data(), MPI_STATUSES_IGNORE)
                          : PMPI_Testall(n, recvs.data(), &arrived, MPI_STATUSES_IGNORE);
    if (err != MPI_SUCCESS) return err;
    if (!arrived) return MPI_SUCCESS;
    if (++round_ < bound_recvs_.size())
      if (const int e = start_round(round_); e != MPI_SUCCESS) return e;
  }
  if (sends_pending_) {
    for (auto& sends : bound_sends_) {
      int sent = 1;
      const int n = static_cast<int>(sends.size());
      const int err = block ? PMPI_Waitall(n, sends.data(), MPI_STATUSES_IGNORE)
                            : PMPI_Testall(n, sends.data(), &sent, MPI_STATUSES_IGNORE);
      if (err != MPI_SUCCESS) return err;
      if (!sent) return MPI_SUCCESS;
    }
    sends_pending_ = false;
  }
  *done = true;
  return MPI_SUCCESS;
}

std::size_t Prepared::messages() const {
  std::size_t n = 0;
  for (const auto& r : recvs_) n += r.size();
  for (const auto& r : sends_) n += r.size();
  return n;
}

// Waits for one posted request and gives its owner (kNone where none was
// left), then drops the completed ones: posting appends, and SimGrid walks
// a rank's posted requests on every completion.
int Prepared::wait_one(int* owner) const {
  int index = MPI_UNDEFINED;
  *owner = kNone;
  const int err = PMPI_Waitany(static_cast<int>(requests_.size()), requests_.data(), &index, MPI_STATUS_IGNORE);
  if (err != MPI_SUCCESS || index == MPI_UNDEFINED) return err;
  *owner = owners_[static_cast<std::size_t>(index)];
  std::size_t live = 0;
  for (std::size_t i = 0; i < requests_.size(); ++i)
    if (requests_[i] != MPI_REQUEST_NULL) requests_[live] = requests_[i], owners_[live++] = owners_[i];
  requests_.resize(live);
  owners_.resize(live);
  return MPI_SUCCESS;
}

int Prepared::run_streams(MPI_Comm comm, char* base) const {
  const std::size_t rounds = recvs_.size();
  const auto streams = static_cast<std::size_t>(streams_);
  std::vector<std::size_t> next(streams, 0);  // each stream's next round to post
  std::vector<int> waiting(streams, 0);       // its posted receives not yet arrived
  requests_.clear();
  owners_.clear();
  int err = MPI_SUCCESS;
  // Posts stream s's rounds from next[s] until one has receives to wait for.
  const auto post = [&](std::size_t s) {
    while (next[s] < rounds && waiting[s] == 0 && err == MPI_SUCCESS) {
      const std::size_t round = next[s]++;
      for (const Op& op : recvs_[round]) {
        if (static_cast<std::size_t>(op.stream) != s || err != MPI_SUCCESS) continue;
        char* at = op.scratch >= 0 ? scratch_[static_cast<std::size_t>(op.scratch)].data() + op.scratch_shift
                                   : base + op.offset;
        requests_.push_back(MPI_REQUEST_NULL);
        owners_.push_back(op.stream);
        err = PMPI_Irecv(at, op.count, op.type, op.peer, op.tag, comm, &requests_.back());
        ++waiting[s];
      }
      for (const Op& op : sends_[round]) {
        if (static_cast<std::size_t>(op.stream) != s || err != MPI_SUCCESS) continue;
        requests_.push_back(MPI_REQUEST_NULL);
        owners_.push_back(kSend);
        err = PMPI_Isend(base + op.offset, op.count, op.type, op.peer, op.tag, comm, &requests_.back());
      }
    }
  };
  // In the order of the first round's sends (a node's ranks start on different ports).
  const std::size_t first = rounds > 0 && !sends_[0].empty() ? static_cast<std::size_t>(sends_[0].front().stream) : 0;
  for (std::size_t q = 0; q < streams; ++q) post((first + q) % streams);
  // One completion at a time: SimGrid 3.32's MPI_Waitsome delays the
  // streams (docs/design.md). Sends complete among the receives.
  while (err == MPI_SUCCESS) {
    int owner = kNone;
    if ((err = wait_one(&owner)) != MPI_SUCCESS || owner == kNone) break;
    if (owner != kSend && --waiting[static_cast<std::size_t>(owner)] == 0) post(static_cast<std::size_t>(owner));
  }
  // Complete what was posted even after an error, so no request outlives the call.
  const int wait_err = PMPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  return err != MPI_SUCCESS ? err : wait_err;
}

int Prepared::run(MPI_Comm comm, void* recvbuf) const {
  char* base = static_cast<char*>(recvbuf);
  if (streams_ > 1) return run_streams(comm, base);
  int err = MPI_SUCCESS;
  requests_.clear();
  owners_.clear();
  for (std::size_t round = 0; round < recvs_.size() && err == MPI_SUCCESS; ++round) {
    int waiting = 0;  // the round's receives not yet arrived
    for (const Op& op : recvs_[round]) {
      char* at = op.scratch >= 0 ? scratch_[static_cast<std::size_t>(op.scratch)].data() + op.scratch_shift
                                 : base + op.offset;
      requests_.push_back(MPI_REQUEST_NULL);
      owners_.push_back(0);
      if ((err = PMPI_Irecv(at, op.count, op.type, op.peer, op.tag, comm, &requests_.back())) != MPI_SUCCESS) break;
      ++waiting;
    }
    // Sends only read blocks the rank holds, which nothing overwrites: they
    // may complete in any later round, or at the end of the call.
    for (const Op& op : sends_[round]) {
      if (err != MPI_SUCCESS) break;
      requests_.push_back(MPI_REQUEST_NULL);
      owners_.push_back(kSend);
      err = PMPI_Isend(base + op.offset, op.count, op.type, op.peer, op.tag, comm, &requests_.back());
    }
    // The round's receives gate the next round; sends that complete
    // meanwhile are dropped, so only those in flight stay posted.
    while (err == MPI_SUCCESS && waiting > 0) {
      int owner = kNone;
      if ((err = wait_one(&owner)) != MPI_SUCCESS || owner == kNone) break;
      if (owner != kSend) --waiting;
    }
  }
  // Complete what was posted even after an error, so no request outlives the call.
  const int wait_err = PMPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  return err == MPI_SUCCESS ? wait_err : err;
}

int prepare(const Schedule& schedule, MPI_Comm comm, int recvcount, MPI_Datatype recvtype,
            std::unique_ptr<Prepared>* out) {
  return prepare_blocks(schedule, comm, recvcount, nullptr, recvtype, out);
}

int prepare_v(const Schedule& schedule, MPI_Comm comm, const VarBlocks& blocks, MPI_Datatype type,
              std::unique_ptr<Prepared>* out) {
  return prepare_blocks(schedule, comm, 0, &blocks, type, out);
}

int prepare_blocks(const Schedule& schedule, MPI_Comm comm, int recvcount, const VarBlocks* v, MPI_Datatype recvtype,
                   std::unique_ptr<Prepared>* out) {
  out->reset();
  auto made = std::make_unique<Prepared>();
  int self = 0;
  PMPI_Comm_rank(comm, &self);
  MPI_Aint lb = 0, extent = 0;
  int err = PMPI_Type_get_extent(recvtype, &lb, &extent);
  if (err != MPI_SUCCESS) return err;
  const Torus& t = schedule.torus();
  BlockSetTypes types(t, recvcount, recvtype, extent);
  const auto program = schedule.program(self);
  RoundOps ops;
  // Messages are recorded by their offset from the receive buffer.
  const MPI_Aint base = 0;

  // One message of an hindexed type over recvtype, kept with the calls.
  auto post_indexed = [&](const std::vector<int>& lengths, const std::vector<MPI_Aint>& displacements,
                          auto&& post) -> int {
    MPI_Datatype type = MPI_DATATYPE_NULL;
    int e = PMPI_Type_create_hindexed(static_cast<int>(lengths.size()), lengths.data(), displacements.data(), recvtype,
                                     &type);
    if (e == MPI_SUCCESS) made->owned_.push_back(type);
    made->type_entries_ += lengths.size();
    if (e == MPI_SUCCESS) e = PMPI_Type_commit(&made->owned_.back());
    if (e == MPI_SUCCESS) e = post(base, 1, type);
    return e;
  };

  // The elements [lo, lo + elements) of every block in `ranges` as one
  // message: contiguous when they are (whole blocks of one range), else an
  // hindexed type, kept with the calls.
  auto post_ranges = [&](const BlockRanges& ranges, long long lo, int elements, auto&& post) -> int {
    const bool whole = lo == 0 && elements == recvcount;
    long long total = 0;
    for (const auto& range : ranges) total += range.second - range.first;
#ifdef TORUSGATHER_SMPI
    if (traffic_only && total * elements <= INT_MAX)  // as for block sets, below
      return post(base, static_cast<int>(total * elements), recvtype);
#endif
    if (ranges.size() == 1 && (whole || total == 1) && total * elements <= INT_MAX)
      return post(base + (static_cast<MPI_Aint>(ranges[0].first) * recvcount + lo) * extent,
                  static_cast<int>(total * elements), recvtype);
    std::vector<int> lengths;
    std::vector<MPI_Aint> displacements;
    for (const auto& range : ranges) {
      // A run of whole blocks is one entry; one of more than INT_MAX
      // elements takes an entry per block.
      if (whole && (range.second - range.first) * elements <= INT_MAX) {
        lengths.push_back(static_cast<int>((range.second - range.first) * elements));
        displacements.push_back(static_cast<MPI_Aint>(range.first) * recvcount * extent);
        continue;
      }
      for (Rank b = range.first; b < range.second; ++b) {
        lengths.push_back(elements);
        displacements.push_back((static_cast<MPI_Aint>(b) * recvcount + lo) * extent);
      }
    }
    return post_indexed(lengths, displacements, post);
  };

  // Blocks of their own sizes (v): the transfer's piece of each of its
  // blocks, cut from the block's own count, as one message.
  auto post_var = [&](const Transfer& x, auto&& post) -> int {
    std::vector<int> lengths;
    std::vector<MPI_Aint> displacements;
    auto add = [&](Rank b) {
      const auto range = x.piece.elements(v->counts[static_cast<std::size_t>(b)]);
      if (range.second <= range.first) return;
      lengths.push_back(static_cast<int>(range.second - range.first));
      displacements.push_back(v->displs[static_cast<std::size_t>(b)] + static_cast<MPI_Aint>(range.first) * extent);
    };
    for_each_block(t, x, add);
    if (lengths.empty()) return MPI_SUCCESS;  // the receiver sees the same counts: no message
    if (lengths.size() == 1) return post(base + displacements[0], lengths[0], recvtype);
    return post_indexed(lengths, displacements, post);
  };

  // One transfer as one message: `post(ptr, count, type)`.
  auto post_transfer = [&](const Transfer& x, auto&& post) -> int {
    if (v) return post_var(x, post);
    const auto range = x.piece.elements(recvcount);
    const long long lo = range.first, hi = range.second;
    if (hi <= lo) return MPI_SUCCESS;
    auto at = [&](Rank block) { return base + (static_cast<MPI_Aint>(block) * recvcount + lo) * extent; };
    const int elements = static_cast<int>(hi - lo);
    if (x.ranges) return post_ranges(*x.ranges, lo, elements, post);
    if (x.blocks.free_axes == 0) return post(at(x.blocks.origin), elements, recvtype);
#ifdef TORUSGATHER_SMPI
    long long blocks = 1;
    for (int a = 0; a < t.ndims(); ++a)
      if (x.blocks.free_axes & (1u << a)) blocks *= t.dim(a);
    if (traffic_only && blocks * elements <= INT_MAX) {
      // The set spans at least `blocks` blocks from its origin, so this stays
      // inside the receive buffer; the bytes land in the wrong places.
      return post(at(x.blocks.origin), static_cast<int>(blocks * elements), recvtype);
    }
#endif
    MPI_Datatype type = MPI_DATATYPE_NULL;
    const int e = types.get(x.blocks.free_axes, elements, &type);
    return e != MPI_SUCCESS ? e : post(at(x.blocks.origin), 1, type);
  };

  // Relay receives (one block the rank already holds) land in scratch, one
  // block's true span each (MPI_Type_get_true_extent).
  MPI_Aint true_lb = 0, true_extent = 0;
  if (err == MPI_SUCCESS) err = PMPI_Type_get_true_extent(recvtype, &true_lb, &true_extent);
  std::vector<std::size_t> scratch_bytes;

  // Independent colours run as streams, each colour its own.
  const bool streams = schedule.independent_colours() && schedule.colours() > 1;
  made->streams_ = streams ? schedule.colours() : 1;
  const auto stream_of = [streams](const Transfer& x) { return streams ? static_cast<int>(x.piece.colour) : 0; };
  made->recvs_.resize(static_cast<std::size_t>(schedule.rounds()));
  made->sends_.resize(static_cast<std::size_t>(schedule.rounds()));
  for (long long round = 0; round < schedule.rounds() && err == MPI_SUCCESS; ++round) {
    program->next_round(ops);
    auto& recvs = made->recvs_[static_cast<std::size_t>(round)];
    auto& sends = made->sends_[static_cast<std::size_t>(round)];
    std::size_t relays = 0;
    for (const Transfer& x : ops.recvs) {
      if (err != MPI_SUCCESS) break;
      const int from = static_cast<int>(x.routed() ? x.peer : t.neighbor(self, x.port));
      const int tag = tag_of(x, x.routed() ? x.port : opposite(x.port));
      if (x.relay) {
        // The schedule layer guarantees one block (the simulator checks it).
        const Rank block = x.ranges && !x.ranges->empty() ? x.ranges->front().first : x.blocks.origin;
        const auto range = x.piece.elements(v ? v->counts[static_cast<std::size_t>(block)] : recvcount);
        if (range.second <= range.first) continue;
        const int count = static_cast<int>(range.second - range.first);
        const MPI_Aint stride = static_cast<MPI_Aint>(count - 1) * extent;  // negative for a negative extent
        const auto bytes = static_cast<std::size_t>((stride < 0 ? -stride : stride) + true_extent);
        if (scratch_bytes.size() <= relays) scratch_bytes.resize(relays + 1, 0);
        scratch_bytes[relays] = std::max(scratch_bytes[relays], bytes);
        Prepared::Op op;
        op.count = count;
        op.type = recvtype;
        op.peer = from;
        op.tag = tag;
        op.scratch = static_cast<int>(relays++);
        op.scratch_shift = -true_lb - (stride < 0 ? stride : 0);
        op.stream = stream_of(x);
        recvs.push_back(op);
        continue;
      }
      err = post_transfer(x, [&](MPI_Aint ptr, int count, MPI_Datatype type) {
        recvs.push_back({ptr, count, type, from, tag, -1, 0, stream_of(x)});
        return MPI_SUCCESS;
      });
    }
    for (const Transfer& x : ops.sends) {
      if (err != MPI_SUCCESS) break;
      const int to = static_cast<int>(x.routed() ? x.peer : t.neighbor(self, x.port));
      const int tag = tag_of(x, x.port);
      err = post_transfer(x, [&](MPI_Aint ptr, int count, MPI_Datatype type) {
        sends.push_back({ptr, count, type, to, tag, -1, 0, stream_of(x)});
        return MPI_SUCCESS;
      });
    }
  }
  for (MPI_Datatype type : types.release()) made->owned_.push_back(type);
  if (err != MPI_SUCCESS) return err;  // made frees what it holds
  made->scratch_.resize(scratch_bytes.size());
  for (std::size_t i = 0; i < scratch_bytes.size(); ++i) made->scratch_[i].resize(scratch_bytes[i]);
  *out = std::move(made);
  return MPI_SUCCESS;
}

bool traffic_only_mode() {
#ifdef TORUSGATHER_SMPI
  return traffic_only;
#else
  return false;
#endif
}

int execute(const Schedule& schedule, MPI_Comm comm, void* recvbuf, int recvcount, MPI_Datatype recvtype) {
  std::unique_ptr<Prepared> prepared;
  const int err = prepare(schedule, comm, recvcount, recvtype, &prepared);
  return err != MPI_SUCCESS ? err : prepared->run(comm, recvbuf);
}

}  // namespace torusgather

#ifdef TORUSGATHER_SMPI
/// SimGrid SMPI flavour only (used by tg-bench-smpi for the sizes whose
/// results it does not check): a block set goes as one contiguous message of
/// the same byte count instead of a derived-datatype message. SMPI packs
/// every non-contiguous message into a temporary buffer of its full size,
/// which at the lab's sizes exceeds any memory. SMPI models both as one
/// flow of the same size on the same route, so the simulated time is the
/// same; the received data is not (the buffers are SMPI_SHARED_MALLOC
/// garbage at those sizes anyway). Exact (the default) otherwise.
extern "C" void TG_Smpi_traffic_only(int on) { torusgather::traffic_only = on != 0; }
#endif
