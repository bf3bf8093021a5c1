// SPDX-License-Identifier: BSD-3-Clause
// A second baseline of scripts/smpi-scale.sh: the messages of a schedule of
// neighbour rounds without the library. Every rank posts a receive from and
// a send to each of its 2d torus neighbours per round (dim-rings' pattern)
// and waits as the library's executor does. So SimGrid's cost of the
// messages alone shows next to tg-bench-smpi's.
//
//   tg-neighbour-exchange-smpi ROUNDS [BYTES]   (the torus: TORUSGATHER_DIMS)
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace {

/// The sides of TORUSGATHER_DIMS ("12x12x12"; an open axis's m is ignored).
std::vector<int> sides_from_env() {
  const char* text = std::getenv("TORUSGATHER_DIMS");
  std::vector<int> sides;
  if (text == nullptr) return sides;
  std::stringstream in(text);
  std::string side;
  while (std::getline(in, side, 'x')) sides.push_back(std::atoi(side.c_str()));
  return sides;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const long rounds = argc > 1 ? std::atol(argv[1]) : 0;
  const int bytes = argc > 2 ? std::atoi(argv[2]) : 8;
  const std::vector<int> sides = sides_from_env();
  long product = 1;
  for (int n : sides) product *= n;
  if (rounds < 1 || bytes < 0 || sides.empty() || product != size) {
    if (rank == 0) std::fprintf(stderr, "usage: TORUSGATHER_DIMS=NxM... tg-neighbour-exchange-smpi ROUNDS [BYTES]\n");
    MPI_Finalize();
    return 2;
  }
  // Row-major neighbours, the last axis fastest; a side of 2 or 1 has one.
  std::vector<int> peers;
  long stride = 1;
  for (int a = static_cast<int>(sides.size()) - 1; a >= 0; --a) {
    const int n = sides[static_cast<std::size_t>(a)];
    const long x = (rank / stride) % n;
    for (int step : {+1, -1}) {
      if (n < 2 || (n == 2 && step < 0)) continue;
      const long y = (x + step + n) % n;
      peers.push_back(static_cast<int>(rank + (y - x) * stride));
    }
    stride *= n;
  }
  const std::size_t k = peers.size();
  std::vector<char> out(static_cast<std::size_t>(bytes), static_cast<char>(rank));
  std::vector<char> in(k * static_cast<std::size_t>(bytes));
  // As the library's executor runs rounds in step: a round's receives gate
  // the next round; sends complete among them (MPI_Waitany over both) or at
  // the end.
  std::vector<MPI_Request> requests;
  std::vector<char> is_send;
  int ok = 1;
  for (long r = 0; r < rounds; ++r) {
    for (std::size_t i = 0; i < k; ++i) {
      requests.push_back(MPI_REQUEST_NULL);
      is_send.push_back(0);
      MPI_Irecv(in.data() + i * static_cast<std::size_t>(bytes), bytes, MPI_BYTE, peers[i], 0, MPI_COMM_WORLD,
                &requests.back());
    }
    for (std::size_t i = 0; i < k; ++i) {
      requests.push_back(MPI_REQUEST_NULL);
      is_send.push_back(1);
      MPI_Isend(out.data(), bytes, MPI_BYTE, peers[i], 0, MPI_COMM_WORLD, &requests.back());
    }
    for (std::size_t waiting = k; waiting > 0;) {
      int index = MPI_UNDEFINED;
      MPI_Waitany(static_cast<int>(requests.size()), requests.data(), &index, MPI_STATUS_IGNORE);
      if (index == MPI_UNDEFINED) break;
      if (!is_send[static_cast<std::size_t>(index)]) --waiting;
      std::size_t live = 0;
      for (std::size_t i = 0; i < requests.size(); ++i)
        if (requests[i] != MPI_REQUEST_NULL) requests[live] = requests[i], is_send[live++] = is_send[i];
      requests.resize(live);
      is_send.resize(live);
    }
    // Each neighbour sends its own rank's low byte.
    for (std::size_t i = 0; i < k * static_cast<std::size_t>(bytes); ++i)
      ok &= in[i] == static_cast<char>(peers[i / static_cast<std::size_t>(bytes)]);
  }
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("neighbour exchange on %d ranks: %ld rounds of %zu messages of %d bytes: %s\n", size, rounds, k,
                bytes, all ? "ok" : "WRONG");
  MPI_Finalize();
  return all ? 0 : 1;
}
