// SPDX-License-Identifier: BSD-3-Clause
// Measures the cost model's machine parameters: α, β, δ and the per-message
// overhead between torus neighbours, agreed across ranks, with overrides and
// an optional cache file. Run once per group of ranks (api/machine.hpp).
#pragma once

#include <mpi.h>

#include <string>

#include "model/cost.hpp"
#include "topology/torus.hpp"

namespace torusgather {

struct Calibration {
  Machine machine;
  std::string source;  ///< "measured", "cache file F", plus the overridden parameters
  /// What a round of torusgather's executor and of the vendor's allgather
  /// cost beyond the machine model, measured with small blocks (seconds).
  double tg_per_round = 0;
  double vendor_per_round = 0;
  bool software_given = false;  ///< TORUSGATHER_SOFTWARE: not measured, not checked
  /// The measurement was implausible three times (a loaded machine): the
  /// machine is the defaults, nothing was cached, and auto measures calls.
  bool rejected = false;
  bool measured = false;  ///< measured here (not the cache file's, not all given)
  std::string shape;      ///< "P DIMS shared|network": what a measurement is compared with
};

/// A measured machine and when it was measured (UTC, ISO 8601).
struct RecordedMachine {
  Machine machine;
  std::string when;
};

/// The time now, UTC, ISO 8601 ("2026-11-25T21:53:52Z").
std::string now_utc();

/// Collective on comm (the plan's private communicator, rank r = torus rank
/// r). Rank 0 measures, or reads TORUSGATHER_CALIBRATION_FILE, and
/// broadcasts; TORUSGATHER_ALPHA, TORUSGATHER_BANDWIDTH, TORUSGATHER_DELTA
/// and TORUSGATHER_OVERHEAD replace what they name. Measured values that
/// cannot be a machine's (α above 1 ms, a bandwidth above twice rank 0's
/// memory-copy rate, larger messages no slower) are measured again, up to
/// three times, then rejected: never cached, said on stderr. A measurement
/// whose α or β is three times the last one of the same shape (this
/// process's, else TORUSGATHER_TUNING_FILE's) or a third of it is made
/// twice more, and each parameter is the median of the three.
/// node_ranks k > 1: the torus's last axis is each node's ranks; rank 0
/// also measures α and β against rank 1 on its node (TORUSGATHER_NODE_ALPHA
/// and TORUSGATHER_NODE_BANDWIDTH replace them), and the cache line holds them.
int calibrate(MPI_Comm comm, const Torus& torus, int node_ranks, Calibration* out);

/// A positive (or, with zero_ok, non-negative) number from the environment.
bool env_number(const char* name, bool zero_ok, double* out);

}  // namespace torusgather
