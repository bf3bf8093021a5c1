// SPDX-License-Identifier: BSD-3-Clause
// Proves that scripts/smpi-torus.sh maps MPI_Cart_create's row-major ranks
// onto SimGrid's torus so that torus neighbours are one hop apart (SimGrid
// numbers hosts with dimension 0 varying fastest).
//
//   smpi-torus.sh --dims 3x4x5 --lat 1us -- tg-neighbour-hops-smpi 1e-6
//
// For every axis, every rank in turn plays one-byte ping-pong with its
// neighbour along the axis, then with the rank at distance 2. On SimGrid a
// route of h links costs h latencies each way, so the worst round trip is
// 2·h·lat: h must be 1 for neighbours and 2 at distance 2 (which shows the
// measurement tells them apart). A wrong axis order puts neighbours several
// hops apart on any shape whose sides differ.
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

std::vector<int> dims_from_env() {
  std::vector<int> dims;
  const char* env = std::getenv("TORUSGATHER_DIMS");
  std::string s = env ? env : "";
  std::size_t i = 0;
  while (i < s.size()) {
    const std::size_t j = s.find('x', i);
    dims.push_back(std::atoi(s.substr(i, j == std::string::npos ? std::string::npos : j - i).c_str()));
    if (j == std::string::npos) break;
    i = j + 1;
  }
  return dims;
}

/// The largest round trip, in simulated seconds, of a one-byte ping-pong
/// from each rank in turn to its partner at `distance` along `axis` (one
/// ping-pong at a time, so nothing else is on the network; a round trip on a
/// route of h links costs 2·h·lat).
double worst_round_trip(MPI_Comm cart, int axis, int distance) {
  int rank = 0, size = 0, down = 0, up = 0;
  MPI_Comm_rank(cart, &rank);
  MPI_Comm_size(cart, &size);
  MPI_Cart_shift(cart, axis, distance, &down, &up);
  char byte = 1;
  double worst = 0;
  for (int pinger = 0; pinger < size; ++pinger) {
    MPI_Barrier(cart);
    // Two ping-pongs; the second is timed: by then the partner has left the
    // barrier and waits in MPI_Recv, so no barrier skew enters the time.
    for (int round = 0; round < 2; ++round) {
      if (rank == pinger) {
        const double t0 = MPI_Wtime();
        MPI_Send(&byte, 1, MPI_CHAR, up, 0, cart);
        MPI_Recv(&byte, 1, MPI_CHAR, up, 0, cart, MPI_STATUS_IGNORE);
        const double t = MPI_Wtime() - t0;
        if (round == 1 && t > worst) worst = t;
      } else if (down == pinger) {
        MPI_Recv(&byte, 1, MPI_CHAR, down, 0, cart, MPI_STATUS_IGNORE);
        MPI_Send(&byte, 1, MPI_CHAR, down, 0, cart);
      }
    }
  }
  double all = 0;
  MPI_Allreduce(&worst, &all, 1, MPI_DOUBLE, MPI_MAX, cart);
  return all;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const double lat = argc > 1 ? std::atof(argv[1]) : 1e-6;
  std::vector<int> dims = dims_from_env();
  int product = 1;
  for (int n : dims) product *= n;
  if (dims.empty() || product != size || lat <= 0) {
    if (rank == 0) std::fprintf(stderr, "neighbour-hops: TORUSGATHER_DIMS must multiply to %d and lat > 0\n", size);
    MPI_Finalize();
    return 2;
  }
  std::vector<int> periods(dims.size(), 1);
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, static_cast<int>(dims.size()), dims.data(), periods.data(), 0, &cart);
  int failures = 0;
  for (int axis = 0; axis < static_cast<int>(dims.size()); ++axis) {
    const double one = worst_round_trip(cart, axis, 1) / (2 * lat);
    // On a side of 3 the rank at distance 2 is the other neighbour.
    const bool far_exists = dims[axis] >= 4;
    const double two = far_exists ? worst_round_trip(cart, axis, 2) / (2 * lat) : 2.0;
    const bool ok = std::lround(one) == 1 && std::lround(two) == 2;
    if (!ok) ++failures;
    if (rank == 0)
      std::printf("axis %d (side %d): neighbour %.3f hops (want 1), distance 2 %s%.3f hops (want 2): %s\n", axis,
                  dims[axis], one, far_exists ? "" : "not measured, ", two, ok ? "ok" : "FAILED");
  }
  MPI_Comm_free(&cart);
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
