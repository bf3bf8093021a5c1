// SPDX-License-Identifier: BSD-3-Clause
// MPI test of the C++ API (torusgather.hpp): every form gives what
// PMPI_Allgather (allgatherv: PMPI_Allgatherv) gives, for each algorithm; errors throw mpi_error with the
// routine, code and class, even on a communicator whose handler is fatal.
#include <array>
#include <complex>
#include <cstring>
#include <string>
#include <vector>

#include "harness.hpp"
#include "torusgather/torusgather.hpp"

namespace {

using tg_test::check;

struct Particle {
  double x, y, z;
  int id;
};
MPI_Datatype g_particle_type = MPI_DATATYPE_NULL;  // built on first use, freed before MPI_Finalize

}  // namespace

// A user type made known to the C++ API by specialising mpi_type.
template <>
struct torusgather::mpi_type<Particle> {
  static MPI_Datatype get() {
    if (g_particle_type == MPI_DATATYPE_NULL) {
      int lengths[2] = {3, 1};
      MPI_Aint displacements[2] = {offsetof(Particle, x), offsetof(Particle, id)};
      MPI_Datatype types[2] = {MPI_DOUBLE, MPI_INT}, raw, resized;
      MPI_Type_create_struct(2, lengths, displacements, types, &raw);
      MPI_Type_create_resized(raw, 0, sizeof(Particle), &resized);
      MPI_Type_commit(&resized);
      MPI_Type_free(&raw);
      g_particle_type = resized;
    }
    return g_particle_type;
  }
};

namespace {

template <class T>
std::vector<T> vendor(const std::vector<T>& send, MPI_Comm comm) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  std::vector<T> recv(send.size() * static_cast<std::size_t>(size));
  const MPI_Datatype t = torusgather::mpi_type<T>::get();
  PMPI_Allgather(send.data(), static_cast<int>(send.size()), t, recv.data(), static_cast<int>(send.size()), t, comm);
  return recv;
}

/// Runs f and returns the mpi_error it throws (code MPI_SUCCESS if none).
template <class F>
torusgather::mpi_error thrown(F f) {
  try {
    f();
  } catch (const torusgather::mpi_error& e) {
    return e;
  }
  return torusgather::mpi_error("nothing thrown", MPI_SUCCESS);
}

void forms(const char* algorithm, MPI_Comm comm, const std::string& where) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const std::string at = where + " " + (algorithm ? algorithm : "default") + ": ";

  std::vector<double> mine(37);
  for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = rank * 1000.0 + static_cast<double>(i) / 8;
  const std::vector<double> expected = vendor(mine, comm);

  check(torusgather::allgather(comm, mine, algorithm) == expected, at + "returning form on std::vector<double>");

  std::vector<double> into(expected.size() + 5, -1.0);  // larger than needed is fine
  torusgather::allgather(comm, mine, into, algorithm);
  check(std::equal(expected.begin(), expected.end(), into.begin()) && into.back() == -1.0,
        at + "range form into a larger vector, the rest untouched");

  std::vector<double> raw(expected.size());
  torusgather::allgather(comm, mine.data(), mine.size(), raw.data(), algorithm);
  check(raw == expected, at + "pointer form");

  const std::array<int, 3> triple = {rank, -rank, 7};
  const std::vector<int> triples = torusgather::allgather(comm, triple, algorithm);
  check(triples == vendor(std::vector<int>(triple.begin(), triple.end()), comm), at + "std::array<int, 3>");

  check(torusgather::allgather(comm, static_cast<long long>(rank) << 33, algorithm) ==
            vendor(std::vector<long long>{static_cast<long long>(rank) << 33}, comm),
        at + "one long long per rank");

  const std::vector<std::complex<double>> z = {{1.0 * rank, -2.0}, {0.5, 1.0 * rank}};
  check(torusgather::allgather(comm, z, algorithm) == vendor(z, comm), at + "std::complex<double>");

  const std::vector<Particle> particles = {{1.0 * rank, 2.0, 3.0, rank}, {4.0, 5.0 * rank, 6.0, -rank}};
  const auto got = torusgather::allgather(comm, particles, algorithm);
  const auto want = vendor(particles, comm);
  bool same = got.size() == want.size();
  for (std::size_t i = 0; same && i < got.size(); ++i)
    same = got[i].x == want[i].x && got[i].y == want[i].y && got[i].z == want[i].z && got[i].id == want[i].id;
  check(same, at + "user type through a specialised mpi_type (struct with padding)");

  std::vector<int> in_place(static_cast<std::size_t>(size) * 4, -1);
  for (int i = 0; i < 4; ++i) in_place[static_cast<std::size_t>(rank) * 4 + i] = rank * 10 + i;
  torusgather::allgather_in_place(comm, in_place, algorithm);
  bool ok = true;
  for (int r = 0; r < size; ++r)
    for (int i = 0; i < 4; ++i) ok = ok && in_place[static_cast<std::size_t>(r) * 4 + i] == r * 10 + i;
  check(ok, at + "allgather_in_place");

  const std::vector<double> none;
  check(torusgather::allgather(comm, none, algorithm).empty(), at + "empty send range");
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  for (const char* algorithm : {static_cast<const char*>(nullptr), "hamiltonian", "dim-rings", "partial-cycles", "vendor"})
    forms(algorithm, MPI_COMM_WORLD, "world");
  MPI_Comm self_copy;
  MPI_Comm_dup(MPI_COMM_SELF, &self_copy);
  forms(nullptr, self_copy, "self");
  MPI_Comm_free(&self_copy);

  // allgatherv: rank r sends r + 1 values; the result is every rank's in
  // rank order, as PMPI_Allgatherv gives it.
  for (const char* algorithm : {static_cast<const char*>(nullptr), "dim-rings", "vendor"}) {
    std::vector<double> mine(static_cast<std::size_t>(rank) + 1);
    for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = rank * 100.0 + static_cast<double>(i);
    std::vector<double> got;
    auto e = thrown([&] { got = torusgather::allgatherv(MPI_COMM_WORLD, mine, algorithm); });
    std::vector<int> counts(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
    int total = 0;
    for (int r = 0; r < size; ++r) {
      counts[static_cast<std::size_t>(r)] = r + 1;
      displs[static_cast<std::size_t>(r)] = total;
      total += r + 1;
    }
    std::vector<double> expect(static_cast<std::size_t>(total));
    PMPI_Allgatherv(mine.data(), rank + 1, MPI_DOUBLE, expect.data(), counts.data(), displs.data(), MPI_DOUBLE,
                    MPI_COMM_WORLD);
    check(e.code() == MPI_SUCCESS && got == expect,
          std::string("allgatherv of rank + 1 doubles, ") + (algorithm ? algorithm : "default"));
  }

  // persistent_allgather: three starts with new data, against PMPI_Allgather.
  for (const char* algorithm : {static_cast<const char*>(nullptr), "dim-rings", "vendor"}) {
    std::vector<int> send(5), recv(5 * static_cast<std::size_t>(size)), expect(recv.size());
    bool ok = true;
    auto e = thrown([&] {
      torusgather::persistent_allgather p(MPI_COMM_WORLD, send.data(), send.size(), recv.data(), algorithm);
      for (int s = 0; s < 3; ++s) {
        for (std::size_t i = 0; i < send.size(); ++i) send[i] = rank * 1000 + s * 10 + static_cast<int>(i);
        p.start();
        if (s == 1)
          while (!p.test()) {
          }
        else
          p.wait();
        PMPI_Allgather(send.data(), 5, MPI_INT, expect.data(), 5, MPI_INT, MPI_COMM_WORLD);
        ok = ok && recv == expect;
      }
    });
    check(e.code() == MPI_SUCCESS && ok,
          std::string("persistent_allgather, three starts, ") + (algorithm ? algorithm : "default"));
    e = thrown([&] {
      torusgather::persistent_allgather p(MPI_COMM_WORLD, send.data(), send.size(), recv.data(), algorithm);
      p.start();
      p.start();
    });
    check(e.error_class() == MPI_ERR_REQUEST,
          "starting a started persistent_allgather throws MPI_ERR_REQUEST (and its destructor completes it)");
  }

  // Errors become exceptions although MPI_COMM_WORLD's handler is the
  // default MPI_ERRORS_ARE_FATAL: the program is not aborted.
  const std::vector<int> one = {rank};
  std::vector<int> small(1);
  auto e = thrown([&] { torusgather::allgather(MPI_COMM_WORLD, one, small); });
  check(size == 1 ? e.code() == MPI_SUCCESS : e.error_class() == MPI_ERR_COUNT,
        "a receive range too small throws MPI_ERR_COUNT");
  e = thrown([&] { torusgather::allgather(MPI_COMM_WORLD, one, "no-such-algorithm"); });
  check(e.error_class() == MPI_ERR_ARG && std::strcmp(e.routine(), "torusgather::allgather") == 0 &&
            std::string(e.what()).find("torusgather::allgather: ") == 0,
        "an unknown algorithm throws MPI_ERR_ARG, naming the routine and the MPI's message");
  e = thrown([&] { torusgather::allgather(MPI_COMM_NULL, one); });
  check(e.error_class() == MPI_ERR_COMM, "MPI_COMM_NULL throws MPI_ERR_COMM");
  std::vector<int> uneven(static_cast<std::size_t>(size) + 1);
  e = thrown([&] { torusgather::allgather_in_place(MPI_COMM_WORLD, uneven); });
  check(size == 1 ? e.code() == MPI_SUCCESS : e.error_class() == MPI_ERR_COUNT,
        "an in-place range that is not size equal blocks throws MPI_ERR_COUNT");
  e = thrown([&] { torusgather::allgather(MPI_COMM_WORLD, one.data(), 0, small.data()); });
  check(e.code() == MPI_SUCCESS, "count 0 is not an error");
  e = thrown([&] { torusgather::allgatherv(MPI_COMM_WORLD, one, "no-such-algorithm"); });
  check(e.error_class() == MPI_ERR_ARG && std::strcmp(e.routine(), "torusgather::allgatherv") == 0,
        "allgatherv with an unknown algorithm throws MPI_ERR_ARG");
  std::vector<int> out(static_cast<std::size_t>(size));
  e = thrown([&] { torusgather::persistent_allgather p(MPI_COMM_WORLD, one.data(), 1, out.data(), "no-such"); });
  check(e.error_class() == MPI_ERR_ARG, "persistent_allgather with an unknown algorithm throws MPI_ERR_ARG");

  const int status = tg_test::finish("mpi.cxx-api");
  if (g_particle_type != MPI_DATATYPE_NULL) MPI_Type_free(&g_particle_type);
  MPI_Finalize();
  return status;
}
