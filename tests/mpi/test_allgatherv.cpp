// SPDX-License-Identifier: BSD-3-Clause
// MPI test: TG_Allgatherv equals PMPI_Allgatherv byte for byte (gaps between
// blocks included, which neither may touch), for every algorithm, with
// uniform, zero, very uneven and out-of-order counts and displacements,
// several datatypes, MPI_IN_PLACE and repeated calls; and its error codes.
// A plain program (no gtest), as test_allgather.cpp.
#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "harness.hpp"
#include "torusgather/torusgather.h"

namespace {

using tg_test::check;
using tg_test::extent_of;
using tg_test::library_algorithms;

int g_rank = 0, g_size = 1;
bool g_quick = false;

/// Counts and displacements (in receive-type elements) of one case.
struct Layout {
  std::string name;
  std::vector<int> counts, displs;
};

/// The layouts every algorithm runs: each rank's count and place differ.
std::vector<Layout> layouts(int p) {
  std::vector<Layout> out;
  auto packed = [p](const std::string& name, auto count) {
    Layout l{name, std::vector<int>(static_cast<std::size_t>(p)), std::vector<int>(static_cast<std::size_t>(p))};
    int at = 0;
    for (int u = 0; u < p; ++u) {
      l.counts[static_cast<std::size_t>(u)] = count(u);
      l.displs[static_cast<std::size_t>(u)] = at;
      at += count(u);
    }
    return l;
  };
  out.push_back(packed("uniform 3", [](int) { return 3; }));
  out.push_back(packed("zero on even ranks", [](int u) { return u % 2 ? 5 : 0; }));
  // One rank holds almost everything.
  out.push_back(packed("very uneven", [p](int u) { return u == p / 2 ? 1000 : (u % 3 == 0 ? 0 : 1); }));
  // Blocks of size u + 1 placed in reverse rank order, with gaps of 2.
  Layout rev{"reversed with gaps", std::vector<int>(static_cast<std::size_t>(p)),
             std::vector<int>(static_cast<std::size_t>(p))};
  int at = 1;
  for (int u = p - 1; u >= 0; --u) {
    rev.counts[static_cast<std::size_t>(u)] = u + 1;
    rev.displs[static_cast<std::size_t>(u)] = at;
    at += u + 1 + 2;
  }
  out.push_back(rev);
  return out;
}

struct TypeCase {
  std::string name;
  MPI_Datatype sendtype;
  int send_per_recv;  ///< send elements per receive element (same signature)
  MPI_Datatype recvtype;
};

/// One TG_Allgatherv with `algorithm` and one PMPI_Allgatherv on the same
/// inputs (data of this call alone); true if the receive buffers are equal.
bool same_as_vendor(const char* algorithm, const Layout& l, const TypeCase& tc, MPI_Comm comm, bool in_place) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const MPI_Aint rext = extent_of(tc.recvtype);
  int end = 0;
  for (int u = 0; u < size; ++u) end = std::max(end, l.displs[static_cast<std::size_t>(u)] + l.counts[static_cast<std::size_t>(u)]);
  const std::size_t rbytes = static_cast<std::size_t>(rext) * static_cast<std::size_t>(end) + 16;
  const int mine = l.counts[static_cast<std::size_t>(rank)], scount = mine * tc.send_per_recv;
  const std::size_t sbytes = static_cast<std::size_t>(extent_of(tc.sendtype)) * static_cast<std::size_t>(scount) + 16;
  std::vector<unsigned char> send(sbytes), ours(rbytes, 0xA5), theirs(rbytes, 0xA5);
  static unsigned calls = 0;
  const unsigned call = ++calls;
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(rank * 37 + i * 11 + 3 + call * 101); };
  for (std::size_t i = 0; i < sbytes; ++i) send[i] = byte(i);
  if (in_place) {
    const std::size_t own = static_cast<std::size_t>(rext) * static_cast<std::size_t>(l.displs[static_cast<std::size_t>(rank)]);
    for (std::size_t i = 0; i < static_cast<std::size_t>(rext) * static_cast<std::size_t>(mine); ++i)
      ours[own + i] = theirs[own + i] = byte(i);
  }
  const void* sbuf = in_place ? MPI_IN_PLACE : send.data();
  const int e1 = TG_Allgatherv_algorithm(algorithm, sbuf, in_place ? -1 : scount,
                                         in_place ? MPI_DATATYPE_NULL : tc.sendtype, ours.data(), l.counts.data(),
                                         l.displs.data(), tc.recvtype, comm);
  int e2 = MPI_SUCCESS;
  if (size == 1) {
    // MPICH 4.0.2's allgatherv on one rank ignores displs (it writes at
    // offset 0): the reference is then the standard's own definition.
    if (!in_place)
      e2 = PMPI_Sendrecv(send.data(), scount, tc.sendtype, 0, 0,
                         theirs.data() + rext * l.displs[0], mine, tc.recvtype, 0, 0, comm, MPI_STATUS_IGNORE);
  } else {
    e2 = PMPI_Allgatherv(sbuf, in_place ? 0 : scount, in_place ? MPI_INT : tc.sendtype, theirs.data(),
                         l.counts.data(), l.displs.data(), tc.recvtype, comm);
  }
  return e1 == MPI_SUCCESS && e2 == MPI_SUCCESS && std::memcmp(ours.data(), theirs.data(), rbytes) == 0;
}


/// Every algorithm on comm: the ones whose executor paths cover the others
/// (block sets, colours, relays, routed ranges, ranges in pieces; see
/// test_allgather.cpp) run every layout and type, in place too, each twice
/// (the second call reuses the calls made by the first); the others run
/// every layout with ints.
void run_cases(MPI_Comm comm, const std::string& where, const std::vector<TypeCase>& types) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  std::vector<std::string> names = library_algorithms();
  names.insert(names.begin(), "auto");
  const auto cases = layouts(size);
  for (const std::string& a : names) {
    char chosen[64] = "";
    TG_Algorithm_chosen(a.c_str(), comm, chosen, sizeof chosen);
    if (a != "auto" && a != "dim-rings" && std::string(chosen) == "dim-rings") {
      tg_test::skip(where + " " + a + ": declines the shape");
      continue;
    }
    bool all = false;
    for (const char* f : {"auto", "dim-rings", "hamiltonian", "partial-cycles-ti", "lee-code", "bridgehead-coloured"})
      all = all || a == f;
    for (const Layout& l : cases)
      for (const TypeCase& tc : types) {
        if (!all && tc.name != "int") continue;
        const std::string what = where + " " + a + " " + l.name + " " + tc.name;
        for (int repeat = 0; repeat < (all && !g_quick ? 2 : 1); ++repeat) {
          check(same_as_vendor(a.c_str(), l, tc, comm, false), what + (repeat ? " (repeated)" : ""));
          if (all || l.name == "very uneven")
            check(same_as_vendor(a.c_str(), l, tc, comm, true), what + " in place" + (repeat ? " (repeated)" : ""));
        }
      }
  }
}

int error_class(int e) {
  int c = MPI_SUCCESS;
  MPI_Error_class(e, &c);
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--quick") == 0) g_quick = true;

  std::vector<TypeCase> types;
  types.push_back({"int", MPI_INT, 1, MPI_INT});
  // 3 ints every other int, received as such and sent as 3 contiguous ints.
  MPI_Datatype vec;
  MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  types.push_back({"vector recv, contiguous send", MPI_INT, 3, vec});
  // {char; double; int} with its padding.
  MPI_Datatype sr = tg_test::padded_struct_type();
  types.push_back({"struct", sr, 1, sr});
  types.push_back({"double", MPI_DOUBLE, 1, MPI_DOUBLE});

  // 1. A torus the ranks are told (TORUSGATHER_DIMS): the launcher's, or a ring and the
  //    3-sided shape MPI_Dims_create makes, where auto models real routes.
  if (const char* given = getenv("TORUSGATHER_DIMS"); given && *given) {
    // The torus the launcher gives (scripts/smpi-torus.sh under SimGrid).
    run_cases(MPI_COMM_WORLD, std::string("dims ") + given, types);
  } else if (!getenv("TORUSGATHER_TOPOLOGY")) {
    std::vector<std::string> shapes = {std::to_string(g_size)};
    int dims[3] = {0, 0, 0};
    MPI_Dims_create(g_size, 3, dims);
    if (!g_quick && dims[1] > 1)
      shapes.push_back(std::to_string(dims[0]) + "x" + std::to_string(dims[1]) + "x" + std::to_string(dims[2]));
    for (const std::string& shape : shapes) {
      setenv("TORUSGATHER_DIMS", shape.c_str(), 1);
      MPI_Comm comm;
      MPI_Comm_dup(MPI_COMM_WORLD, &comm);
      run_cases(comm, "dims " + shape, types);
      MPI_Comm_free(&comm);
    }
    unsetenv("TORUSGATHER_DIMS");
  } else {
    // 2. A topology file's torus (tests/mpi/as_host.sh): the ranks reordered.
    run_cases(MPI_COMM_WORLD, "topology", types);
  }

  // 3. A split communicator: each half its own counts.
  if (!g_quick && g_size > 2) {
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, g_rank % 2, g_size - g_rank, &half);
    int hs = 0;
    MPI_Comm_size(half, &hs);
    bool ok = true;
    for (const Layout& l : layouts(hs)) ok = same_as_vendor("dim-rings", l, types[0], half, false) && ok;
    check(ok, "split, reversed: dim-rings on every layout");
    MPI_Comm_free(&half);
  }

  // 4. Errors come back as MPI error classes under MPI_ERRORS_RETURN.
  {
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    std::vector<int> counts(static_cast<std::size_t>(g_size), 1), displs(static_cast<std::size_t>(g_size));
    for (int u = 0; u < g_size; ++u) displs[static_cast<std::size_t>(u)] = u;
    std::vector<int> out(static_cast<std::size_t>(g_size) * 2, 0);
    int x[2] = {g_rank, g_rank};
    check(TG_Allgatherv(x, 1, MPI_INT, out.data(), counts.data(), displs.data(), MPI_INT, comm) == MPI_SUCCESS,
          "a good call");
    bool ok = true;
    for (int u = 0; u < g_size; ++u) ok = ok && out[static_cast<std::size_t>(u)] == u;
    check(ok, "a good call gathers every rank's value");
    check(error_class(TG_Allgatherv(x, 1, MPI_INT, out.data(), nullptr, displs.data(), MPI_INT, comm)) == MPI_ERR_ARG,
          "null recvcounts gives MPI_ERR_ARG");
    check(error_class(TG_Allgatherv(x, 1, MPI_INT, out.data(), counts.data(), nullptr, MPI_INT, comm)) == MPI_ERR_ARG,
          "null displs gives MPI_ERR_ARG");
    check(error_class(TG_Allgatherv(x, -1, MPI_INT, out.data(), counts.data(), displs.data(), MPI_INT, comm)) ==
              MPI_ERR_COUNT,
          "negative send count gives MPI_ERR_COUNT");
    std::vector<int> negative = counts;
    negative[0] = -1;
    check(error_class(TG_Allgatherv(x, 1, MPI_INT, out.data(), negative.data(), displs.data(), MPI_INT, comm)) ==
              MPI_ERR_COUNT,
          "a negative receive count gives MPI_ERR_COUNT");
    check(error_class(TG_Allgatherv(x, 1, MPI_INT, out.data(), counts.data(), displs.data(), MPI_DATATYPE_NULL,
                                    comm)) == MPI_ERR_TYPE,
          "MPI_DATATYPE_NULL gives MPI_ERR_TYPE");
    check(error_class(TG_Allgatherv(x, 2, MPI_INT, out.data(), counts.data(), displs.data(), MPI_INT, comm)) ==
              MPI_ERR_TRUNCATE,
          "sending more than the receive signature gives MPI_ERR_TRUNCATE");
    check(error_class(TG_Allgatherv(out.data() + g_rank, 1, MPI_INT, out.data(), counts.data(), displs.data(), MPI_INT,
                                    comm)) == MPI_ERR_BUFFER,
          "overlapping send and receive buffers give MPI_ERR_BUFFER");
    check(error_class(TG_Allgatherv_algorithm("no-such-algorithm", x, 1, MPI_INT, out.data(), counts.data(),
                                              displs.data(), MPI_INT, comm)) == MPI_ERR_ARG,
          "an unknown algorithm gives MPI_ERR_ARG");
    std::vector<int> zeros(static_cast<std::size_t>(g_size), 0);
    check(TG_Allgatherv(nullptr, 0, MPI_INT, nullptr, zeros.data(), displs.data(), MPI_INT, comm) == MPI_SUCCESS,
          "all counts 0 with null buffers is legal");
    MPI_Comm_free(&comm);
  }

  MPI_Type_free(&vec);
  MPI_Type_free(&sr);
  const int status = tg_test::finish("mpi.allgatherv");
  MPI_Finalize();
  return status;
}
