// SPDX-License-Identifier: BSD-3-Clause
#include "api/group.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace torusgather {

const std::string& group_key(Plan& plan) {
  if (plan.group_key_known) return plan.group_key;
  MPI_Group group = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
  PMPI_Comm_group(plan.comm, &group);
  PMPI_Comm_group(MPI_COMM_WORLD, &world);
  const int n = static_cast<int>(plan.torus.size());
  std::vector<int> ranks(static_cast<std::size_t>(n)), in_world(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) ranks[static_cast<std::size_t>(i)] = i;
  PMPI_Group_translate_ranks(group, n, ranks.data(), world, in_world.data());
  PMPI_Group_free(&group);
  PMPI_Group_free(&world);
  plan.group_key.clear();
  if (std::find(in_world.begin(), in_world.end(), MPI_UNDEFINED) == in_world.end()) {
    // A hash, not the list: a million ranks would keep 7 MB per process.
    std::uint64_t hash = 14695981039346656037ull;
    for (int r : in_world) hash = (hash ^ static_cast<std::uint32_t>(r)) * 1099511628211ull;
    plan.group_key = std::to_string(n) + ":" + std::to_string(hash);
  }
  plan.group_key_known = true;
  return plan.group_key;
}

}  // namespace torusgather
