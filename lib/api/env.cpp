// SPDX-License-Identifier: BSD-3-Clause
#include "api/env.hpp"

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "schedule/registry.hpp"

namespace torusgather {

Environment::Environment() {
  if (const char* n = std::getenv("TORUSGATHER_TRIALS"); n && *n) {
    char* end = nullptr;
    const long v = std::strtol(n, &end, 10);
    if (*end == '\0' && v >= 0 && v <= 100) trials = static_cast<int>(v);  // else the default
  }
  if (const char* l = std::getenv("TORUSGATHER_LEARN_AFTER"); l && *l) {
    char* end = nullptr;
    const double v = std::strtod(l, &end);
    if (*end == '\0' && v >= 0 && v <= 1e6) learn_after = v;  // else the default
  }
  if (const char* f = std::getenv("TORUSGATHER_TUNING_FILE"); f && *f) tuning_file = f;
  if (const char* a = std::getenv("TORUSGATHER_ALGORITHM"); a && *a) algorithm = a;
  if (const char* v = std::getenv("TORUSGATHER_VERBOSE"); v && *v && std::strcmp(v, "0") != 0)
    verbose = std::strcmp(v, "2") == 0 ? 2 : 1;
  for (const auto& info : algorithms())
    if (info.tuned)
      if (const char* v = std::getenv(info.tuned->env); v && *v) fixed_params[info.id] = v;
  if (const char* p = std::getenv("TORUSGATHER_CIRCULANT_PACKETS"); p && *p) {
    char* end = nullptr;
    const long v = std::strtol(p, &end, 10);
    if (*end == '\0' && v > 0 && v <= INT_MAX) circulant_packets = static_cast<int>(v);  // else ignored
  }
  if (const char* m = std::getenv("TORUSGATHER_VENDOR_MODEL"); m && *m) vendor_model = m;
  if (const char* t = std::getenv("TORUSGATHER_TUNE"); t && *t) {
    if (!parse_tune(t, &tune, &tune_error)) tune.clear();
  }
}

const Environment& environment() {
  static const Environment env;
  return env;
}

bool known_name(const std::string& name) {
  Pick pick;
  return name == kAuto || parse_pick(name, &pick);
}

bool is_vendor(const std::string& requested) {
  Pick pick;
  return parse_pick(requested, &pick) && pick.vendor;
}

bool usable_name(const std::string& requested, MPI_Comm comm) {
  if (known_name(requested) && (requested != kAuto || environment().tune_error.empty())) return true;
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  if (rank == 0)
    std::fprintf(stderr, "torusgather: %s\n",
                 known_name(requested) ? ("TORUSGATHER_TUNE: " + environment().tune_error).c_str()
                                       : ("unknown algorithm '" + requested + "'").c_str());
  return false;
}

}  // namespace torusgather
