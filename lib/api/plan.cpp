// SPDX-License-Identifier: BSD-3-Clause
#include "api/plan.hpp"

#include <atomic>
#include <climits>
#include <cstdio>
#include <cstdlib>
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

int torus_dims(MPI_Comm comm, std::vector<int>* dims, std::string* why, std::string* note) {
  int size = 0;
  PMPI_Comm_size(comm, &size);
  int nd = 0;
  if (is_cartesian(comm, &nd)) {
    std::vector<int> d(nd), periods(nd), coords(nd);
    if (nd > 0) PMPI_Cart_get(comm, nd, d.data(), periods.data(), coords.data());
    bool periodic = nd > 0;
    for (int p : periods) periodic = periodic && p;
    if (periodic) {
      *dims = d;
      return MPI_SUCCESS;
    }
  }
  if (const char* env = std::getenv("TORUSGATHER_DIMS"); env && *env) {
    try {
      *dims = parse_dims(env);
    } catch (const std::invalid_argument& e) {
      *why = std::string("TORUSGATHER_DIMS: ") + e.what();
      return MPI_ERR_ARG;
    }
    long long product = 1;
    for (int n : *dims) product *= n;
    if (product == size) return MPI_SUCCESS;
    // The job's torus: a communicator of another size (a row, a split, a
    // subset) is no error; it takes the default shape below.
    *note = "TORUSGATHER_DIMS=" + std::string(env) + " describes " + std::to_string(product) +
            " ranks, this communicator has " + std::to_string(size) + ": MPI_Dims_create's shape";
  }
  dims->assign(2, 0);
  return PMPI_Dims_create(size, 2, dims->data());
}

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
  // Key = rank: rank 0 of the node communicator is the node's lowest rank.
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  MPI_Comm node = MPI_COMM_NULL;
  int err = PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  if (err != MPI_SUCCESS) return err;
  int leader = rank;
  err = PMPI_Bcast(&leader, 1, MPI_INT, 0, node);
  PMPI_Comm_free(&node);
  if (err != MPI_SUCCESS) return err;
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
  int found = 0;
  int err = PMPI_Comm_get_attr(comm, plan_keyval(), &value, &found);
  if (err != MPI_SUCCESS) return err;
  if (found) {
    *out = static_cast<Plan*>(value);
    return MPI_SUCCESS;
  }
  std::vector<int> dims;
  std::string why, note;
  if ((err = torus_dims(comm, &dims, &why, &note)) != MPI_SUCCESS) {
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
  auto plan = std::make_unique<Plan>(Torus(dims));
  plan->torus_note = note;
  open_topology_framework_once();
  // reorder = 0 keeps rank r of comm as rank r of the private communicator,
  // so block r of recvbuf belongs to torus rank r.
  std::vector<int> periods(dims.size(), 1);
  err = PMPI_Cart_create(comm, static_cast<int>(dims.size()), dims.data(), periods.data(), 0, &plan->comm);
  if (err != MPI_SUCCESS) return err;
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
  if ((err = PMPI_Comm_set_attr(comm, plan_keyval(), plan.get())) != MPI_SUCCESS) {
    PMPI_Comm_free(&plan->comm);
    return err;
  }
  *out = plan.release();
  return MPI_SUCCESS;
}

}  // namespace torusgather
