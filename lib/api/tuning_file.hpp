// SPDX-License-Identifier: BSD-3-Clause
// TORUSGATHER_TUNING_FILE: auto's decisions kept across runs, one line per
// rank count, torus and size class.
#pragma once

#include <string>

#include "api/calibrate.hpp"
#include "api/plan.hpp"
#include "model/auto_policy.hpp"

namespace torusgather {

/// The file's lines for this communicator's rank count and torus, read by
/// rank 0 once per plan and broadcast into plan.autos.tuning (collective the
/// first time). Lines for other shapes are ignored, and rank 0 says so.
int read_tuning(Plan& plan);

/// Rank 0 appends the decision of size class `cls`'s trial.
void append_tuning(const Plan& plan, long cls, const TrialResult& r);

/// Rank 0 appends a measured calibration as a comment line (which the
/// decision lines' reader skips):
///   # calibration WHEN P DIMS KIND alpha A beta B delta D overhead O tg_per_round T vendor_per_round V
void append_calibration(const Calibration& c);

/// The file's last calibration line for `shape` ("P DIMS KIND"), if any. Local.
bool last_recorded_calibration(const std::string& shape, RecordedMachine* out);

}  // namespace torusgather
