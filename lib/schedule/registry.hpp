// SPDX-License-Identifier: BSD-3-Clause
// The one table of schedule algorithms: names, descriptions, applicability.
// Name parsing, `tg-plan --algorithm`, TORUSGATHER_ALGORITHM and the tests
// all derive from it (after UCC's allgather registry).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "schedule/schedule.hpp"

namespace torusgather {

/// The r = α/(sβ) for which the registry's `bridgehead` picks a, b, k when
/// no block size is known (tg-plan without --r); TG_Allgather picks them for
/// the call's r.
constexpr double kBridgeheadDefaultR = 1.0;

/// What a build may depend on besides the torus: one path for the library,
/// tg-plan and the tests. Each algorithm reads what concerns it.
struct BuildContext {
  const std::vector<int>* node_of = nullptr;  ///< three-phase: each rank's node (nullptr: one rank per node)
  int packets = 0;                            ///< circulant: at most this many blocks per link per round (0: any)
  int chord = 0;                              ///< chordal-ring: this chord (0: the fewest rounds)
  double r = kBridgeheadDefaultR;             ///< size-tuned algorithms: a, b, k best for this r = α/(sβ) ...
  std::string params;                         ///< ... unless given here, as text
  /// torus-bruck: the software cost of a message beyond the round's first
  /// send and receive, as a fraction of the start-up α (the machine's o/α).
  double overhead_ratio = 0.5;
  /// torus-bruck: the executor's software cost per round, as a fraction of
  /// α (calibration's per-round cost): radices with fewer rounds save it.
  double round_ratio = 0;
  /// node-*: the ranks per node, which form the torus's last axis (1: one
  /// rank per node, and the node-aware schedules decline).
  int node_ranks = 1;
  /// dim-rings: the node's injection limit in links' bandwidth (what it
  /// sends and receives together; the machine's β / inject_β), 0: none.
  double inject_ratio = 0;
  /// torus-bruck: a candidate's predicted seconds (the cost model's, at
  /// this r), to pick its radix and order; unset: its own heuristic.
  std::function<double(const Schedule&)> cost;
};

/// The algorithms whose a, b, k depend on the block size (circgos per axis,
/// the diagonal cubgos/torgos of Juurlink, Rao & Sibeyn): parameters as text,
/// which is also a built schedule's cache key.
struct TunedParams {
  const char* env;  ///< the variable that fixes them
  std::string (*best)(const Torus&, const BuildContext&);
  bool (*parse)(const std::string&, const Torus&, std::string* why);
  std::string (*of)(const Schedule&);  ///< a built schedule's parameters
};

/// Every schedule algorithm, in the registry's order. Other layers name an
/// algorithm by its id; its name is for users (TORUSGATHER_ALGORITHM, tables).
enum class AlgorithmId {
  hamiltonian,
  hamiltonian_partial,
  partial_cycles,
  partial_cycles_ti,
  dim_rings,
  lee_code,
  lee_code_large,
  circulant,
  chordal_ring,
  three_phase,
  bridgehead,
  bridgehead_coloured,
  cubgos,
  torus_bruck,
  concentrate,
  node_dim_rings,
  node_hamiltonian,
};

/// Where `auto` gets an algorithm's cost profile from on any number of
/// ranks; without either, only by stepping a built schedule through all
/// ranks, up to kSteppedProfileLimit (lib/model/closed_form.hpp).
struct ProfileTraits {
  /// From the torus alone, nothing built (closed_form_profile(AlgorithmId, ...)).
  bool from_torus = false;
  /// From a built schedule's construction (its rings, parts or colours).
  bool from_schedule = false;
  /// from_schedule only on sides up to this (0: any), and why: the build
  /// behind the profile grows with the side.
  int side_limit = 0;
  const char* side_limit_why = nullptr;
  /// For a profile only stepping gives, or a schedule whose build may search:
  /// at least this many rounds move data on the torus (from its shape,
  /// nothing built), or nullptr. Where they alone put it behind others, auto
  /// neither builds nor profiles it (predict_all).
  long long (*rounds_at_least)(const Torus&) = nullptr;
  /// Where a call lists its blocks one by one (ranges of ranks, not
  /// sub-boxes): the CPU it spends per block of the receive buffer, in ns,
  /// as measured on this machine at 32,768 to 10^6 ranks (docs/design.md,
  /// "Scale"); 0 where a call's own work grows with its rounds only.
  double listing_ns_per_block = 0;
};

struct AlgorithmInfo {
  AlgorithmId id;
  const char* name;
  const char* description;
  /// Empty when the algorithm applies to the torus, else the reason it declines.
  std::string (*not_applicable)(const Torus&);
  /// Throws std::invalid_argument (with the reason) where the construction
  /// or the context's choices do not apply.
  std::unique_ptr<Schedule> (*build)(const Torus&, const BuildContext&);
  /// Why `auto` never considers it (it only runs when named), or nullptr.
  const char* not_selected = nullptr;
  /// Non-null for the size-tuned algorithms.
  const TunedParams* tuned = nullptr;
  /// Runs only where the torus's last axis is a node's ranks (node_ranks).
  bool node_aware = false;
  /// Runs where an axis is open (a mesh axis); the others need every wraparound link.
  bool open_axes = false;
  ProfileTraits profile = {};
  /// Needs the communicator's node of every rank (BuildContext::node_of),
  /// which takes a collective step to learn.
  bool needs_node_map = false;
  /// Its cycles come from a rule on some shapes and from a search on the
  /// others: every rank would run the search, so auto considers it only
  /// where a rule applies (on the node torus for a node-aware one).
  bool cycles_by_rule_only = false;
  /// What the verbose report adds to the name of a built schedule (its
  /// parameters, its construction), or nullptr.
  std::string (*describe)(const Schedule&) = nullptr;
  /// Where this one declines the shape, a forced request runs this one
  /// instead (the next of its family), which may decline in turn; the chain
  /// ends at kUniversal.
  AlgorithmId fallback = AlgorithmId::dim_rings;
};

/// Every schedule algorithm, in the order `auto` prefers them for large blocks.
const std::vector<AlgorithmInfo>& algorithms();
/// nullptr when no schedule algorithm has that name.
const AlgorithmInfo* find_algorithm(const std::string& name);
/// The registry's entry of `id`.
const AlgorithmInfo& algorithm(AlgorithmId id);
/// The algorithm that applies to every torus: the last fallback.
constexpr AlgorithmId kUniversal = AlgorithmId::dim_rings;
/// Empty when the algorithm applies to the torus, else why it declines:
/// not_applicable's reasons and an open axis where it needs every wraparound link.
std::string declines(const AlgorithmInfo& info, const Torus& torus);
/// Builds the algorithm's schedule for the torus, or returns nullptr and the
/// reason it declines (its shape conditions, or a construction that failed).
std::unique_ptr<Schedule> try_build(const AlgorithmInfo& info, const Torus& torus, std::string* why,
                                    const BuildContext& context = {});
/// The parameters a size-tuned build with `context` uses: context.params if
/// given (false and *why if malformed for the torus), else the best for context.r.
bool tuned_params(const AlgorithmInfo& info, const Torus& torus, const BuildContext& context, std::string* params,
                  std::string* why);
/// The registered names joined by sep (", " for messages, "," for lists).
std::string algorithm_names(const char* sep = ", ");

}  // namespace torusgather
