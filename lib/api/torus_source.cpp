// SPDX-License-Identifier: BSD-3-Clause
#include "api/torus_source.hpp"

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string_view>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "api/nodes.hpp"
#include "topology/torus.hpp"

namespace torusgather {
namespace {

/// True if comm has a Cartesian topology; *ndims gets its dimension count.
bool is_cartesian(MPI_Comm comm, int* ndims) {
#ifdef SMPI_SHARED_MALLOC
  // SimGrid SMPI has no MPI_Topo_test; its MPI_Cartdim_get answers
  // MPI_ERR_TOPOLOGY on other communicators, so ask with errors returned.
  MPI_Errhandler user;
  PMPI_Comm_get_errhandler(comm, &user);
  PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  const int err = PMPI_Cartdim_get(comm, ndims);
  // SMPI reports the default handler as MPI_ERRHANDLER_NULL: the default is fatal.
  PMPI_Comm_set_errhandler(comm, user == MPI_ERRHANDLER_NULL ? MPI_ERRORS_ARE_FATAL : user);
  if (user != MPI_ERRHANDLER_NULL) PMPI_Errhandler_free(&user);
  return err == MPI_SUCCESS;
#else
  int topo = MPI_UNDEFINED;
  PMPI_Topo_test(comm, &topo);
  if (topo != MPI_CART) return false;
  PMPI_Cartdim_get(comm, ndims);
  return true;
#endif
}

/// A host name up to its first '.' (short names against FQDNs).
std::string_view short_name(std::string_view name) { return name.substr(0, name.find('.')); }

/// This process's host name for the topology file: TORUSGATHER_HOSTNAME
/// (where the scheduler's names differ from MPI's, and for tests), else
/// MPI_Get_processor_name.
std::string host_name() {
  if (const char* env = std::getenv("TORUSGATHER_HOSTNAME"); env && *env) return env;
  char name[MPI_MAX_PROCESSOR_NAME] = "";
  int len = 0;
  PMPI_Get_processor_name(name, &len);
  return std::string(name, static_cast<std::size_t>(std::max(0, len)));
}

/// The torus of a topology file over comm's ranks (collective: one
/// allgather of node indices, O(P) ints). Source none with the reason in
/// found->note where the ranks do not fill the file's torus evenly.
int torus_from_file(MPI_Comm comm, const std::string& path, TorusFound* found, std::string* why) {
  int size = 0, rank = 0;
  PMPI_Comm_size(comm, &size);
  PMPI_Comm_rank(comm, &rank);
  const std::string host = host_name();
  // Every rank reads the whole file, so a malformed file fails on every rank
  // alike; a rank that cannot read it sends -2, so none waits on it. The
  // lookup is kept: every communicator built later reads the same file.
  static std::mutex kept_mutex;
  static std::map<std::pair<std::string, std::string>, TopologyLookup> kept;
  long long node = -1;
  std::vector<int> dims;
  std::uint32_t open_axes = 0;
  std::string error;
  {
    std::lock_guard<std::mutex> lock(kept_mutex);
    auto it = kept.find({path, host});
    if (it == kept.end()) {
      try {
        it = kept.emplace(std::make_pair(path, host), read_topology(path, host)).first;
      } catch (const std::invalid_argument& e) {
        error = e.what();
      }
    }
    if (error.empty()) {
      node = it->second.node;
      dims = it->second.dims;
      open_axes = it->second.open_axes;
    }
  }
  if (!error.empty()) node = -2;
  std::vector<long long> nodes(static_cast<std::size_t>(size));
  // PMPI_: under interposition MPI_Allgather would be torusgather again.
  if (const int err = PMPI_Allgather(&node, 1, MPI_LONG_LONG, nodes.data(), 1, MPI_LONG_LONG, comm);
      err != MPI_SUCCESS)
    return err;
  for (int r = 0; r < size; ++r)
    if (nodes[static_cast<std::size_t>(r)] == -2) {
      *why = "TORUSGATHER_TOPOLOGY=" + path + ": " + (error.empty() ? "rank " + std::to_string(r) + " cannot use it" : error);
      return MPI_ERR_ARG;
    }
  long long node_count = 1;
  for (int n : dims) node_count *= n;
  const std::string in = " (TORUSGATHER_TOPOLOGY=" + path + ")";
  for (int r = 0; r < size; ++r)
    if (nodes[static_cast<std::size_t>(r)] < 0) {
      found->note = "rank " + std::to_string(r) + "'s host is not in the topology file" + in;
      if (r == rank) found->note = "host " + host + " is not in the topology file" + in;
      return MPI_SUCCESS;
    }
  // Ranks per node, and each rank's place among its node's (in rank order).
  std::vector<int> per_node(static_cast<std::size_t>(node_count), 0);
  std::vector<int> local(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) local[static_cast<std::size_t>(r)] = per_node[static_cast<std::size_t>(nodes[r])]++;
  const int k = size % node_count == 0 ? static_cast<int>(size / node_count) : 0;
  for (long long n = 0; n < node_count; ++n)
    if (per_node[static_cast<std::size_t>(n)] != k) {
      long long used = 0;
      for (int c : per_node) used += c > 0;
      found->note = std::to_string(size) + " ranks on " + std::to_string(used) + " of the file's " +
                    std::to_string(node_count) + " nodes, " + (used < node_count ? "not all of them" : "unevenly") +
                    ": not a torus" + in;
      return MPI_SUCCESS;
    }
  found->dims = dims;
  found->open_axes = open_axes;
  if (k > 1) found->dims.push_back(k);  // a node's ranks: the last (fastest) axis
  found->node_ranks = k;
  found->source = TorusSource::topology_file;
  found->user_rank.assign(static_cast<std::size_t>(size), 0);
  bool identity = true;
  for (int r = 0; r < size; ++r) {
    const long long t = nodes[static_cast<std::size_t>(r)] * k + local[static_cast<std::size_t>(r)];
    found->user_rank[static_cast<std::size_t>(t)] = r;
    identity = identity && t == r;
    if (r == rank) found->torus_rank = static_cast<int>(t);
  }
  if (identity) found->user_rank.clear();
  return MPI_SUCCESS;
}

}  // namespace

TopologyLookup read_topology(const std::string& path, const std::string& host) {
  std::ifstream f(path);
  if (!f) throw std::invalid_argument("cannot be read");
  TopologyLookup out;
  const std::string_view host_short = short_name(host);
  long long short_match = -1;
  std::string text;
  long line_no = 0;
  auto fail = [&](const std::string& what) {
    throw std::invalid_argument("line " + std::to_string(line_no) + ": " + what);
  };
  while (std::getline(f, text)) {
    ++line_no;
    if (const auto hash = text.find('#'); hash != std::string::npos) text.erase(hash);
    std::vector<std::string_view> words;
    const std::string_view view(text);
    for (std::size_t i = 0; i < view.size();) {
      while (i < view.size() && std::isspace(static_cast<unsigned char>(view[i]))) ++i;
      std::size_t j = i;
      while (j < view.size() && !std::isspace(static_cast<unsigned char>(view[j]))) ++j;
      if (j > i) words.push_back(view.substr(i, j - i));
      i = j;
    }
    if (words.empty()) continue;
    if (words[0] == "dims") {
      if (!out.dims.empty()) fail("a second dims line");
      if (words.size() != 2) fail("expected 'dims D1xD2x...'");
      try {
        out.dims = parse_dims(std::string(words[1]), &out.open_axes);
      } catch (const std::invalid_argument& e) {
        fail(e.what());
      }
      continue;
    }
    if (out.dims.empty()) fail("a node before the 'dims' line");
    if (words.size() != out.dims.size() + 1)
      fail("expected a host name and " + std::to_string(out.dims.size()) + " coordinates");
    long long index = 0;
    for (std::size_t a = 0; a < out.dims.size(); ++a) {
      const std::string_view w = words[a + 1];
      long c = -1;
      const auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), c);
      if (ec != std::errc() || end != w.data() + w.size() || c < 0 || c >= out.dims[a])
        fail("coordinate '" + std::string(w) + "' is not in 0.." + std::to_string(out.dims[a] - 1));
      index = index * out.dims[a] + c;
    }
    if (words[0] == host) out.node = index;
    else if (short_match < 0 && short_name(words[0]) == host_short) short_match = index;
  }
  if (out.dims.empty()) throw std::invalid_argument("no 'dims' line");
  if (out.node < 0) out.node = short_match;
  return out;
}

namespace {

/// TORUSGATHER_PAIR_LINKS: the links between the two nodes of a side of
/// 2, 1 (default) or 2.
int pair_links_env(int* links, std::string* why) {
  *links = 1;
  const char* env = std::getenv("TORUSGATHER_PAIR_LINKS");
  if (!env || !*env) return MPI_SUCCESS;
  if (std::string(env) != "1" && std::string(env) != "2") {
    *why = "TORUSGATHER_PAIR_LINKS=" + std::string(env) + " is not 1 or 2 (the links between the two nodes of a side of 2)";
    return MPI_ERR_ARG;
  }
  *links = env[0] - '0';
  return MPI_SUCCESS;
}

int find_shape(MPI_Comm comm, TorusFound* found, std::string* why) {
  int size = 0;
  PMPI_Comm_size(comm, &size);
  *found = TorusFound{};
  // A Cartesian communicator with every period true is the torus. One with
  // a period false is a mesh where nothing else describes the machine:
  // TORUSGATHER_DIMS and a topology file, which do, come first (a program
  // may take open axes on a torus network).
  TorusFound cartesian_mesh;
  int nd = 0;
  if (is_cartesian(comm, &nd) && nd > 0 && nd <= 16) {
    std::vector<int> d(nd), periods(nd), coords(nd);
    PMPI_Cart_get(comm, nd, d.data(), periods.data(), coords.data());
    TorusFound cart;
    for (int a = 0; a < nd; ++a)
      if (!periods[static_cast<std::size_t>(a)]) cart.open_axes |= 1u << a;
    cart.dims = d;
    cart.source = TorusSource::cartesian;
    if (cart.open_axes == 0) {
      *found = std::move(cart);
      return MPI_SUCCESS;
    }
    cartesian_mesh = std::move(cart);
  }
  std::string reasons;
  if (const char* env = std::getenv("TORUSGATHER_DIMS"); env && *env) {
    std::vector<int> dims;
    std::uint32_t open_axes = 0;
    try {
      dims = parse_dims(env, &open_axes);
    } catch (const std::invalid_argument& e) {
      *why = std::string("TORUSGATHER_DIMS: ") + e.what();
      return MPI_ERR_ARG;
    }
    long long product = 1;
    for (int n : dims) product *= n;
    long g = 0;
    std::string ignored;  // get_plan reports a malformed TORUSGATHER_NODE_SIZE
    node_size_env(&g, &ignored);
    if (product == size) {
      found->dims = dims;
      found->open_axes = open_axes;
      found->source = TorusSource::dims_env;
      return MPI_SUCCESS;
    }
    if (g > 1 && product * g == size) {  // the node torus, and g ranks per node
      found->dims = dims;
      found->open_axes = open_axes;
      found->dims.push_back(static_cast<int>(g));
      found->node_ranks = static_cast<int>(g);
      found->source = TorusSource::dims_env;
      return MPI_SUCCESS;
    }
    // The job's torus: a communicator of another size (a row, a split, a
    // subset) is no error, and no torus either.
    reasons = "TORUSGATHER_DIMS=" + std::string(env) + " describes " + std::to_string(product) +
              " ranks, this communicator has " + std::to_string(size);
  }
  if (const char* env = std::getenv("TORUSGATHER_TOPOLOGY"); env && *env) {
    if (const int err = torus_from_file(comm, env, found, why); err != MPI_SUCCESS) return err;
    if (found->source == TorusSource::topology_file) return MPI_SUCCESS;
    reasons += (reasons.empty() ? "" : "; ") + found->note;
  }
  if (cartesian_mesh.source == TorusSource::cartesian) {
    *found = std::move(cartesian_mesh);
    return MPI_SUCCESS;
  }
  found->note = reasons.empty() ? "no Cartesian communicator, TORUSGATHER_DIMS or TORUSGATHER_TOPOLOGY"
                                : reasons;
  found->source = TorusSource::none;
  found->dims.assign(2, 0);
  return PMPI_Dims_create(size, 2, found->dims.data());
}

}  // namespace

int find_torus(MPI_Comm comm, TorusFound* found, std::string* why) {
  int links = 1;
  if (const int err = pair_links_env(&links, why); err != MPI_SUCCESS) return err;
  if (const int err = find_shape(comm, found, why); err != MPI_SUCCESS) return err;
  found->pair_links = links;
  return MPI_SUCCESS;
}

}  // namespace torusgather
