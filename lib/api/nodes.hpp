// SPDX-License-Identifier: BSD-3-Clause
// The nodes of a communicator: which ranks share one (MPI_COMM_TYPE_SHARED
// or TORUSGATHER_NODE_SIZE), and whether they form the torus's last axis.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "topology/torus.hpp"

namespace torusgather {

struct Plan;

/// The node of each rank of comm, as the lowest rank on that node: ranks
/// that share memory (MPI_COMM_TYPE_SHARED), or with TORUSGATHER_NODE_SIZE=g
/// nodes of g consecutive ranks (to try the hierarchy on one machine).
/// Under SimGrid SMPI without it, every rank is a node of its own.
/// Collective unless TORUSGATHER_NODE_SIZE is set; a malformed value gives
/// MPI_ERR_ARG and the reason in *why.
int node_map(MPI_Comm comm, std::vector<int>* node_of, std::string* why);
/// TORUSGATHER_NODE_SIZE: *g (0 if unset), or MPI_ERR_ARG and the reason.
int node_size_env(long* g, std::string* why);
/// Fills plan.node_of on first need (three-phase): collective, like node_map.
int ensure_node_map(Plan& plan);

/// The ranks per node where they form the torus's last axis, else 1:
/// TORUSGATHER_NODE_SIZE=node_size if the last side is that, else (not
/// under SimGrid) MPI_COMM_TYPE_SHARED if every node holds exactly the ranks
/// of one last-axis ring. Collective on comm (torus order) in the second case.
int find_node_ranks(MPI_Comm comm, const Torus& t, long node_size, int* k);

}  // namespace torusgather
