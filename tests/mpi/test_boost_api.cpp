// SPDX-License-Identifier: BSD-3-Clause
// MPI test of the Boost.MPI adapter (boost_mpi.hpp): each form of
// torusgather::all_gather and all_gatherv gives what boost::mpi's gives, for MPI
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
  {  // all_gatherv: rank r gives r % 3 values (some none), packed and at
     // displacements in reverse rank order with gaps.
    std::vector<int> sizes(static_cast<std::size_t>(size)), displs(sizes.size());
    int total = 0;
    for (int r = 0; r < size; ++r) total += sizes[static_cast<std::size_t>(r)] = r % 3;
    for (int r = size - 1, at = 0; r >= 0; --r) {
      displs[static_cast<std::size_t>(r)] = at;
      at += sizes[static_cast<std::size_t>(r)] + 1;
    }
    std::vector<long> mine(static_cast<std::size_t>(rank % 3));
    // Boost's own all_gatherv reads *in_values even for a count of 0 (UBSan:
    // a null reference from an empty vector's data()), so its reference
    // calls get a pointer that is never null.
    mine.reserve(1);
    for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = 1000L * rank + static_cast<long>(i);
    std::vector<long> ours, boosts(static_cast<std::size_t>(total));
    torusgather::all_gatherv(world, mine, ours, sizes);
    boost::mpi::all_gatherv(world, mine.data(), boosts.data(), sizes);
    check(ours == boosts && static_cast<int>(ours.size()) == total, "all_gatherv(comm, vector, vector&, sizes)");
    std::vector<long> raw(static_cast<std::size_t>(total + size), -1), braw(raw);
    torusgather::all_gatherv(world, mine.data(), raw.data(), sizes, displs);
    boost::mpi::all_gatherv(world, mine.data(), braw.data(), sizes, displs);
    check(raw == braw, "all_gatherv(comm, const long*, long*, sizes, displs)");
    std::vector<Point> pours(static_cast<std::size_t>(size)), pboosts(pours.size());
    const std::vector<int> ones(static_cast<std::size_t>(size), 1);
    torusgather::all_gatherv(world, Point{0.25 * rank, rank}, pours.data(), ones);
    boost::mpi::all_gatherv(world, Point{0.25 * rank, rank}, pboosts.data(), ones);
    check(pours == pboosts, "all_gatherv of one BOOST_IS_MPI_DATATYPE struct per rank");
    std::vector<std::string> sours(static_cast<std::size_t>(size)), sboosts(sours.size());
    torusgather::all_gatherv(world, std::string(static_cast<std::size_t>(rank), 'x'), sours.data(), ones);
    boost::mpi::all_gatherv(world, std::string(static_cast<std::size_t>(rank), 'x'), sboosts.data(), ones);
    check(sours == sboosts, "all_gatherv of std::string (serialized)");
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
  {  // sizes of the wrong length: MPI_ERR_ARG, not a read past the vector.
    int cls = MPI_SUCCESS;
    int x = rank, out = 0;
    try {
      torusgather::all_gatherv(world, &x, &out, std::vector<int>{1});
    } catch (const boost::mpi::exception& e) {
      cls = e.error_class();
    }
    check(size == 1 || cls == MPI_ERR_ARG, "all_gatherv with sizes of the wrong length throws MPI_ERR_ARG");
  }
  if (rank == 0) std::printf("torusgather::all_gather ran %s\n", chosen);
  return tg_test::finish("mpi.boost-api");
}
