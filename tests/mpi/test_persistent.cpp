// SPDX-License-Identifier: BSD-3-Clause
// MPI test: the persistent allgather (TG_Allgather_init, TG_Start,
// TG_Test/TG_Wait, TG_Request_free) equals PMPI_Allgather byte for byte on
// every start, for several algorithms and datatypes, in place, with new data
// before each start, with a blocking TG_Allgather and a second persistent
// request in flight on the same communicator; and its error codes.
// A plain program (no gtest), as test_allgather.cpp.
#include <mpi.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <unistd.h>

#include "harness.hpp"
#include "torusgather/torusgather.h"

namespace {

using tg_test::check;
using tg_test::extent_of;

int g_rank = 0, g_size = 1;

struct TypeCase {
  std::string name;
  MPI_Datatype type;
  int count;
};

unsigned char byte(int rank, std::size_t i, int start) {
  return static_cast<unsigned char>(rank * 37 + i * 11 + 3 + start * 101);
}

/// One persistent request started `starts` times, each with new data, the
/// result compared with PMPI_Allgather's. With `poll`, TG_Test drives it;
/// with `interleave`, a blocking TG_Allgather and another persistent
/// request run on comm while it is in flight.
bool persistent_ok(const char* algorithm, const TypeCase& tc, MPI_Comm comm, bool in_place, bool poll,
                   bool interleave, int starts = 3) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const std::size_t block = static_cast<std::size_t>(extent_of(tc.type)) * static_cast<std::size_t>(tc.count);
  const std::size_t rbytes = block * static_cast<std::size_t>(size) + 16;
  std::vector<unsigned char> send(block + 16), ours(rbytes, 0xA5), theirs(rbytes, 0xA5);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "torusgather_algorithm", algorithm);
  TG_Request req = TG_REQUEST_NULL, other = TG_REQUEST_NULL;
  bool ok = TG_Allgather_init(in_place ? MPI_IN_PLACE : send.data(), tc.count, tc.type, ours.data(), tc.count, tc.type,
                              comm, info, &req) == MPI_SUCCESS;
  // A second request on the same communicator, over ints.
  std::vector<int> mine(3), all(3 * static_cast<std::size_t>(size)), expect(all.size());
  if (interleave)
    ok = ok && TG_Allgather_init(mine.data(), 3, MPI_INT, all.data(), 3, MPI_INT, comm, info, &other) == MPI_SUCCESS;
  MPI_Info_free(&info);
  for (int s = 0; s < starts && ok; ++s) {
    for (std::size_t i = 0; i < block; ++i) send[i] = byte(rank, i, s);
    if (in_place) std::memcpy(ours.data() + block * static_cast<std::size_t>(rank), send.data(), block);
    // Polled: rank 0 starts late, so the others' TG_Test finds rounds whose
    // data has not arrived, and must not move past them.
    if (poll && rank == 0) usleep(20000);
    ok = TG_Start(&req) == MPI_SUCCESS;
    std::vector<int> blocking_out(static_cast<std::size_t>(size)), blocking_expect(static_cast<std::size_t>(size));
    if (interleave) {
      for (int i = 0; i < 3; ++i) mine[static_cast<std::size_t>(i)] = rank * 10 + i + s;
      ok = ok && TG_Start(&other) == MPI_SUCCESS;
      const int x = rank + 1000 * s;
      ok = ok && TG_Allgather(&x, 1, MPI_INT, blocking_out.data(), 1, MPI_INT, comm) == MPI_SUCCESS;
      PMPI_Allgather(&x, 1, MPI_INT, blocking_expect.data(), 1, MPI_INT, comm);
      ok = ok && blocking_out == blocking_expect;
    }
    if (poll) {
      int flag = 0;
      while (ok && !flag) ok = TG_Test(&req, &flag) == MPI_SUCCESS;
    } else {
      ok = ok && TG_Wait(&req) == MPI_SUCCESS;
    }
    if (interleave) {
      ok = ok && TG_Wait(&other) == MPI_SUCCESS;
      PMPI_Allgather(mine.data(), 3, MPI_INT, expect.data(), 3, MPI_INT, comm);
      ok = ok && all == expect;
    }
    if (in_place) std::memcpy(theirs.data() + block * static_cast<std::size_t>(rank), send.data(), block);
    PMPI_Allgather(in_place ? MPI_IN_PLACE : send.data(), in_place ? 0 : tc.count, tc.type, theirs.data(), tc.count,
                   tc.type, comm);
    ok = ok && std::memcmp(ours.data(), theirs.data(), rbytes) == 0;
  }
  ok = TG_Request_free(&req) == MPI_SUCCESS && req == TG_REQUEST_NULL && ok;
  if (interleave) ok = TG_Request_free(&other) == MPI_SUCCESS && ok;
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);

  MPI_Datatype sr = tg_test::padded_struct_type();
  const std::vector<TypeCase> types = {{"int x1001", MPI_INT, 1001}, {"struct x3", sr, 3}, {"double x1", MPI_DOUBLE, 1}};

  // The torus the launcher gives, else a 2D one of the rank count.
  const char* given = getenv("TORUSGATHER_DIMS");
  if (!getenv("TORUSGATHER_TOPOLOGY") && !(given && *given)) {
    int dims[2] = {0, 0};
    MPI_Dims_create(g_size, 2, dims);
    setenv("TORUSGATHER_DIMS", (std::to_string(dims[0]) + "x" + std::to_string(dims[1])).c_str(), 1);
  }
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  for (const char* a : {"auto", "vendor", "dim-rings", "hamiltonian", "torus-bruck", "bridgehead-coloured",
                        "partial-cycles-ti", "lee-code", "node-dim-rings"}) {
    char chosen[64] = "";
    TG_Algorithm_chosen(a, comm, chosen, sizeof chosen);
    if (std::string(a) != "auto" && std::string(a) != "vendor" && std::string(a) != "dim-rings" &&
        std::string(chosen) == "dim-rings") {
      tg_test::skip(std::string(a) + ": declines the shape");
      continue;
    }
    for (const TypeCase& tc : types) {
      const std::string what = std::string(a) + " " + tc.name;
      check(persistent_ok(a, tc, comm, false, false, false), what + ": started 3 times");
      check(persistent_ok(a, tc, comm, true, false, false), what + " in place");
      check(persistent_ok(a, tc, comm, false, true, true), what + ": TG_Test, another request and a blocking call "
                                                                  "in flight");
      check(persistent_ok(a, tc, comm, false, true, false), what + ": TG_Test while rank 0 starts late");
    }
  }

  // Errors.
  {
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    auto error_class = [](int e) {
      int c = MPI_SUCCESS;
      MPI_Error_class(e, &c);
      return c;
    };
    int x = g_rank;
    std::vector<int> out(static_cast<std::size_t>(g_size));
    TG_Request req = TG_REQUEST_NULL;
    check(error_class(TG_Start(&req)) == MPI_ERR_REQUEST, "TG_Start of TG_REQUEST_NULL gives MPI_ERR_REQUEST");
    check(error_class(TG_Allgather_init(&x, -1, MPI_INT, out.data(), 1, MPI_INT, comm, MPI_INFO_NULL, &req)) ==
              MPI_ERR_COUNT && req == TG_REQUEST_NULL,
          "a negative count gives MPI_ERR_COUNT and no request");
    check(error_class(TG_Allgather_init(&x, 2, MPI_INT, out.data(), 1, MPI_INT, comm, MPI_INFO_NULL, &req)) ==
              MPI_ERR_TRUNCATE,
          "a send signature longer than the receive one gives MPI_ERR_TRUNCATE");
    check(TG_Allgather_init(&x, 1, MPI_INT, out.data(), 1, MPI_INT, comm, MPI_INFO_NULL, &req) == MPI_SUCCESS,
          "a good init");
    check(TG_Wait(&req) == MPI_SUCCESS, "TG_Wait of a request never started returns at once");
    check(TG_Start(&req) == MPI_SUCCESS, "a good start");
    check(error_class(TG_Start(&req)) == MPI_ERR_REQUEST, "starting an active request gives MPI_ERR_REQUEST");
    check(error_class(TG_Request_free(&req)) == MPI_ERR_REQUEST, "freeing an active request gives MPI_ERR_REQUEST");
    check(TG_Wait(&req) == MPI_SUCCESS, "then it completes");
    bool right = true;
    for (int r = 0; r < g_size; ++r) right = right && out[static_cast<std::size_t>(r)] == r;
    check(right, "with every rank's value");
    check(TG_Request_free(&req) == MPI_SUCCESS && req == TG_REQUEST_NULL, "and is freed");
    std::vector<int> none;
    check(TG_Allgather_init(nullptr, 0, MPI_INT, nullptr, 0, MPI_INT, comm, MPI_INFO_NULL, &req) == MPI_SUCCESS &&
              TG_Start(&req) == MPI_SUCCESS && TG_Wait(&req) == MPI_SUCCESS && TG_Request_free(&req) == MPI_SUCCESS,
          "count 0: init, start, wait and free");
  }
  MPI_Comm_free(&comm);
  MPI_Type_free(&sr);
  const int status = tg_test::finish("mpi.persistent");
  MPI_Finalize();
  return status;
}
