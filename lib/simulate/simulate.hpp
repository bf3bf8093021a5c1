// SPDX-License-Identifier: BSD-3-Clause
// Runs a schedule on all P virtual ranks and checks it (layer 3 of docs/design.md).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "schedule/explicit.hpp"
#include "schedule/schedule.hpp"

namespace torusgather {

struct SimulationReport {
  std::string method;  ///< "step-through", "calls" or "structural"
  bool complete = false;          ///< every rank holds every block (every part) exactly once
  long long rounds = 0;           ///< last round that moves data (step-through), or proven
  int max_link_messages_per_round = 0;
  double max_link_blocks_per_round = 0;  ///< most data on one directed link in a round, in blocks
  double volume_per_rank_blocks = 0;     ///< most data a rank sends, in blocks (units of s)
  int hops_max = 0;        ///< the longest route of any call (1 for neighbour-only schedules)
  long long hops_sum = 0;  ///< sum over rounds of the round's longest route (the δ coefficient)
  double blocks_sum = 0;   ///< sum over rounds of the round's largest message, in blocks (the sβ coefficient; step-through only)
  double relayed_blocks = 0;  ///< blocks received by relay receives, over all ranks (step-through only)
  std::vector<std::string> errors;       ///< first problems found (capped)
};

/// How many blocks (units of s) a transfer carries: its block count times
/// the fraction of a block its piece is, for a schedule of `colours` parts.
double transfer_blocks(const Torus& t, const Transfer& x, int colours);

/// Steps through every round on every rank. Checks that each send is matched
/// by exactly one receive of the same blocks and piece on the opposite port of
/// the neighbour (routed calls: at the end of the route, from that sender),
/// that the sender holds what it sends, that nothing arrives twice except by
/// a relay receive (which must bring one block the rank holds), and that
/// at the end every rank holds everything. Link loads count every arc of a
/// route, so a claimed load of 1 message is a check that the calls of every
/// round are arc-disjoint. Memory O(P^2 / 8).
SimulationReport step_through(const Schedule& schedule);

/// The structural proof of the schedule (O(P*d)); method "structural".
SimulationReport prove_structure(const Schedule& schedule);

/// What a construction claims, for the checks against it. Negative hops or
/// blocks: no claim.
struct Claims {
  long long rounds = 0;
  int max_link_messages_per_round = 1;
  long long hops_sum = -1;
  double blocks_sum = -1;
};
Claims claims_of(const Schedule& schedule);

/// Steps through a schedule given as its calls (ExplicitSchedule), call by
/// call, with P x P bits of holdings: P^2/4 bytes, an eighth of
/// step_through()'s, and no programs. Checks that every route ends at its
/// callee, that the caller holds what it sends, that nothing arrives twice
/// (a call's blocks land after the round), that the calls of a round use
/// each arc at most as often as claimed, and that at the end every rank
/// holds everything. Calls can be fed as they are generated, so a schedule
/// too large to keep is checked without storing it. Method "calls". With
/// blocks cut into colours, each colour has its own holdings (P x P bits
/// each) and a call's blocks count as 1/colours each.
class CallChecker {
 public:
  using Hop = std::function<Rank(Rank, Port)>;
  CallChecker(Rank ranks, int ports, Hop hop, int colours = 1);
  /// `c` is a call of round `round` (1-based; rounds never go back).
  void check(long long round, const Call& c);
  /// Lands the last round and compares with the claims.
  SimulationReport finish(const Claims& claims);

 private:
  void close_round();
  std::vector<HoldingBits> bits_;  ///< per colour
  int ports_;
  Hop hop_;
  long long round_ = 0;
  int round_hops_ = 0;
  double round_blocks_ = 0;
  bool round_moved_ = false;
  std::vector<std::uint16_t> arc_messages_;
  std::vector<double> arc_blocks_;
  std::vector<std::size_t> arcs_used_;  ///< arcs with messages this round, to reset them
  std::vector<double> sent_blocks_;
  SimulationReport rep_;
};

/// CallChecker over an explicit schedule's stored calls.
SimulationReport check_calls(const ExplicitSchedule& schedule);
/// The same over the calls every rank's program makes (its sends), for
/// schedules whose calls are all routed and derived per rank
/// (bridgehead): P programs at once, each O(its calls).
SimulationReport check_calls(const Schedule& schedule);

/// Largest P that step_through() is used for by verify().
constexpr long long kStepThroughLimit = 4096;

/// step_through() up to kStepThroughLimit ranks; beyond, check_calls() for
/// schedules of routed calls only and prove_structure() for the others.
/// Either way `complete` also requires the claimed round count and link load.
SimulationReport verify(const Schedule& schedule);

}  // namespace torusgather
