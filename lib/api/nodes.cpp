// SPDX-License-Identifier: BSD-3-Clause
#include "api/nodes.hpp"

#include <climits>
#include <cstdlib>

#include "api/plan.hpp"

namespace torusgather {

#ifndef SMPI_SHARED_MALLOC
namespace {
/// The lowest rank of comm on this rank's node (MPI_COMM_TYPE_SHARED) and
/// how many ranks of comm share the node. Collective.
int shared_node(MPI_Comm comm, int* lowest, int* ranks) {
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  // Key = rank: rank 0 of the node communicator is the node's lowest rank.
  MPI_Comm node = MPI_COMM_NULL;
  int err = PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  if (err != MPI_SUCCESS) return err;
  PMPI_Comm_size(node, ranks);
  *lowest = rank;
  err = PMPI_Bcast(lowest, 1, MPI_INT, 0, node);
  PMPI_Comm_free(&node);
  return err;
}
}  // namespace
#endif

int node_size_env(long* g, std::string* why) {
  *g = 0;
  const char* env = std::getenv("TORUSGATHER_NODE_SIZE");
  if (!env || !*env) return MPI_SUCCESS;
  char* end = nullptr;
  *g = std::strtol(env, &end, 10);
  if (*end != '\0' || *g <= 0 || *g > INT_MAX) {
    *why = "TORUSGATHER_NODE_SIZE=" + std::string(env) + " is not a positive rank count";
    return MPI_ERR_ARG;
  }
  return MPI_SUCCESS;
}

int node_map(MPI_Comm comm, std::vector<int>* node_of, std::string* why) {
  int size = 0;
  PMPI_Comm_size(comm, &size);
  long g = 0;
  if (const int err = node_size_env(&g, why); err != MPI_SUCCESS) return err;
  node_of->assign(static_cast<std::size_t>(size), 0);
  if (g > 0) {
    for (int r = 0; r < size; ++r) (*node_of)[static_cast<std::size_t>(r)] = r - r % static_cast<int>(g);
    return MPI_SUCCESS;
  }
#ifdef SMPI_SHARED_MALLOC
  // SimGrid 3.32's PMPI_Comm_split_type(MPI_COMM_TYPE_SHARED) never returned
  // on 216 or more simulated ranks in tg-gbench-smpi (simgrid.gbench.7x7x7);
  // the lab's platforms put each rank on a host of its own anyway.
  for (int r = 0; r < size; ++r) (*node_of)[static_cast<std::size_t>(r)] = r;
  return MPI_SUCCESS;
#else
  int leader = 0, ranks = 0;
  if (const int err = shared_node(comm, &leader, &ranks); err != MPI_SUCCESS) return err;
  // PMPI_: under interposition MPI_Allgather would be torusgather again.
  return PMPI_Allgather(&leader, 1, MPI_INT, node_of->data(), 1, MPI_INT, comm);
#endif
}

int ensure_node_map(Plan& plan) {
  if (!plan.node_of.empty()) return MPI_SUCCESS;
  std::string why;
  const int err = node_map(plan.comm, &plan.node_of, &why);
  if (err != MPI_SUCCESS) plan.node_of.clear();
  return err;
}

/// The ranks per node where they form the torus's last axis, else 1:
/// TORUSGATHER_NODE_SIZE=g if the last side is g, else (not under SimGrid)
/// MPI_COMM_TYPE_SHARED if every node holds exactly the k ranks of one
/// last-axis ring. Collective on comm (torus order) in the second case: a
/// split and two allreduces, O(1) data per rank.
int find_node_ranks(MPI_Comm comm, const Torus& t, long node_size, int* k) {
  *k = 1;
  const int last = t.dim(t.ndims() - 1);
  if (t.ndims() < 2 || last < 2 || t.size() <= last) return MPI_SUCCESS;
  if (node_size > 0) {
    if (node_size == last) *k = last;
    return MPI_SUCCESS;
  }
#ifdef SMPI_SHARED_MALLOC
  return MPI_SUCCESS;  // node_map: SMPI's shared split hung on 216 ranks
#else
  int rank = 0, lowest = 0, n = 0;
  PMPI_Comm_rank(comm, &rank);
  int err = shared_node(comm, &lowest, &n);
  if (err != MPI_SUCCESS) return err;
  int fits = n == last && lowest == rank - rank % last;
  if ((err = PMPI_Allreduce(MPI_IN_PLACE, &fits, 1, MPI_INT, MPI_LAND, comm)) != MPI_SUCCESS) return err;
  if (fits) *k = last;
  return MPI_SUCCESS;
#endif
}


}  // namespace torusgather
