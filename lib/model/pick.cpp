// SPDX-License-Identifier: BSD-3-Clause
#include "model/pick.hpp"

namespace torusgather {

namespace {
constexpr const char* kVendorName = "vendor";
}  // namespace

std::string Pick::name() const { return vendor ? kVendorName : algorithm(id).name; }

bool parse_pick(const std::string& name, Pick* out) {
  if (name == kVendorName) {
    *out = Pick::the_vendor();
    return true;
  }
  const AlgorithmInfo* info = find_algorithm(name);
  if (!info) return false;
  *out = Pick::of(info->id);
  return true;
}

}  // namespace torusgather
