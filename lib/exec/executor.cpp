#include "exec/executor.hpp"

#include <map>
#include <tuple>
#include <vector>

namespace torusgather {
namespace {

/// Derived datatypes for block sets, built once per (free axes, elements)
/// within one call and freed with it (RAII).
class BlockSetTypes {
 public:
  BlockSetTypes(const Torus& t, int recvcount, MPI_Datatype recvtype, MPI_Aint extent)
      : t_(t), recvcount_(recvcount), recvtype_(recvtype), extent_(extent) {}
  BlockSetTypes(const BlockSetTypes&) = delete;
  BlockSetTypes& operator=(const BlockSetTypes&) = delete;
  ~BlockSetTypes() {
    for (auto& entry : cache_) MPI_Type_free(&entry.second);
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
    int err = MPI_Type_contiguous(static_cast<int>(elements), recvtype_, &inner);
    for (int a = t_.ndims() - 1; a >= 0 && err == MPI_SUCCESS; --a) {
      if (!(free_axes & (1u << a))) continue;
      MPI_Datatype outer;
      const MPI_Aint stride = static_cast<MPI_Aint>(t_.stride(a)) * recvcount_ * extent_;
      err = MPI_Type_create_hvector(t_.dim(a), 1, stride, inner, &outer);
      MPI_Type_free(&inner);
      inner = outer;
    }
    if (err == MPI_SUCCESS) err = MPI_Type_commit(&inner);
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
/// sender's port (two ports lead to the same rank on a side of 2) and the colour.
int tag_of(Port sender_port, int colour) { return (sender_port << 4) | colour; }

}  // namespace

int execute(const Schedule& schedule, MPI_Comm comm, void* recvbuf, int recvcount, MPI_Datatype recvtype) {
  int self = 0;
  MPI_Comm_rank(comm, &self);
  MPI_Aint lb = 0, extent = 0;
  int err = MPI_Type_get_extent(recvtype, &lb, &extent);
  if (err != MPI_SUCCESS) return err;
  const Torus& t = schedule.torus();
  BlockSetTypes types(t, recvcount, recvtype, extent);
  char* base = static_cast<char*>(recvbuf);
  const auto program = schedule.program(self);
  RoundOps ops;
  std::vector<MPI_Request> requests;

  // Address, count and type of a transfer; false if the piece is empty.
  auto describe = [&](const Transfer& x, char** ptr, int* count, MPI_Datatype* type) -> int {
    const auto [lo, hi] = x.piece.elements(recvcount);
    if (hi <= lo) {
      *count = 0;
      return MPI_SUCCESS;
    }
    *ptr = base + (static_cast<MPI_Aint>(x.blocks.origin) * recvcount + lo) * extent;
    if (x.blocks.free_axes == 0) {
      *count = static_cast<int>(hi - lo);
      *type = recvtype;
      return MPI_SUCCESS;
    }
    *count = 1;
    return types.get(x.blocks.free_axes, hi - lo, type);
  };

  for (long long round = 0; round < schedule.rounds() && err == MPI_SUCCESS; ++round) {
    program->next_round(ops);
    requests.clear();
    for (const Transfer& x : ops.recvs) {
      char* ptr = nullptr;
      int count = 0;
      MPI_Datatype type = MPI_DATATYPE_NULL;
      if ((err = describe(x, &ptr, &count, &type)) != MPI_SUCCESS) break;
      if (count == 0) continue;
      const int from = static_cast<int>(t.neighbor(self, x.port));
      requests.push_back(MPI_REQUEST_NULL);
      err = MPI_Irecv(ptr, count, type, from, tag_of(opposite(x.port), x.piece.colour), comm, &requests.back());
      if (err != MPI_SUCCESS) break;
    }
    for (const Transfer& x : ops.sends) {
      if (err != MPI_SUCCESS) break;
      char* ptr = nullptr;
      int count = 0;
      MPI_Datatype type = MPI_DATATYPE_NULL;
      if ((err = describe(x, &ptr, &count, &type)) != MPI_SUCCESS) break;
      if (count == 0) continue;
      const int to = static_cast<int>(t.neighbor(self, x.port));
      requests.push_back(MPI_REQUEST_NULL);
      err = MPI_Isend(ptr, count, type, to, tag_of(x.port, x.piece.colour), comm, &requests.back());
    }
    // Complete what was posted even after an error, so no request outlives the call.
    const int wait_err = MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
    if (err == MPI_SUCCESS) err = wait_err;
  }
  return err;
}

}  // namespace torusgather
