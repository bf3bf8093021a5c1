// SPDX-License-Identifier: BSD-3-Clause
// The C API's questions: which algorithm a call would run, its predicted
// time, and the registered names.
#include <cstring>
#include <string>
#include <vector>

#include "api/decide.hpp"
#include "api/env.hpp"
#include "api/errors.hpp"
#include "api/plan_cache.hpp"
#include "schedule/registry.hpp"
#include "torusgather/torusgather.h"

namespace torusgather {

namespace {

int algorithm_for(const char* algorithm, MPI_Comm comm, int count, MPI_Datatype datatype, char* name, int len) {
  const std::string requested = algorithm ? algorithm : environment().algorithm;
  if (!known_name(requested) || count < 0 || datatype == MPI_DATATYPE_NULL || !name) return MPI_ERR_ARG;
  if (requested == kAuto && !environment().tune_error.empty()) return MPI_ERR_ARG;
  std::string chosen = requested;
  if (!is_vendor(requested)) {
    Plan* plan = nullptr;
    if (const int err = get_plan(comm, &plan); err != MPI_SUCCESS) return err;
    int type_size = 0;
    PMPI_Type_size(datatype, &type_size);
    Choice c;
    if (const int err = choose(*plan, requested, static_cast<long long>(count) * type_size, Purpose::query, &c);
        err != MPI_SUCCESS)
      return err;
    chosen = c.pick.name();
  }
  if (len > 0) {
    std::strncpy(name, chosen.c_str(), static_cast<std::size_t>(len) - 1);
    name[len - 1] = '\0';
  }
  return MPI_SUCCESS;
}

int predicted_time(const char* algorithm, MPI_Comm comm, int count, MPI_Datatype datatype, double* seconds) {
  const std::string requested = algorithm ? algorithm : environment().algorithm;
  if (!known_name(requested) || count < 0 || datatype == MPI_DATATYPE_NULL || !seconds) return MPI_ERR_ARG;
  if (requested == kAuto && !environment().tune_error.empty()) return MPI_ERR_ARG;
  *seconds = -1;
  int size = 0;
  if (const int err = PMPI_Comm_size(comm, &size); err != MPI_SUCCESS) return err;
  if (size == 1) return MPI_SUCCESS;  // a local copy: nothing to model
  Plan* plan = nullptr;
  if (const int err = get_plan(comm, &plan); err != MPI_SUCCESS) return err;
  int type_size = 0;
  PMPI_Type_size(datatype, &type_size);
  const long long block_bytes = static_cast<long long>(count) * type_size;
  Pick ran = Pick::the_vendor();
  if (!is_vendor(requested)) {
    Choice c;
    if (const int err = choose(*plan, requested, block_bytes, Purpose::query, &c); err != MPI_SUCCESS) return err;
    ran = c.pick;
  }
  std::vector<Candidate> candidates;
  int best = -1;
  if (const int err = predictions(*plan, block_bytes, &candidates, &best, &ran); err != MPI_SUCCESS) return err;
  for (const Candidate& c : candidates)
    if (c.pick == ran && c.why_not.empty() && c.profile) *seconds = c.predicted;
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace torusgather

extern "C" int TG_Algorithm_for(const char* algorithm, MPI_Comm comm, int count, MPI_Datatype datatype, char* name,
                                int len) {
  return torusgather::guarded(false, comm, "TG_Algorithm_for", [&] {
    return torusgather::algorithm_for(algorithm, comm, count, datatype, name, len);
  });
}

extern "C" int TG_Predicted_time(const char* algorithm, MPI_Comm comm, int count, MPI_Datatype datatype,
                                 double* seconds) {
  return torusgather::guarded(false, comm, "TG_Predicted_time", [&] {
    return torusgather::predicted_time(algorithm, comm, count, datatype, seconds);
  });
}

extern "C" int TG_Algorithm_chosen(const char* algorithm, MPI_Comm comm, char* name, int len) {
  return TG_Algorithm_for(algorithm, comm, 1, MPI_BYTE, name, len);
}

extern "C" int TG_Algorithm_list(char* names, int len) {
  return torusgather::guarded(false, MPI_COMM_NULL, "TG_Algorithm_list", [&] {
    const std::string list = torusgather::algorithm_names(",");
    if (names == nullptr || len < static_cast<int>(list.size()) + 1) return MPI_ERR_ARG;
    std::memcpy(names, list.c_str(), list.size() + 1);
    return MPI_SUCCESS;
  });
}
