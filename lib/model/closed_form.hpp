// SPDX-License-Identifier: BSD-3-Clause
// Cost profiles in closed form: what profile() measures by stepping through
// every rank's rounds, derived from the construction in O(rounds * d).
#pragma once

#include <string>

#include "model/cost.hpp"

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

/// Why `hamiltonian` is not considered where only the search gives its
/// cycles: above that limit, and in 5D and 6D.
constexpr const char* kNeedsSearch =
    "no rule gives this shape's cycles, only the switch search, which every rank would run (10 ms on 16x16x16, "
    "2.4 s on 64x64x64, 2 s to fail on 4x4x4x4x2, 20 s on 4x4x4x4x4x4): name it";

/// Whether closed_form_profile knows `algorithm`.
bool has_closed_form(const std::string& algorithm);

/// Sides up to which `auto` considers bridgehead and bridgehead-coloured
/// above kSteppedProfileLimit (concentrate up to kConcentrateSideLimit): their profile comes
/// from one ring per side, but the a, b, k search over the cost formula grows with
/// the side.
constexpr int kRingProfileSideLimit = 16;
/// Sides up to which concentrate's ring profile is built: its gossip
/// builder keeps a bit per block and rank of the ring, n^2 bits.
constexpr int kConcentrateSideLimit = 4096;
/// Why they are not considered on longer sides.
constexpr const char* kSideTooLong =
    "above 1024 ranks auto considers it only on sides up to 16: its a, b, k search grows with the side (name it, or "
    "TORUSGATHER_TUNE)";
constexpr const char* kConcentrateSideTooLong =
    "above 1024 ranks auto considers it only on sides up to 4096: its profile's ring takes n^2 bits (name it, or "
    "TORUSGATHER_TUNE)";

/// Whether `algorithm` on `torus` gets its profile from a built schedule's
/// rings, torus-bruck's parts or dim-rings' variant
/// (closed_form_profile(const Schedule&)), above kSteppedProfileLimit.
bool has_ring_profile(const std::string& algorithm, const Torus& torus);

/// The profile of a built schedule from its construction where it has one
/// (bridgehead and its variants: from one ring per side, O(rounds * n)
/// calls, not P ranks; torus-bruck: from its parts, O(k log P); dim-rings:
/// from its colours' steps, O(rounds * d)); false otherwise.
///
/// node_ranks k > 1 where the torus's last axis is each node's k ranks: a
/// node's ranks share its network links. dim-rings charges that axis as
/// shared memory, as profile() does; the others charge every link k times
/// one rank's load.
bool closed_form_profile(const Schedule& schedule, CostProfile* out, int node_ranks = 1);

/// The profile of schedule `algorithm` on `torus` from its construction,
/// without building the schedule (dim-rings: the paper's variant, d colours
/// and halves); false where no closed form is known yet (then profile() on
/// the built schedule is the only way).
bool closed_form_profile(const std::string& algorithm, const Torus& torus, CostProfile* out, int node_ranks = 1);

}  // namespace torusgather
