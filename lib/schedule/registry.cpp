#include "schedule/registry.hpp"

#include "schedule/dim_rings.hpp"
#include "schedule/hamiltonian.hpp"

namespace torusgather {

const std::vector<AlgorithmInfo>& algorithms() {
  static const std::vector<AlgorithmInfo> table = {
      {"hamiltonian",
       "two edge-disjoint Hamiltonian cycles, block in 2 halves, both ways round (Meyer & Sibeyn §3.1)",
       &HamiltonianSchedule::not_applicable,
       [](const Torus& t) -> std::unique_ptr<Schedule> { return std::make_unique<HamiltonianSchedule>(t); }},
      {"dim-rings",
       "bidirectional rings along each dimension in turn, d colours (Juurlink, Rao & Sibeyn, approach 1)",
       [](const Torus&) { return std::string(); },
       [](const Torus& t) -> std::unique_ptr<Schedule> { return std::make_unique<DimRingsSchedule>(t); }},
  };
  return table;
}

const AlgorithmInfo* find_algorithm(const std::string& name) {
  for (const auto& a : algorithms())
    if (name == a.name) return &a;
  return nullptr;
}

std::string algorithm_names() {
  std::string s;
  for (const auto& a : algorithms()) {
    if (!s.empty()) s += ", ";
    s += a.name;
  }
  return s;
}

}  // namespace torusgather
