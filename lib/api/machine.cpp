// SPDX-License-Identifier: BSD-3-Clause
#include "api/machine.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "api/errors.hpp"
#include "api/group.hpp"
#include "api/plan_cache.hpp"
#include "api/tuning_file.hpp"
#include "model/predictions.hpp"
#include "model/closed_form.hpp"
#ifdef TORUSGATHER_SMPI
#include <xbt/config.hpp>
#endif

namespace torusgather {

namespace {

/// The time of one `call`: over `reps` repetitions of one call and of two
/// in a row (each the slowest rank's, so that how far apart the ranks leave
/// the barrier cancels out), the median of two less one. A median, not the
/// difference of two minima: one lucky single call against unlucky pairs
/// on a busy machine made that a millisecond.
double timed(MPI_Comm comm, int reps, const std::function<int()>& call, int* err) {
  std::vector<double> t(2 * static_cast<std::size_t>(reps), 0.0);
  for (int k = 0; k < reps && *err == MPI_SUCCESS; ++k)
    for (int calls = 1; calls <= 2 && *err == MPI_SUCCESS; ++calls) {
      PMPI_Barrier(comm);
      const double t0 = PMPI_Wtime();
      for (int c = 0; c < calls && *err == MPI_SUCCESS; ++c) *err = call();
      t[2 * static_cast<std::size_t>(k) + static_cast<std::size_t>(calls - 1)] = PMPI_Wtime() - t0;
    }
  if (*err == MPI_SUCCESS)
    *err = PMPI_Allreduce(MPI_IN_PLACE, t.data(), static_cast<int>(t.size()), MPI_DOUBLE, MPI_MAX, comm);
  std::vector<double> extra(static_cast<std::size_t>(reps));
  for (std::size_t k = 0; k < extra.size(); ++k) extra[k] = t[2 * k + 1] - t[2 * k];
  std::sort(extra.begin(), extra.end());
  const std::size_t n = extra.size();
  return n == 0 ? 0 : n % 2 ? extra[n / 2] : (extra[n / 2 - 1] + extra[n / 2]) / 2;
}

/// Above this, a round's cost beyond the model is not software but a busy
/// machine's scheduling (here 0.5-0.7 us; one other busy process made it 1.39 ms).
constexpr double kMaxSoftwarePerRound = 50e-6;

/// What a round costs beyond the machine model in torusgather's executor
/// and in the vendor's allgather: each runs with 8-byte blocks, and the
/// time not predicted is spread over its rounds. On a network these are
/// near 0; on one oversubscribed node they are what decides small blocks.
int measure_software(Plan& plan, Calibration* c) {
#ifdef TORUSGATHER_SMPI
  // Without simulated computation, software takes no simulated time: the
  // cost is 0 by construction, and measuring the vendor's allgather would
  // simulate its flows for nothing (SimGrid's default sends P² at once).
  if (!simgrid::config::get_value<bool>("smpi/simulate-computation")) return MPI_SUCCESS;
  const int reps = 1;  // simulated time is deterministic
#else
  const int reps = 10;
#endif
  // TORUSGATHER_SOFTWARE gives torusgather's cost per round (rank 0's
  // value); the vendor's is then taken as 0.
  double given[2] = {0, 0};
  if (plan.rank == 0 && env_number("TORUSGATHER_SOFTWARE", true, &given[1])) given[0] = 1;
  if (const int e = PMPI_Bcast(given, 2, MPI_DOUBLE, 0, plan.comm); e != MPI_SUCCESS) return e;
  if (given[0] != 0) {
    c->tg_per_round = given[1];
    c->vendor_per_round = 0;
    c->software_given = true;
    c->source += ", TORUSGATHER_SOFTWARE";
    return MPI_SUCCESS;
  }
  constexpr int kBytes = 8;
  std::vector<char> buf(static_cast<std::size_t>(plan.torus.size()) * kBytes, 0);
  std::string why;
  const AlgorithmInfo& rings_info = algorithm(kUniversal);
  const Schedule* rings = nullptr;
  int err = agreed_schedule_of(plan, rings_info, -1, &rings, &why);
  if (err != MPI_SUCCESS) return err;
  const CostProfile* rp = nullptr;
  err = profile_of(plan, ProfileKey{Pick::of(kUniversal), kDefaultVariant},
                   profiling(plan.torus, rings_info, [rings](const Schedule** s, std::string*) {
                     *s = rings;
                     return MPI_SUCCESS;
                   }), &rp, &why);
  if (err != MPI_SUCCESS || !rp || rp->rounds() == 0) return err;  // one rank: nothing to measure
  // A repeated call runs its made calls (run_schedule): time those.
  std::unique_ptr<Prepared> calls;
  if ((err = agree(plan.comm, prepare(*rings, plan.comm, kBytes, MPI_BYTE, &calls))) != MPI_SUCCESS) return err;
  const double tg = timed(plan.comm, reps, [&] { return calls->run(plan.comm, buf.data()); }, &err);
  if (err != MPI_SUCCESS) return err;
  c->tg_per_round = std::max(0.0, (tg - predict(*rp, c->machine, kBytes)) / static_cast<double>(rp->rounds()));
  VendorAlgorithm alg;
  if (!vendor_algorithm(model_context(plan, c->machine), kBytes, &alg)) return MPI_SUCCESS;
  const CostProfile* vp = nullptr;
  err = vendor_profile_of(plan, alg, &vp, &why);
  if (err != MPI_SUCCESS || !vp || vp->rounds() == 0) return err;
  const double vendor = timed(plan.comm, reps, [&] {
    return PMPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf.data(), kBytes, MPI_BYTE, plan.comm);
  }, &err);
  if (err != MPI_SUCCESS) return err;
  c->vendor_per_round = std::max(0.0, (vendor - predict(*vp, c->machine, kBytes)) / static_cast<double>(vp->rounds()));
  return MPI_SUCCESS;
}

/// A software cost no machine has rejects the calibration, as calibrate()
/// rejects implausible machines: the model takes its defaults and auto
/// times more candidates (the same on every rank: the times were agreed).
void check_software(const Plan& plan, Calibration* c) {
  double worst = std::max(c->tg_per_round, c->vendor_per_round);
  // A test hook: TORUSGATHER_TEST_FAULT=software plays a busy machine's 1 ms.
  if (const char* f = std::getenv("TORUSGATHER_TEST_FAULT"); f && std::strcmp(f, "software") == 0) worst = 1e-3;
  if (worst <= kMaxSoftwarePerRound || c->rejected || c->software_given) return;
  char why[160];
  std::snprintf(why, sizeof why, "software cost per round %.3g us, above %.0f us", worst * 1e6,
                kMaxSoftwarePerRound * 1e6);
  if (plan.rank == 0)
    std::fprintf(stderr,
                 "torusgather: calibration on %d ranks rejected (%s): a loaded machine? The cost model takes its "
                 "defaults and auto times its candidates' calls\n",
                 plan.size, why);
  c->rejected = true;
  c->source = std::string("rejected: ") + why + "; the defaults";
  Machine defaults;
  defaults.shared_memory = c->machine.shared_memory;
  c->machine = defaults;
  c->tg_per_round = c->vendor_per_round = 0;
}

/// What the model reads of a calibration, hashed to 62 bits (so that its
/// negation fits): equal on every rank only if the ranks hold the same one.
long long fingerprint(const Calibration& c) {
  const Machine& m = c.machine;
  const double values[] = {m.alpha,      m.beta,      m.delta,          m.overhead,        m.node_alpha,
                           m.node_beta,  m.inject_beta, c.tg_per_round, c.vendor_per_round,
                           m.shared_memory ? 1.0 : 0.0, c.rejected ? 1.0 : 0.0};
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a
  for (const double v : values) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    for (int b = 0; b < 8; ++b) h = (h ^ ((bits >> (8 * b)) & 0xff)) * 1099511628211ull;
  }
  return static_cast<long long>(h >> 2);
}

}  // namespace

int machine_of(Plan& plan, const Machine** m) {
  if (!plan.calibration) {
    // Process-wide, by the group's ranks in MPI_COMM_WORLD: α, β, δ, the
    // overhead and the software costs belong to the machine and the
    // implementations, not to the torus shape laid over the ranks (the
    // profiles hold that), so a program that duplicates communicators or
    // tries several shapes calibrates once per group. The ranks agree on a
    // hit and that it is the same calibration: threads calibrating the same
    // group on other communicators at once leave each rank the one its last
    // thread stored, and ranks that model apart choose apart and hang.
    static std::mutex mutex;
    static std::map<std::string, Calibration> known;
    const std::string& key = group_key(plan);
    const bool cacheable = !key.empty();
    std::unique_ptr<Calibration> cached;
    if (cacheable) {
      std::lock_guard<std::mutex> lock(mutex);
      if (auto it = known.find(key); it != known.end()) cached = std::make_unique<Calibration>(it->second);
    }
    const long long print = cached ? fingerprint(*cached) : 0;
    long long votes[3] = {cached ? 1 : 0, print, -print};
    if (const int err = PMPI_Allreduce(MPI_IN_PLACE, votes, 3, MPI_LONG_LONG, MPI_MIN, plan.comm); err != MPI_SUCCESS)
      return err;
    if (votes[0] == 1 && votes[1] == -votes[2]) plan.calibration = std::move(cached);
    if (!plan.calibration) {
      auto c = std::make_unique<Calibration>();
      int err = calibrate(plan.comm, plan.torus, plan.node_ranks, c.get());
      if (err == MPI_SUCCESS) err = measure_software(plan, c.get());
      if (err != MPI_SUCCESS) return err;
      check_software(plan, c.get());
      if (plan.rank == 0) append_calibration(*c);
      if (cacheable) {
        std::lock_guard<std::mutex> lock(mutex);
        known[key] = *c;
      }
      plan.calibration = std::move(c);
    }
  }
  *m = &plan.calibration->machine;
  return MPI_SUCCESS;
}

}  // namespace torusgather
