// SPDX-License-Identifier: BSD-3-Clause
#include "api/plan.hpp"

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

namespace torusgather {
namespace {

/// Counts deleted plans: a thread's remembered (communicator, plan) pair is
/// stale once a plan has gone, since the freed handle may name a new
/// communicator.
std::atomic<unsigned long> g_plans_deleted{0};

int delete_plan(MPI_Comm, int, void* attribute, void*) {
  g_plans_deleted.fetch_add(1, std::memory_order_acq_rel);
  auto* plan = static_cast<Plan*>(attribute);
  if (plan->comm != MPI_COMM_NULL) PMPI_Comm_free(&plan->comm);
  delete plan;
  return MPI_SUCCESS;
}

int g_plan_keyval = MPI_KEYVAL_INVALID;

int plan_keyval() {
  // MPI_COMM_NULL_COPY_FN: a duplicate of the user's communicator builds its
  // own plan (it needs its own private communicator anyway). Created once,
  // thread-safely (MPI_THREAD_MULTIPLE), and freed at MPI_Finalize.
  static std::once_flag once;
  std::call_once(once, [] {
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_plan, &g_plan_keyval, nullptr);
    at_finalize([] { PMPI_Comm_free_keyval(&g_plan_keyval); });
  });
  return g_plan_keyval;
}

int run_at_finalize(MPI_Comm, int keyval, void*, void* fn) {
  reinterpret_cast<void (*)()>(fn)();
  PMPI_Comm_free_keyval(&keyval);
  return MPI_SUCCESS;
}

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

/// Open MPI 4.1 opens its topology framework lazily, unlocked, inside the
/// first MPI_Cart_create (mca_topo_base_lazy_init): threads that build their
/// communicators' first plans at once crashed there (tests/mpi/
/// test_robustness.cpp, threads mode). A Cartesian communicator over
/// MPI_COMM_SELF is local, so creating one under std::call_once opens the
/// framework with no risk of waiting on other ranks.
void open_topology_framework_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    int one = 1, periodic = 1;
    MPI_Comm self_cart = MPI_COMM_NULL;
    if (PMPI_Cart_create(MPI_COMM_SELF, 1, &one, &periodic, 0, &self_cart) == MPI_SUCCESS &&
        self_cart != MPI_COMM_NULL)
      PMPI_Comm_free(&self_cart);
  });
}

}  // namespace

void at_finalize(void (*fn)()) {
  int keyval = MPI_KEYVAL_INVALID;
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, run_at_finalize, &keyval, reinterpret_cast<void*>(fn));
  PMPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr);
}

namespace {

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
        out.dims = parse_dims(std::string(words[1]));
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

int find_torus(MPI_Comm comm, TorusFound* found, std::string* why) {
  int size = 0;
  PMPI_Comm_size(comm, &size);
  *found = TorusFound{};
  int nd = 0;
  if (is_cartesian(comm, &nd)) {
    std::vector<int> d(nd), periods(nd), coords(nd);
    if (nd > 0) PMPI_Cart_get(comm, nd, d.data(), periods.data(), coords.data());
    bool periodic = nd > 0;
    for (int p : periods) periodic = periodic && p;
    if (periodic) {
      found->dims = d;
      found->source = TorusSource::cartesian;
      return MPI_SUCCESS;
    }
  }
  std::string reasons;
  if (const char* env = std::getenv("TORUSGATHER_DIMS"); env && *env) {
    std::vector<int> dims;
    try {
      dims = parse_dims(env);
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
      found->source = TorusSource::dims_env;
      return MPI_SUCCESS;
    }
    if (g > 1 && product * g == size) {  // the node torus, and g ranks per node
      found->dims = dims;
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
  found->note = reasons.empty() ? "no periodic Cartesian communicator, TORUSGATHER_DIMS or TORUSGATHER_TOPOLOGY"
                                : reasons;
  found->source = TorusSource::none;
  found->dims.assign(2, 0);
  return PMPI_Dims_create(size, 2, found->dims.data());
}

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

namespace {

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

}  // namespace

Plan* find_plan(MPI_Comm comm) {
  // The attribute lookup is a hash-table search in MPI libraries; programs
  // call their allgathers on one communicator in a row. Not under SimGrid
  // SMPI, whose simulated ranks may share one thread.
#ifndef SMPI_SHARED_MALLOC
  thread_local struct {
    MPI_Comm comm = MPI_COMM_NULL;
    Plan* plan = nullptr;
    unsigned long deleted = 0;
  } last;
  const unsigned long deleted = g_plans_deleted.load(std::memory_order_acquire);
  if (last.plan && last.comm == comm && last.deleted == deleted) return last.plan;
#endif
  void* value = nullptr;
  int found = 0;
  if (PMPI_Comm_get_attr(comm, plan_keyval(), &value, &found) != MPI_SUCCESS || !found) return nullptr;
#ifndef SMPI_SHARED_MALLOC
  last.comm = comm;
  last.plan = static_cast<Plan*>(value);
  last.deleted = deleted;
#endif
  return static_cast<Plan*>(value);
}

int get_plan(MPI_Comm comm, Plan** out) {
  void* value = nullptr;
  int cached = 0;
  int err = PMPI_Comm_get_attr(comm, plan_keyval(), &value, &cached);
  if (err != MPI_SUCCESS) return err;
  if (cached) {
    *out = static_cast<Plan*>(value);
    return MPI_SUCCESS;
  }
  TorusFound found;
  std::string why;
  if ((err = find_torus(comm, &found, &why)) != MPI_SUCCESS) {
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    if (rank == 0 && !why.empty()) {
      std::fprintf(stderr, "torusgather: %s\n", why.c_str());
      std::fflush(stderr);
    }
    // Every rank reads the same environment and fails alike here. Wait until
    // rank 0 has said why before any rank's error handler may abort the job
    // (seen with MPICH: the abort of another rank lost rank 0's message).
    PMPI_Barrier(comm);
    return err;
  }
  auto plan = std::make_unique<Plan>(Torus(found.dims));
  plan->source = found.source;
  plan->torus_note = found.note;
  open_topology_framework_once();
  // reorder = 0 keeps rank r of `ordered` as rank r of the private
  // communicator: comm itself (block r of recvbuf belongs to torus rank r),
  // or comm in the topology file's torus order.
  MPI_Comm ordered = comm;
  if (!found.user_rank.empty() &&
      (err = PMPI_Comm_split(comm, 0, found.torus_rank, &ordered)) != MPI_SUCCESS)
    return err;
  std::vector<int> periods(found.dims.size(), 1);
  err = PMPI_Cart_create(ordered, static_cast<int>(found.dims.size()), found.dims.data(), periods.data(), 0,
                         &plan->comm);
  if (ordered != comm) PMPI_Comm_free(&ordered);
  if (err != MPI_SUCCESS) return err;
  plan->user_rank = std::move(found.user_rank);
  PMPI_Comm_set_errhandler(plan->comm, MPI_ERRORS_RETURN);
  PMPI_Comm_rank(plan->comm, &plan->rank);
  PMPI_Comm_size(plan->comm, &plan->size);
  // The node map itself (P ints, and a collective) waits for three-phase.
  long node_size = 0;
  if ((err = node_size_env(&node_size, &why)) != MPI_SUCCESS) {
    if (plan->rank == 0 && !why.empty()) {
      std::fprintf(stderr, "torusgather: %s\n", why.c_str());
      std::fflush(stderr);
    }
    PMPI_Barrier(comm);  // as for TORUSGATHER_DIMS above
    PMPI_Comm_free(&plan->comm);
    return err;
  }
  plan->node_ranks = found.node_ranks;
  if (plan->node_ranks == 1 && plan->source != TorusSource::none &&
      (err = find_node_ranks(plan->comm, plan->torus, node_size, &plan->node_ranks)) != MPI_SUCCESS) {
    PMPI_Comm_free(&plan->comm);
    return err;
  }
  if ((err = PMPI_Comm_set_attr(comm, plan_keyval(), plan.get())) != MPI_SUCCESS) {
    PMPI_Comm_free(&plan->comm);
    return err;
  }
  *out = plan.release();
  return MPI_SUCCESS;
}

}  // namespace torusgather
