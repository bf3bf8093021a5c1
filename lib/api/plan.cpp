// SPDX-License-Identifier: BSD-3-Clause
// The per-communicator plan: built collectively on the first call, kept in
// an MPI attribute, freed with the communicator.
#include "api/plan.hpp"

#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>

#include "api/nodes.hpp"
#include "api/torus_source.hpp"

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

}  // namespace

void at_finalize(void (*fn)()) {
  int keyval = MPI_KEYVAL_INVALID;
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, run_at_finalize, &keyval, reinterpret_cast<void*>(fn));
  PMPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr);
}

Plan* find_plan(MPI_Comm comm) {
  // The attribute lookup is a hash-table search in MPI libraries; programs
  // call their allgathers on one communicator in a row. Not under SimGrid
  // SMPI, whose simulated ranks may share one thread.
#ifndef SMPI_SHARED_MALLOC
  // Zero-initialised and initial-exec, so that reading it is one load: a
  // repeated call handed to the vendor adds little else (it takes 24 bytes
  // of the static TLS that glibc keeps for libraries loaded later, too).
  struct Last {
    MPI_Comm comm;
    Plan* plan;
    unsigned long deleted;
  };
  static thread_local Last last __attribute__((tls_model("initial-exec")));
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
  auto plan = std::make_unique<Plan>(Torus(found.dims, 0, found.open_axes));
  plan->source = found.source;
  plan->torus_note = found.note;
  // The private communicator: comm's ranks in torus order (comm's own
  // order, so that block r of recvbuf belongs to torus rank r, or the
  // topology file's). No Cartesian topology: the plan holds the torus, and
  // an MPI_Cart_create costs some 70 us more (800 us on a process's first).
  err = found.user_rank.empty() ? PMPI_Comm_dup(comm, &plan->comm)
                                : PMPI_Comm_split(comm, 0, found.torus_rank, &plan->comm);
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
  // Two links on every side of 2 of the network, not on the node axis (shared memory).
  if (found.pair_links == 2 && plan->source != TorusSource::none)
    plan->torus = Torus(found.dims, network_axes(plan->torus.ndims() - (plan->node_ranks > 1 ? 1 : 0)), found.open_axes);
  if ((err = PMPI_Comm_set_attr(comm, plan_keyval(), plan.get())) != MPI_SUCCESS) {
    PMPI_Comm_free(&plan->comm);
    return err;
  }
  *out = plan.release();
  return MPI_SUCCESS;
}

}  // namespace torusgather

