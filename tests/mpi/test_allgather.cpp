// SPDX-License-Identifier: BSD-3-Clause
// MPI test: TG_Allgather equals PMPI_Allgather byte for byte, for every
// algorithm, on every torus shape the rank count factors into, with several
// datatypes, MPI_IN_PLACE, count 0 and Cartesian communicators.
// A plain program (no gtest) so that the same source runs under SimGrid's
// smpirun, whose per-rank globals do not extend into shared libraries.
// Prints "N passed, N failed" on rank 0; exit status 1 on any failure.
#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "harness.hpp"
#include "schedule/registry.hpp"
#include "topology/torus.hpp"
#include "torusgather/torusgather.h"

namespace {

using tg_test::check;
using tg_test::extent_of;
using tg_test::library_algorithms;

int g_rank = 0, g_size = 1;
bool g_quick = false;  // fewer cases (for large simulated runs)

struct TypeCase {
  std::string name;
  MPI_Datatype sendtype;
  int sendcount;
  MPI_Datatype recvtype;
  int recvcount;
};

/// Runs one allgather with `algorithm` and with PMPI_Allgather on the same
/// inputs; true if every byte of the two receive buffers is equal.
bool same_as_vendor(const char* algorithm, const TypeCase& tc, MPI_Comm comm, bool in_place) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const MPI_Aint rext = extent_of(tc.recvtype);
  const std::size_t rbytes = static_cast<std::size_t>(rext) * tc.recvcount * size + 16;
  const std::size_t sbytes = static_cast<std::size_t>(extent_of(tc.sendtype)) * tc.sendcount + 16;
  std::vector<unsigned char> send(sbytes), ours(rbytes, 0xA5), theirs(rbytes, 0xA5);
  // Data of this call alone: a block left over from an earlier call (in a
  // buffer the library keeps) cannot pass for this one's.
  static unsigned calls = 0;
  const unsigned call = ++calls;
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(rank * 37 + i * 11 + 3 + call * 101); };
  for (std::size_t i = 0; i < sbytes; ++i) send[i] = byte(i);
  if (in_place) {
    // The own slot holds the data; other slots are garbage that must be overwritten.
    const std::size_t own = static_cast<std::size_t>(rext) * tc.recvcount * rank;
    for (std::size_t i = 0; i < static_cast<std::size_t>(rext) * tc.recvcount; ++i)
      ours[own + i] = theirs[own + i] = byte(i);
  }
  const void* sbuf = in_place ? MPI_IN_PLACE : send.data();
  // With MPI_IN_PLACE the send count and type are ignored: pass junk as programs do.
  const int scount = in_place ? -1 : tc.sendcount;
  const MPI_Datatype stype = in_place ? MPI_DATATYPE_NULL : tc.sendtype;
  const int e1 = TG_Allgather_algorithm(algorithm, sbuf, scount, stype, ours.data(), tc.recvcount, tc.recvtype, comm);
  const int e2 = PMPI_Allgather(sbuf, in_place ? 0 : tc.sendcount, in_place ? MPI_INT : tc.sendtype, theirs.data(),
                                tc.recvcount, tc.recvtype, comm);
  return e1 == MPI_SUCCESS && e2 == MPI_SUCCESS && std::memcmp(ours.data(), theirs.data(), rbytes) == 0;
}


std::vector<TypeCase> type_cases() {
  std::vector<TypeCase> cases;
  cases.push_back({"int x1", MPI_INT, 1, MPI_INT, 1});
  cases.push_back({"int x1001", MPI_INT, 1001, MPI_INT, 1001});
  cases.push_back({"double x7", MPI_DOUBLE, 7, MPI_DOUBLE, 7});
  cases.push_back({"count 0", MPI_INT, 0, MPI_INT, 0});
  // Strided: 3 ints every other int; sent as 3 contiguous ints (same signature).
  MPI_Datatype vec;
  MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  cases.push_back({"vector recv, contiguous send", MPI_INT, 6, vec, 2});
  cases.push_back({"vector both", vec, 5, vec, 5});
  // A struct with padding, {char; double; int}.
  MPI_Datatype sr = tg_test::padded_struct_type();
  cases.push_back({"struct x3", sr, 3, sr, 3});
  return cases;
}

void free_type_cases(std::vector<TypeCase>& cases) {
  std::vector<MPI_Datatype> derived;
  for (const auto& c : cases)
    for (MPI_Datatype t : {c.sendtype, c.recvtype}) {
      int ni, na, nd, combiner;
      MPI_Type_get_envelope(t, &ni, &na, &nd, &combiner);
      if (combiner != MPI_COMBINER_NAMED && std::find(derived.begin(), derived.end(), t) == derived.end())
        derived.push_back(t);
    }
  for (MPI_Datatype t : derived) MPI_Type_free(&t);
  cases.clear();
}

/// Every way of writing n as an ordered product of 1 to 3 factors >= 2
/// (and n itself, a ring).
std::vector<std::vector<int>> shapes_of(int n) {
  std::vector<std::vector<int>> out{{n}};
  if (g_quick) return out;
  for (int a = 2; a < n; ++a) {
    if (n % a) continue;
    out.push_back({a, n / a});
    for (int b = 2; b < n / a; ++b)
      if ((n / a) % b == 0) out.push_back({a, b, n / a / b});
  }
  return out;
}

std::string shape_name(const std::vector<int>& dims) {
  std::string s;
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? "x" : "") + std::to_string(dims[i]);
  return s;
}

/// What a forced `name` runs on a torus of `dims`: itself where its
/// construction takes the shape, else the first of its registry fallbacks
/// that does (dim-rings takes every shape).
std::string expected_run(const std::string& name, const std::vector<int>& dims, int node_ranks) {
  torusgather::BuildContext context;
  context.node_ranks = node_ranks;
  const torusgather::AlgorithmInfo* info = torusgather::find_algorithm(name);
  for (int steps = 0; info && steps < 20; ++steps) {
    std::string why;
    if (torusgather::try_build(*info, torusgather::Torus(dims), &why, context)) return info->name;
    info = &torusgather::algorithm(info->fallback);
  }
  return "none";
}

/// Algorithms whose executor paths together cover all of them: block sets
/// as nested vectors (dim-rings), blocks cut into colours (hamiltonian),
/// relay buffers (partial-cycles-ti), routed calls with block ranges
/// (lee-code, where the rank count allows a Lee code: 3, 6, 9, 12, 25; the
/// other routed schedules run them at every count with the two cases below)
/// and ranges cut into pieces (bridgehead-coloured), and auto.
/// They run every datatype case; the others run one contiguous and one
/// derived case. The simulator proves every schedule on every shape (tg-plan
/// and the unit tests): here the question is the MPI code that runs them.
bool full_matrix(const std::string& algorithm) {
  for (const char* a : {"auto", "dim-rings", "hamiltonian", "partial-cycles-ti", "lee-code", "bridgehead-coloured"})
    if (algorithm == a) return true;
  return false;
}

/// Runs every algorithm on comm where it runs. Each case is a check over
/// MPI_COMM_WORLD; where comm is part of the world with other parts taking
/// other shapes (a split), the parts may skip different algorithms, so
/// their verdicts are gathered locally and checked once (`one_check`).
void run_cases(MPI_Comm comm, const std::string& where, std::vector<TypeCase>& cases, bool one_check = false) {
  bool all_ok = true;
  auto verdict = [&](bool ok, const std::string& what) {
    if (!one_check) return check(ok, what);
    if (!ok) std::fprintf(stderr, "FAILED on rank %d: %s\n", g_rank, what.c_str());
    all_ok = all_ok && ok;
  };
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::vector<std::string> names = library_algorithms();
  names.insert(names.begin(), "auto");
  for (const std::string& name : names) {
    const char* algorithm = name.c_str();
    // A forced algorithm that declines the shape runs dim-rings: that run
    // would test dim-rings again, so it is skipped, and counted.
    char chosen[64] = "";
    TG_Algorithm_chosen(algorithm, comm, chosen, sizeof chosen);
    const std::string a = algorithm;
    if (a != "auto" && a != "dim-rings" && std::string(chosen) == "dim-rings") {
      if (!one_check) tg_test::skip(where + " " + a + ": declines the shape");
      else if (rank == 0) std::printf("skipped: %s %s: declines the shape (rank %d's part)\n", where.c_str(), algorithm, g_rank);
      continue;
    }
    const bool all = full_matrix(a);
    for (const auto& tc : cases) {
      if (!all && tc.name != "int x1001" && tc.name != "struct x3") continue;
      verdict(same_as_vendor(algorithm, tc, comm, false), where + " " + a + " " + tc.name);
      if ((all && !g_quick) || tc.name == "int x1001")
        verdict(same_as_vendor(algorithm, tc, comm, true), where + " " + a + " " + tc.name + " in place");
    }
  }
  if (one_check) check(all_ok, where + ": every case of every part");
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--quick") == 0) g_quick = true;
  auto cases = type_cases();

  // 1. Every shape the rank count factors into, forced with TORUSGATHER_DIMS
  //    (read when a communicator's plan is built, so each dup gets its own);
  //    where the environment gives one of P ranks, that one alone (with
  //    TORUSGATHER_NODE_SIZE: a torus whose last axis is a node's ranks).
  std::vector<std::vector<int>> shapes = shapes_of(g_size);
  int node_ranks = 1;  // k > 1: the last axis is each node's k ranks
  if (const char* env = std::getenv("TORUSGATHER_DIMS"); env && *env) {
    std::vector<int> dims;
    for (const char* p = env; *p;) {
      char* end = nullptr;
      dims.push_back(static_cast<int>(std::strtol(p, &end, 10)));
      p = *end ? end + 1 : end;
    }
    long long product = 1;
    for (int n : dims) product *= n;
    const char* k = std::getenv("TORUSGATHER_NODE_SIZE");
    if (k && std::atoi(k) > 1 && product * std::atoi(k) == g_size) {  // as the library reads them
      dims.push_back(std::atoi(k));
      product = g_size;
    }
    if (k && std::atoi(k) > 1 && product == g_size && dims.back() == std::atoi(k)) node_ranks = std::atoi(k);
    if (product == g_size) shapes = {dims};
  }
  for (const auto& dims : shapes) {
    setenv("TORUSGATHER_DIMS", shape_name(dims).c_str(), 1);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    // A forced algorithm runs where the registry's construction takes the
    // shape (the papers' rules: tests/unit/test_registry.cpp), else its
    // family's next that does.
    for (const std::string& name : library_algorithms()) {
      char chosen[64] = "";
      const int err = TG_Algorithm_chosen(name.c_str(), comm, chosen, sizeof chosen);
      const std::string expected = expected_run(name, dims, node_ranks);
      check(err == MPI_SUCCESS && expected == chosen,
            "forced " + name + " on " + shape_name(dims) + " ran " + chosen + ", expected " + expected);
    }
    run_cases(comm, "dims " + shape_name(dims), cases);
    MPI_Comm_free(&comm);
  }
  unsetenv("TORUSGATHER_DIMS");

  // 2. The default mapping (MPI_Dims_create, d = 2) on MPI_COMM_WORLD itself.
  run_cases(MPI_COMM_WORLD, "world", cases);

  // The cost model's predictions (TG_Predicted_time): every algorithm has
  // one, more bytes take longer, and auto's is the prediction of what
  // TG_Algorithm_for says auto runs (the choice and the prediction agree).
  // That the model picks the right algorithm for a known machine is the
  // env.auto-known-machine test and the unit test Selector.KnownMachineKnownChoice.
  {
    std::vector<std::string> names = library_algorithms();
    names.push_back("vendor");
    for (int count : {1, 65536}) {
      double automatic = 0;
      check(TG_Predicted_time("auto", MPI_COMM_WORLD, count, MPI_BYTE, &automatic) == MPI_SUCCESS,
            "TG_Predicted_time(auto) succeeds");
      if (g_size == 1) {
        check(automatic == -1, "one rank: no prediction");
        continue;
      }
      char runs[64] = "";
      double of_choice = -2;
      check(TG_Algorithm_for("auto", MPI_COMM_WORLD, count, MPI_BYTE, runs, sizeof runs) == MPI_SUCCESS &&
                TG_Predicted_time(runs, MPI_COMM_WORLD, count, MPI_BYTE, &of_choice) == MPI_SUCCESS &&
                automatic > 0 && automatic == of_choice,
            "auto's prediction at " + std::to_string(count) + " B is that of " + runs);
      for (const std::string& name : names) {
        double t = 0, small = 0;
        check(TG_Predicted_time(name.c_str(), MPI_COMM_WORLD, count, MPI_BYTE, &t) == MPI_SUCCESS && t > 0,
              name + " has a positive prediction at " + std::to_string(count) + " B");
        TG_Predicted_time(name.c_str(), MPI_COMM_WORLD, 1, MPI_BYTE, &small);
        // Never faster; equal where a round's overheads hide its transfer (the
        // model takes the larger: a loaded machine measures a large overhead).
        check(count == 1 || small <= t, name + ": 64 KiB blocks are never predicted faster than 1 B");
      }
    }
    double t = 0;
    check(TG_Predicted_time("auto", MPI_COMM_WORLD, 1, MPI_BYTE, nullptr) == MPI_ERR_ARG,
          "TG_Predicted_time without an output gives MPI_ERR_ARG");
    check(TG_Predicted_time("no-such-algorithm", MPI_COMM_WORLD, 1, MPI_BYTE, &t) == MPI_ERR_ARG,
          "TG_Predicted_time of an unknown algorithm gives MPI_ERR_ARG");
  }

  // 3. A communicator that is already a periodic Cartesian one: its dims are used.
  {
    int dims[3] = {0, 0, 0}, periods[3] = {1, 1, 1};
    MPI_Dims_create(g_size, 3, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 1, &cart);
    run_cases(cart, "cart " + shape_name({dims[0], dims[1], dims[2]}), cases);
    MPI_Comm_free(&cart);
  }

  // 3b. A Cartesian communicator with an open axis (period 0): a mesh axis,
  //     which only dim-rings' lines run on; every other algorithm declines.
  //     (TORUSGATHER_DIMS or a topology file, where set, describe the
  //     machine and come first.)
  {
    int dims[2] = {0, 0}, periods[2] = {0, 1};
    MPI_Dims_create(g_size, 2, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    if (dims[0] > 2 && !std::getenv("TORUSGATHER_DIMS") && !std::getenv("TORUSGATHER_TOPOLOGY")) {
      char chosen[64] = "";
      TG_Algorithm_chosen("hamiltonian", cart, chosen, sizeof chosen);
      check(std::string(chosen) == "dim-rings", "hamiltonian declines the open axis of " + shape_name({dims[0], dims[1]}));
    }
    run_cases(cart, "cart " + std::to_string(dims[0]) + "m x " + std::to_string(dims[1]), cases);
    MPI_Comm_free(&cart);
  }

  // 4. A split communicator (sizes differ between the halves).
  if (!g_quick && g_size > 2) {
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, g_rank % 2, g_rank, &half);
    run_cases(half, "split", cases, true);
    MPI_Comm_free(&half);
  }

  // 4b. TORUSGATHER_DIMS describes the job's torus: split, reversed and
  //     duplicated communicators under it are no error (each gets a shape of
  //     its own where the size differs) and give MPI_Allgather's result.
  if (g_size > 1) {
    setenv("TORUSGATHER_DIMS", shape_name({g_size}).c_str(), 1);
    MPI_Comm half, reversed, dup;
    MPI_Comm_split(MPI_COMM_WORLD, g_rank % 2, g_rank, &half);
    MPI_Comm_split(MPI_COMM_WORLD, 0, g_size - g_rank, &reversed);
    MPI_Comm_dup(half, &dup);
    std::vector<TypeCase> one = {cases[1]};  // int x1001
    for (const auto& [name, comm] : {std::make_pair("half", half), std::make_pair("reversed", reversed),
                                     std::make_pair("dup of half", dup)})
      for (const char* algorithm : {"auto", "dim-rings", "hamiltonian"}) {
        check(same_as_vendor(algorithm, one[0], comm, false),
              std::string("TORUSGATHER_DIMS=") + std::to_string(g_size) + ", " + name + ": " + algorithm);
        check(same_as_vendor(algorithm, one[0], comm, true),
              std::string("TORUSGATHER_DIMS=") + std::to_string(g_size) + ", " + name + ": " + algorithm + " in place");
      }
    MPI_Comm_free(&dup);
    MPI_Comm_free(&reversed);
    MPI_Comm_free(&half);
    // A Cartesian communicator with a period 0 on the same ranks: the
    // variable describes the machine, and its ring is closed.
    if (g_size > 2) {
      int n = g_size, period = 0;
      MPI_Comm line;
      MPI_Cart_create(MPI_COMM_WORLD, 1, &n, &period, 0, &line);
      char chosen[64] = "";
      TG_Algorithm_chosen("hamiltonian", line, chosen, sizeof chosen);
      check(std::string(chosen) == "hamiltonian", "TORUSGATHER_DIMS comes before a Cartesian period 0");
      MPI_Comm_free(&line);
    }
    unsetenv("TORUSGATHER_DIMS");
  }

  // 5. An intercommunicator (the two halves of the world) is delegated to the
  //    vendor's PMPI_Allgather; the result must still be MPI_Allgather's.
#ifdef SMPI_SHARED_MALLOC
  if (g_rank == 0) std::printf("intercommunicator case not run: SimGrid SMPI does not implement MPI_Intercomm_create\n");
#else
  if (g_size >= 2) {
    MPI_Comm half, inter;
    const int colour = g_rank < g_size / 2 ? 0 : 1;
    MPI_Comm_split(MPI_COMM_WORLD, colour, g_rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, colour == 0 ? g_size / 2 : 0, 77, &inter);
    int remote = 0;
    MPI_Comm_remote_size(inter, &remote);
    const int x[2] = {g_rank, -g_rank};
    std::vector<int> ours(2 * remote, -1), theirs(2 * remote, -2);
    const int e = TG_Allgather(x, 2, MPI_INT, ours.data(), 2, MPI_INT, inter);
    PMPI_Allgather(x, 2, MPI_INT, theirs.data(), 2, MPI_INT, inter);
    check(e == MPI_SUCCESS && ours == theirs, "intercommunicator allgather equals PMPI_Allgather");
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
  }
#endif

  // 6. Errors come back as MPI error codes under MPI_ERRORS_RETURN.
  {
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int x = g_rank;
    std::vector<int> out(g_size);
    int err = TG_Allgather_algorithm("no-such-algorithm", &x, 1, MPI_INT, out.data(), 1, MPI_INT, comm);
    int cls = MPI_SUCCESS;
    MPI_Error_class(err, &cls);
    check(cls == MPI_ERR_ARG, "unknown algorithm gives MPI_ERR_ARG");
    err = TG_Allgather(&x, 1, MPI_INT, out.data(), -1, MPI_INT, comm);
    MPI_Error_class(err, &cls);
    check(cls == MPI_ERR_COUNT, "negative count gives MPI_ERR_COUNT");
    setenv("TORUSGATHER_DIMS", "2x", 1);
    MPI_Comm other;
    MPI_Comm_dup(comm, &other);
    err = TG_Allgather(&x, 1, MPI_INT, out.data(), 1, MPI_INT, other);
    MPI_Error_class(err, &cls);
    check(cls == MPI_ERR_ARG, "a malformed TORUSGATHER_DIMS gives MPI_ERR_ARG");
    unsetenv("TORUSGATHER_DIMS");
    MPI_Comm_free(&other);

    // One case per bad input, the same on every rank (as programs do); each
    // must come back as its MPI error class, with no crash and no hang.
    auto error_class = [&](int e) {
      int c = MPI_SUCCESS;
      MPI_Error_class(e, &c);
      return c;
    };
    std::vector<int> big(static_cast<std::size_t>(g_size) * 4, 0);
    check(error_class(TG_Allgather(&x, -1, MPI_INT, big.data(), 1, MPI_INT, comm)) == MPI_ERR_COUNT,
          "negative send count gives MPI_ERR_COUNT");
    // A good call first: the bad buffers below then repeat its other
    // arguments, which takes the path that reuses its checks (CallMemo).
    check(TG_Allgather(&x, 1, MPI_INT, big.data(), 1, MPI_INT, comm) == MPI_SUCCESS, "a good call before the bad ones");
    check(error_class(TG_Allgather(&x, 1, MPI_INT, nullptr, 1, MPI_INT, comm)) == MPI_ERR_BUFFER,
          "null receive buffer with a positive count gives MPI_ERR_BUFFER");
    check(error_class(TG_Allgather(nullptr, 1, MPI_INT, big.data(), 1, MPI_INT, comm)) == MPI_ERR_BUFFER,
          "null send buffer with a positive count gives MPI_ERR_BUFFER");
    check(error_class(TG_Allgather(&x, 1, MPI_INT, big.data(), 1, MPI_DATATYPE_NULL, comm)) == MPI_ERR_TYPE,
          "MPI_DATATYPE_NULL gives MPI_ERR_TYPE");
    MPI_Datatype uncommitted;
    MPI_Type_vector(2, 1, 2, MPI_INT, &uncommitted);
    check(error_class(TG_Allgather(&x, 1, MPI_INT, big.data(), 1, uncommitted, comm)) == MPI_ERR_TYPE,
          "an uncommitted datatype gives MPI_ERR_TYPE");
    MPI_Type_free(&uncommitted);
    const int two[2] = {1, 2};
    check(error_class(TG_Allgather(two, 2, MPI_INT, big.data(), 1, MPI_INT, comm)) == MPI_ERR_TRUNCATE,
          "sending more than the receive signature gives MPI_ERR_TRUNCATE");
    check(error_class(TG_Allgather(two, 1, MPI_INT, big.data(), 2, MPI_INT, comm)) == MPI_ERR_ARG,
          "sending less than the receive signature gives MPI_ERR_ARG");
    check(error_class(TG_Allgather(big.data() + g_rank, 1, MPI_INT, big.data(), 1, MPI_INT, comm)) == MPI_ERR_BUFFER,
          "overlapping send and receive buffers give MPI_ERR_BUFFER");
    MPI_Errhandler world_handler;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &world_handler);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    check(error_class(TG_Allgather(&x, 1, MPI_INT, big.data(), 1, MPI_INT, MPI_COMM_NULL)) == MPI_ERR_COMM,
          "MPI_COMM_NULL gives MPI_ERR_COMM");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, world_handler == MPI_ERRHANDLER_NULL ? MPI_ERRORS_ARE_FATAL : world_handler);
    if (world_handler != MPI_ERRHANDLER_NULL) MPI_Errhandler_free(&world_handler);
    // Not errors: count 0 with null buffers, MPI_IN_PLACE with junk send arguments.
    check(TG_Allgather(nullptr, 0, MPI_INT, nullptr, 0, MPI_INT, comm) == MPI_SUCCESS,
          "count 0 with null buffers is legal");
    big[static_cast<std::size_t>(g_rank)] = g_rank;
    bool inplace_ok = TG_Allgather(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, big.data(), 1, MPI_INT, comm) == MPI_SUCCESS;
    for (int r = 0; r < g_size; ++r) inplace_ok = inplace_ok && big[static_cast<std::size_t>(r)] == r;
    check(inplace_ok, "MPI_IN_PLACE ignores the send count and type");
    MPI_Comm_free(&comm);
  }

  free_type_cases(cases);
  const int status = tg_test::finish("mpi.allgather");
  MPI_Finalize();
  return status;
}
