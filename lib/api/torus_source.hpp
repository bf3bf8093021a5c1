// SPDX-License-Identifier: BSD-3-Clause
// Where a communicator's torus comes from: a periodic Cartesian
// communicator, TORUSGATHER_DIMS, or a topology file of node coordinates.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace torusgather {

/// Where a communicator's torus came from (docs/usage.md, "Where the torus
/// comes from").
enum class TorusSource { cartesian, dims_env, topology_file, none };

/// The torus found for a communicator: its dims, where they came from, and,
/// from a topology file, the torus rank of every rank.
struct TorusFound {
  std::vector<int> dims;
  /// The open axes (mesh axes), a bit each: a Cartesian communicator's
  /// period 0, a side written with 'm' in TORUSGATHER_DIMS or the topology file.
  std::uint32_t open_axes = 0;
  TorusSource source = TorusSource::none;
  std::string note;  ///< source none: why no torus is known
  /// Topology file only: torus rank -> rank in the user's communicator
  /// (empty where they are the same), and this rank's torus rank.
  std::vector<int> user_rank;
  int torus_rank = -1;
  /// Ranks per node, where they form the last axis (1: not known).
  int node_ranks = 1;
  /// TORUSGATHER_PAIR_LINKS: the links between the two nodes of a side of
  /// 2 of the network (Torus::shared_link), 1 or 2.
  int pair_links = 1;
};

/// The torus torusgather uses for comm, in order: a Cartesian
/// communicator's own dims and periods; TORUSGATHER_DIMS if it has comm's size;
/// TORUSGATHER_TOPOLOGY's node coordinates if comm's ranks fill its torus
/// with the same number of ranks per node (then the ranks per node are the
/// last axis); else none, with MPI_Dims_create's d = 2 shape and the reason
/// in found->note. Collective with a topology file. On a malformed
/// TORUSGATHER_DIMS, TORUSGATHER_PAIR_LINKS or topology file returns
/// MPI_ERR_ARG with the reason in *why.
int find_torus(MPI_Comm comm, TorusFound* found, std::string* why);

/// What a topology file says of one host: the node torus, and the host's
/// row-major node index (-1 if the file does not name it). Names match
/// exactly, else up to the first '.' on both sides (short names against
/// FQDNs). Reads the whole file (every line is checked) but keeps one
/// node. Throws std::invalid_argument naming the line at fault.
struct TopologyLookup {
  std::vector<int> dims;
  std::uint32_t open_axes = 0;
  long long node = -1;
};
TopologyLookup read_topology(const std::string& path, const std::string& host);

}  // namespace torusgather
