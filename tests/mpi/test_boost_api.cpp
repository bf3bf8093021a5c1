// SPDX-License-Identifier: BSD-3-Clause
// MPI test of the Boost.MPI adapter (boost_mpi.hpp): each form of
// torusgather::all_gather gives what boost::mpi::all_gather gives, for MPI
// datatypes (through TG_Allgather) and serialized types (Boost's own path);
// errors throw boost::mpi::exception.
#include <boost/mpi.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/vector.hpp>
#include <string>
#include <vector>

#include "harness.hpp"
#include "torusgather/boost_mpi.hpp"

namespace {

using tg_test::check;

struct Point {
  double x;
  int label;
  template <class Archive>
  void serialize(Archive& ar, unsigned) {
    ar & x & label;
  }
  bool operator==(const Point& o) const { return x == o.x && label == o.label; }
};

}  // namespace

BOOST_IS_MPI_DATATYPE(Point)

int main(int argc, char** argv) {
  boost::mpi::environment env(argc, argv);
  boost::mpi::communicator world;
  const int rank = world.rank(), size = world.size();
  char chosen[64] = "";
  TG_Algorithm_chosen(nullptr, world, chosen, sizeof chosen);

  {  // One value per rank, into a vector and into an array.
    std::vector<int> ours, boosts;
    torusgather::all_gather(world, rank * 3 + 1, ours);
    boost::mpi::all_gather(world, rank * 3 + 1, boosts);
    check(ours == boosts && static_cast<int>(ours.size()) == size, "all_gather(comm, int, std::vector<int>&)");
    std::vector<double> raw(static_cast<std::size_t>(size), -1.0);
    torusgather::all_gather(world, 0.5 * rank, raw.data());
    bool ok = true;
    for (int r = 0; r < size; ++r) ok = ok && raw[static_cast<std::size_t>(r)] == 0.5 * r;
    check(ok, "all_gather(comm, double, double*)");
  }
  {  // n values per rank.
    std::vector<long> mine(50);
    for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = rank * 100000L + static_cast<long>(i);
    std::vector<long> ours, boosts;
    torusgather::all_gather(world, mine.data(), 50, ours);
    boost::mpi::all_gather(world, mine.data(), 50, boosts);
    check(ours == boosts, "all_gather(comm, const long*, 50, std::vector<long>&)");
    std::vector<long> raw(50 * static_cast<std::size_t>(size));
    torusgather::all_gather(world, mine.data(), 50, raw.data());
    check(raw == boosts, "all_gather(comm, const long*, 50, long*)");
  }
  {  // A struct declared an MPI datatype with BOOST_IS_MPI_DATATYPE.
    const Point p{1.5 * rank, -rank};
    std::vector<Point> ours, boosts;
    torusgather::all_gather(world, p, ours);
    boost::mpi::all_gather(world, p, boosts);
    check(ours == boosts, "all_gather of a BOOST_IS_MPI_DATATYPE struct");
  }
  {  // Serialized types take Boost's path: sizes differ between ranks.
    const std::string s(static_cast<std::size_t>(rank) + 1, static_cast<char>('a' + rank % 26));
    std::vector<std::string> ours, boosts;
    torusgather::all_gather(world, s, ours);
    boost::mpi::all_gather(world, s, boosts);
    check(ours == boosts, "all_gather of std::string (serialized)");
    const std::vector<int> v(static_cast<std::size_t>(rank % 3), rank);
    std::vector<std::vector<int>> vours, vboosts;
    torusgather::all_gather(world, v, vours);
    boost::mpi::all_gather(world, v, vboosts);
    check(vours == vboosts, "all_gather of std::vector<int> values (serialized)");
  }
  {  // Errors throw boost::mpi::exception, as Boost.MPI's own calls do.
    int cls = MPI_SUCCESS;
    const int x = rank;
    std::vector<int> out;
    try {
      torusgather::all_gather(world, &x, -1, out);
    } catch (const boost::mpi::exception& e) {
      cls = e.error_class();
    }
    check(cls == MPI_ERR_COUNT, "a negative count throws boost::mpi::exception with MPI_ERR_COUNT");
    std::vector<int> room(static_cast<std::size_t>(size));
    cls = MPI_SUCCESS;
    try {
      torusgather::all_gather(world, &x, -1, room.data());
    } catch (const boost::mpi::exception& e) {
      cls = e.error_class();
    }
    check(cls == MPI_ERR_COUNT, "a negative count through TG_Allgather throws boost::mpi::exception");
  }
  if (rank == 0) std::printf("torusgather::all_gather ran %s\n", chosen);
  return tg_test::finish("mpi.boost-api");
}
