// Everything torusgather keeps per communicator, built on first use and
// cached in an MPI attribute (ARCHITECTURE.md: "Everything per communicator").
#pragma once

#include <mpi.h>

#include <map>
#include <memory>
#include <set>
#include <string>

#include "api/calibrate.hpp"
#include "model/cost.hpp"
#include "schedule/bridgehead.hpp"
#include "schedule/schedule.hpp"

namespace torusgather {

struct Plan {
  MPI_Comm comm = MPI_COMM_NULL;  ///< private periodic Cartesian duplicate (same ranks)
  Torus torus;
  std::map<std::string, std::unique_ptr<Schedule>> schedules;  ///< built lazily, by name
  std::map<std::string, std::string> declined;                 ///< name -> why it does not apply
  std::set<std::string> announced;                             ///< for TORUSGATHER_VERBOSE
  std::map<long, const Schedule*> bridgehead_by_r;             ///< round(log2 r) -> bridgehead (in schedules)
  std::map<long, std::vector<RingParams>> bridgehead_params;    ///< round(log2 r) -> its a, b, k (the search is slow)
  std::unique_ptr<Calibration> calibration;                     ///< measured on first need (collective)
  std::map<std::string, CostProfile> profiles;                  ///< cost profiles by schedule key or "vendor ALG"
  std::map<std::string, std::string> profile_declined;          ///< key -> why it has no profile
  std::map<long long, std::string> auto_choice;                 ///< block bytes -> what auto runs

  explicit Plan(Torus t) : torus(std::move(t)) {}
};

/// The torus shape torusgather uses for comm: a periodic Cartesian
/// communicator's own dims; else TORUSGATHER_DIMS; else MPI_Dims_create with
/// d = 2. On a malformed or mismatched TORUSGATHER_DIMS returns MPI_ERR_ARG
/// and puts the reason in *why.
int torus_dims(MPI_Comm comm, std::vector<int>* dims, std::string* why);

/// Runs fn when MPI_Finalize begins: MPI deletes the attributes of
/// MPI_COMM_SELF first thing in MPI_Finalize (MPI-3.1 §8.7.1), so fn runs as
/// the delete callback of one. For freeing torusgather's keyvals.
void at_finalize(void (*fn)());

/// The cached plan of comm, built (collectively) if absent.
int get_plan(MPI_Comm comm, Plan** plan);

}  // namespace torusgather
