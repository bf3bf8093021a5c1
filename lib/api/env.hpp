// SPDX-License-Identifier: BSD-3-Clause
// The TORUSGATHER_* variables of the call path, each read once, in one place.
#pragma once

#include <mpi.h>

#include <map>
#include <string>
#include <vector>

#include "model/tune.hpp"
#include "schedule/registry.hpp"

namespace torusgather {

/// The variables of the call path, read once (as NCCL's param.h does). The
/// cost model's α, β, δ and overhead are read by calibrate(), the torus's by
/// find_torus().
/// The request that lets the model decide (TORUSGATHER_ALGORITHM's default).
constexpr const char* kAuto = "auto";

struct Environment {
  std::string algorithm = kAuto;
  /// TORUSGATHER_VERBOSE: 0 silent; 1 what runs and why, the model's table
  /// once per torus and size class in the process; 2 also every
  /// communicator's table and every trial call.
  int verbose = 0;
  /// Fixed parameters of the size-tuned algorithms, from each one's
  /// variable (TORUSGATHER_BRIDGEHEAD, TORUSGATHER_CUBGOS,
  /// TORUSGATHER_BRUCK_RADIX, TORUSGATHER_DIM_RINGS).
  std::map<AlgorithmId, std::string> fixed_params;
  int circulant_packets = 0;  ///< TORUSGATHER_CIRCULANT_PACKETS: p-gossip (Monakhova & Monakhov §5.2); 0: no limit
  std::string vendor_model;  ///< TORUSGATHER_VENDOR_MODEL: ompi, mpich, ring, rdb, bruck, neighbor, linear
  std::vector<TuneRule> tune;  ///< TORUSGATHER_TUNE
  std::string tune_error;      ///< why TORUSGATHER_TUNE is malformed
  /// TORUSGATHER_TRIALS: timed calls per candidate when auto measures (0:
  /// the model alone; -1, unset: trials_per_candidate's default). Off under
  /// SimGrid, whose simulated platform is the model's own machine.
#ifdef TORUSGATHER_SMPI
  int trials = 0;
#else
  int trials = -1;
#endif
  /// TORUSGATHER_LEARN_AFTER: seconds a group of ranks spends in
  /// allgathers before auto calibrates and measures on it (api/learning.hpp);
  /// 0: at once. Off under SimGrid, as the trials are.
#ifdef TORUSGATHER_SMPI
  double learn_after = 0;
#else
  double learn_after = 0.05;
#endif
  std::string tuning_file;  ///< TORUSGATHER_TUNING_FILE
  Environment();
};

/// The process's environment, read on first use.
const Environment& environment();

/// auto, vendor, or a registered algorithm.
bool known_name(const std::string& name);

/// Whether the request names the vendor's allgather.
bool is_vendor(const std::string& requested);

/// Whether `requested` can run: a known name, and for auto a well-formed
/// TORUSGATHER_TUNE; rank 0 of comm says why not.
bool usable_name(const std::string& requested, MPI_Comm comm);

}  // namespace torusgather
