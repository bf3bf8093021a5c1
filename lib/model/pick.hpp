// SPDX-License-Identifier: BSD-3-Clause
// What runs for a call: a registered algorithm, or the MPI library's own
// allgather ("vendor").
#pragma once

#include <string>

#include "schedule/registry.hpp"

namespace torusgather {

struct Pick {
  bool vendor = true;
  AlgorithmId id = kUniversal;  ///< when !vendor

  static Pick of(AlgorithmId a) { return Pick{false, a}; }
  static Pick the_vendor() { return Pick{}; }
  /// The registry's name, or "vendor".
  std::string name() const;
  bool operator==(const Pick& o) const { return vendor == o.vendor && (vendor || id == o.id); }
  bool operator!=(const Pick& o) const { return !(*this == o); }
  bool operator<(const Pick& o) const {
    if (vendor != o.vendor) return vendor;
    return !vendor && id < o.id;
  }
};

/// "vendor" or a registered name as a Pick; false for anything else.
bool parse_pick(const std::string& name, Pick* out);

}  // namespace torusgather
