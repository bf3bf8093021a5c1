// SPDX-License-Identifier: BSD-3-Clause
// Cost profiles in closed form: what profile() measures by stepping through
// every rank's rounds, derived from the construction in O(rounds * d).
#pragma once

#include <string>

#include "model/cost.hpp"
#include "schedule/registry.hpp"

namespace torusgather {

/// Above this many ranks `auto` considers only the algorithms whose profile
/// comes from their construction. Up to it, rank 0 builds every schedule
/// and steps through all ranks' rounds of those without one, which grows as
/// P^2 (docs/performance.md, "Scale").
constexpr long long kSteppedProfileLimit = 1024;
/// Why an algorithm is not considered above that.
constexpr const char* kNoClosedForm =
    "no closed-form cost profile yet: auto builds and steps through this schedule only up to 1024 ranks (name it, "
    "or TORUSGATHER_TUNE)";

/// Why `auto` leaves `hamiltonian` out above that limit and in 5D-6D
/// where no rule without a table gives its cycles.
constexpr const char* kNoRule =
    "no rule without a table gives this shape's cycles; auto tries the layered lift and doubling (a table built "
    "by every rank) only up to 1024 ranks in 2D-4D, and never the switch search: name it";

/// Why `auto` leaves `hamiltonian` out where only the search gives its cycles.
constexpr const char* kNeedsSearch =
    "no construction gives this shape's cycles, only the switch search, which every rank would run (0.8 s to fail "
    "on 2x2x255): name it";

/// Whether the profile of `info` on `torus` comes from its built schedule's
/// construction (its sides within the limit of its ProfileTraits).
bool profile_from_schedule(const AlgorithmInfo& info, const Torus& torus);

/// Whether `auto` has a profile of `info` on `torus` above
/// kSteppedProfileLimit: from the torus alone, or profile_from_schedule.
bool has_profile_at_scale(const AlgorithmInfo& info, const Torus& torus);

/// Why `auto` leaves `info` out above kSteppedProfileLimit on `torus`
/// (has_profile_at_scale false): no closed form, or sides past its limit.
std::string no_profile_at_scale(const AlgorithmInfo& info);

/// The profile of a built schedule from its construction where it has one
/// (bridgehead and its variants: from one ring per side, O(rounds * n)
/// calls, not P ranks; torus-bruck: from its parts, O(k log P); dim-rings:
/// from its colours' steps, O(rounds * d); hamiltonian: as by its id;
/// circulant: below); false otherwise.
///
/// node_ranks k > 1 where the torus's last axis is each node's k ranks: a
/// node's ranks share its network links. dim-rings charges that axis as
/// shared memory, as profile() does; the others charge every link k times
/// one rank's load. `physical`: the torus that a schedule on ranks alone
/// (circulant: from its chords' routes, O(P * hops)) is routed over, as
/// profile()'s.
bool closed_form_profile(const Schedule& schedule, CostProfile* out, int node_ranks = 1,
                         const Torus* physical = nullptr);

/// The profile of `algorithm` on `torus` from its construction,
/// without building the schedule (dim-rings: the paper's variant, d colours
/// and halves); false where no closed form is known yet (then profile() on
/// the built schedule is the only way).
bool closed_form_profile(AlgorithmId algorithm, const Torus& torus, CostProfile* out, int node_ranks = 1);

/// The vendor algorithm's profile in closed form: O(d) per step for the
/// ring, Bruck, recursive doubling, neighbour exchange and linear; the shift
/// has P-1 distinct steps (O(P d)); the recursive doubling tree on a P that
/// is not a power of two is stepped through. node_ranks k > 1 (the last axis
/// is each node's k ranks): a node's k ranks share its network links and the
/// node axis is charged to node_blocks, as vendor_profile_stepped() does.
CostProfile vendor_profile(const Torus& torus, VendorAlgorithm a, int node_ranks = 1);

}  // namespace torusgather
