// SPDX-License-Identifier: BSD-3-Clause
// torusgather for Boost.MPI: torusgather::all_gather and all_gatherv have
// the signatures and results of boost::mpi::all_gather and all_gatherv, so a
// program switches by changing the namespace of the call:
//
//   boost::mpi::communicator world;
//   std::vector<int> all;
//   torusgather::all_gather(world, world.rank(), all);
//
// Types with an MPI datatype (boost::mpi::is_mpi_datatype: the arithmetic
// types and what the program declared with BOOST_IS_MPI_DATATYPE) go through
// TG_Allgather (TG_Allgatherv); serialized types (strings, containers, classes with
// serialize()) take Boost's own path, since their sizes differ per rank.
// Errors throw boost::mpi::exception, as Boost.MPI does. The program links
// Boost::mpi itself; torusgather does not depend on Boost.
#ifndef TORUSGATHER_BOOST_MPI_HPP
#define TORUSGATHER_BOOST_MPI_HPP

#include <numeric>
#include <vector>

#include <boost/mpi/collectives/all_gather.hpp>
#include <boost/mpi/collectives/all_gatherv.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/datatype.hpp>
#include <boost/mpi/exception.hpp>
#include <boost/throw_exception.hpp>

#include "torusgather/torusgather.h"

// Calls inside are qualified: ADL on the communicator would find
// boost::mpi::all_gather as an equal candidate.
namespace torusgather {

/// n values of every rank into out[0 .. n * comm.size()), rank order.
template <typename T>
void all_gather(const boost::mpi::communicator& comm, const T* in_values, int n, T* out_values) {
  if constexpr (boost::mpi::is_mpi_datatype<T>::value) {
    const MPI_Datatype type = boost::mpi::get_mpi_datatype<T>(T());
    const int err = TG_Allgather_noraise(nullptr, in_values, n, type, out_values, n, type, MPI_Comm(comm));
    if (err != MPI_SUCCESS) boost::throw_exception(boost::mpi::exception("MPI_Allgather", err));
  } else {
    boost::mpi::all_gather(comm, in_values, n, out_values);
  }
}

template <typename T>
void all_gather(const boost::mpi::communicator& comm, const T& in_value, T* out_values) {
  torusgather::all_gather(comm, &in_value, 1, out_values);
}

template <typename T>
void all_gather(const boost::mpi::communicator& comm, const T* in_values, int n, std::vector<T>& out_values) {
  // (std::vector<bool> is not supported, as by boost::mpi::all_gather.)
  if (n < 0) boost::throw_exception(boost::mpi::exception("MPI_Allgather", MPI_ERR_COUNT));
  out_values.resize(static_cast<std::size_t>(comm.size()) * static_cast<std::size_t>(n));
  torusgather::all_gather(comm, in_values, n, out_values.data());
}

template <typename T>
void all_gather(const boost::mpi::communicator& comm, const T& in_value, std::vector<T>& out_values) {
  torusgather::all_gather(comm, &in_value, 1, out_values);
}

/// sizes[r] values of rank r at out_values + displs[r].
template <typename T>
void all_gatherv(const boost::mpi::communicator& comm, const T* in_values, T* out_values,
                 const std::vector<int>& sizes, const std::vector<int>& displs) {
  if (sizes.size() != static_cast<std::size_t>(comm.size()) || displs.size() != sizes.size())
    boost::throw_exception(boost::mpi::exception("MPI_Allgatherv", MPI_ERR_ARG));
  if constexpr (boost::mpi::is_mpi_datatype<T>::value) {
    const MPI_Datatype type = boost::mpi::get_mpi_datatype<T>(T());
    const int err = TG_Allgatherv_noraise(nullptr, in_values, sizes[static_cast<std::size_t>(comm.rank())], type,
                                          out_values, sizes.data(), displs.data(), type, MPI_Comm(comm));
    if (err != MPI_SUCCESS) boost::throw_exception(boost::mpi::exception("MPI_Allgatherv", err));
  } else {
    boost::mpi::all_gatherv(comm, in_values, out_values, sizes, displs);
  }
}

/// The same, packed in rank order.
template <typename T>
void all_gatherv(const boost::mpi::communicator& comm, const T* in_values, T* out_values,
                 const std::vector<int>& sizes) {
  std::vector<int> displs(sizes.size(), 0);
  if (!sizes.empty()) std::partial_sum(sizes.begin(), sizes.end() - 1, displs.begin() + 1);
  torusgather::all_gatherv(comm, in_values, out_values, sizes, displs);
}

template <typename T>
void all_gatherv(const boost::mpi::communicator& comm, const T& in_value, T* out_values,
                 const std::vector<int>& sizes) {
  torusgather::all_gatherv(comm, &in_value, out_values, sizes);
}

template <typename T>
void all_gatherv(const boost::mpi::communicator& comm, const T& in_value, T* out_values,
                 const std::vector<int>& sizes, const std::vector<int>& displs) {
  torusgather::all_gatherv(comm, &in_value, out_values, sizes, displs);
}

/// Into a vector of sum(sizes) elements, as boost::mpi::all_gatherv sizes it.
template <typename T>
void all_gatherv(const boost::mpi::communicator& comm, const std::vector<T>& in_values, std::vector<T>& out_values,
                 const std::vector<int>& sizes) {
  out_values.resize(static_cast<std::size_t>(std::accumulate(sizes.begin(), sizes.end(), 0L)));
  torusgather::all_gatherv(comm, in_values.data(), out_values.data(), sizes);
}

template <typename T>
void all_gatherv(const boost::mpi::communicator& comm, const std::vector<T>& in_values, std::vector<T>& out_values,
                 const std::vector<int>& sizes, const std::vector<int>& displs) {
  out_values.resize(static_cast<std::size_t>(std::accumulate(sizes.begin(), sizes.end(), 0L)));
  torusgather::all_gatherv(comm, in_values.data(), out_values.data(), sizes, displs);
}

}  // namespace torusgather

#endif  // TORUSGATHER_BOOST_MPI_HPP
