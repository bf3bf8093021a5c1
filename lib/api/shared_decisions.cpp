// SPDX-License-Identifier: BSD-3-Clause
#include "api/shared_decisions.hpp"

#include <map>
#include <mutex>
#include <string>

#include "api/group.hpp"

namespace torusgather {
namespace {

std::mutex g_decisions_mutex;
std::map<std::string, Pick> g_decisions;

/// The key of a decision: the ranks, the torus, the node axis, the class.
std::string key_of(Plan& plan, long cls) {
  const std::string& group = group_key(plan);
  if (group.empty()) return {};
  return group + "|" + plan.torus.to_string() + "|" + std::to_string(plan.node_ranks) + "|" + std::to_string(cls);
}

/// A pick as one int: the vendor -1, an algorithm its id.
int code_of(const Pick& p) { return p.vendor ? -1 : static_cast<int>(p.id); }

}  // namespace

int adopt_shared_decision(Plan& plan, long cls) {
  const std::string key = key_of(plan, cls);
  Pick pick;
  bool have = false;
  if (!key.empty()) {
    std::lock_guard<std::mutex> lock(g_decisions_mutex);
    if (auto it = g_decisions.find(key); it != g_decisions.end()) {
      pick = it->second;
      have = true;
    }
  }
  // Threads may measure the same ranks on two communicators at once, so the
  // ranks agree that every one holds a decision and that it is the same.
  int votes[3] = {have ? 1 : 0, code_of(pick), -code_of(pick)};
  if (const int err = PMPI_Allreduce(MPI_IN_PLACE, votes, 3, MPI_INT, MPI_MIN, plan.comm); err != MPI_SUCCESS)
    return err;
  if (votes[0] == 1 && votes[1] == -votes[2]) plan.autos.measured[cls] = pick;
  return MPI_SUCCESS;
}

void share_decision(Plan& plan, long cls, const Pick& winner) {
  const std::string key = key_of(plan, cls);
  if (key.empty()) return;
  std::lock_guard<std::mutex> lock(g_decisions_mutex);
  g_decisions.emplace(key, winner);
}

}  // namespace torusgather
