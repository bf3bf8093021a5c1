// SPDX-License-Identifier: BSD-3-Clause
#include "api/decide.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "api/env.hpp"
#include "api/errors.hpp"
#include "api/machine.hpp"
#include "api/plan_cache.hpp"
#include "model/choice.hpp"
#include "model/selector.hpp"
#include "model/trials.hpp"

namespace torusgather {

namespace {

/// auto's measurement: a candidate must beat the vendor by 5 %.
constexpr double kVendorMargin = 0.95;

/// auto's size classes: floor(log2 bytes).
long size_class(long long block_bytes) {
  long c = 0;
  for (long long b = std::max(1LL, block_bytes); b > 1; b >>= 1) ++c;
  return c;
}

/// Under TORUSGATHER_VERBOSE, rank 0 prints the model's table once per
/// communicator and size class.
void announce_predictions(Plan& plan, long long block_bytes, const std::vector<Candidate>& candidates, int best) {
  if (!environment().verbose || plan.rank != 0 ||
      !plan.announced.insert("auto/" + std::to_string(size_class(block_bytes))).second)
    return;
  const Machine& m = plan.calibration->machine;
  char node[240] = "";
  int used = 0;
  if (plan.node_ranks > 1)
    used = std::snprintf(node, sizeof node, "; node axis (%d ranks per node, shared memory): alpha %.3g us, beta %.3g ns/B",
                         plan.node_ranks, (m.node_alpha > 0 ? m.node_alpha : m.alpha) * 1e6,
                         (m.node_beta > 0 ? m.node_beta : m.beta) * 1e9);
  if (m.inject_beta > 0 && used >= 0 && static_cast<std::size_t>(used) < sizeof node)
    std::snprintf(node + used, sizeof node - static_cast<std::size_t>(used),
                  "; injection limit %.3g GB/s per node, in and out together", 1e-9 / m.inject_beta);
  std::fprintf(stderr,
               "torusgather: auto on a %s torus (%lld ranks), blocks of %lld B; machine (%s): alpha %.3g us, "
               "beta %.3g ns/B, delta %.3g us/hop, overhead %.3g us/message%s%s; software per round: torusgather "
               "%.3g us, vendor %.3g us; predicted:\n%s",
               plan.torus.to_string().c_str(), static_cast<long long>(plan.torus.size()), block_bytes,
               plan.calibration->source.c_str(), m.alpha * 1e6, m.beta * 1e9, m.delta * 1e6, m.overhead * 1e6,
               m.shared_memory ? ", shared memory" : "", node, plan.calibration->tg_per_round * 1e6,
               plan.calibration->vendor_per_round * 1e6, format_table(candidates, best).c_str());
}

/// What `auto` runs for blocks of `block_bytes` where nothing is measured:
/// the candidate the cost model predicts fastest. Collective.
int auto_choice(Plan& plan, long long block_bytes, std::string* chosen) {
  if (auto it = plan.auto_choice.find(block_bytes); it != plan.auto_choice.end()) {
    *chosen = it->second;
    return MPI_SUCCESS;
  }
  std::vector<Candidate> candidates;
  int best = -1;
  if (const int err = predictions(plan, block_bytes, &candidates, &best); err != MPI_SUCCESS) return err;
  *chosen = best < 0 ? "dim-rings" : candidates[static_cast<std::size_t>(best)].name;
  if (plan.auto_choice.size() > 4096) plan.auto_choice.clear();  // programs with many sizes: bounded memory
  plan.auto_choice[block_bytes] = *chosen;
  announce_predictions(plan, block_bytes, candidates, best);
  return MPI_SUCCESS;
}

/// Timed calls per candidate for size class `cls`, besides a first untimed
/// one (its schedule and calls are made then). By default 15 below 64 KiB,
/// where calls are cheap and their noise is large against them, and 5 from
/// 64 KiB. A calibration rejected as implausible
/// leaves the model's ranking in doubt: it measures even where it is off.
int trials_per_candidate(const Plan& plan, long cls) {
  const int n = environment().trials;
  if (n < 0) return cls < 16 ? 15 : 5;
  if (n == 0 && plan.calibration && plan.calibration->rejected) return 5;
  return n;
}

/// TORUSGATHER_TUNING_FILE's lines for this communicator, read by rank 0
/// once per plan and broadcast (collective the first time). Lines for other
/// rank counts or tori are ignored, and rank 0 says so.
int read_tuning(Plan& plan) {
  if (plan.tuning_read) return MPI_SUCCESS;
  const std::string& path = environment().tuning_file;
  std::string mine;  // "lo hi name\n" per matching line
  if (plan.rank == 0 && !path.empty()) {
    if (FILE* f = std::fopen(path.c_str(), "r")) {
      char line[1024];
      long others = 0, bad = 0;
      const std::string torus = plan.torus.to_string();
      while (std::fgets(line, sizeof line, f)) {
        long long ranks = 0, lo = 0, hi = 0;
        char dims[256] = "", name[128] = "";
        if (line[0] == '#' || line[0] == '\n') continue;
        if (std::sscanf(line, "%lld %255s %lld %lld %127s", &ranks, dims, &lo, &hi, name) != 5 || lo > hi ||
            !known_name(name) || std::string(name) == "auto") {
          ++bad;
          continue;
        }
        if (ranks != plan.size || torus != dims) {
          ++others;
          continue;
        }
        mine += std::to_string(lo) + " " + std::to_string(hi) + " " + name + "\n";
      }
      std::fclose(f);
      if (mine.empty() && (others > 0 || bad > 0))
        std::fprintf(stderr,
                     "torusgather: TORUSGATHER_TUNING_FILE %s: no line for %d ranks on a %s torus (%ld for other "
                     "shapes, %ld malformed): ignored for this communicator\n",
                     path.c_str(), plan.size, torus.c_str(), others, bad);
    }
  }
  long long n = static_cast<long long>(mine.size());
  int err = PMPI_Bcast(&n, 1, MPI_LONG_LONG, 0, plan.comm);
  if (err != MPI_SUCCESS) return err;
  mine.resize(static_cast<std::size_t>(n));
  if (n > 0 && (err = PMPI_Bcast(&mine[0], static_cast<int>(n), MPI_CHAR, 0, plan.comm)) != MPI_SUCCESS) return err;
  for (std::size_t at = 0; at < mine.size();) {
    const std::size_t end = mine.find('\n', at);
    Plan::TuningLine l;
    char name[128] = "";
    if (std::sscanf(mine.substr(at, end - at).c_str(), "%lld %lld %127s", &l.lo, &l.hi, name) == 3) {
      l.algorithm = name;
      plan.tuning.push_back(l);
    }
    at = end + 1;
  }
  plan.tuning_read = true;
  return MPI_SUCCESS;
}

/// The tuning file's algorithm for blocks of `block_bytes` (the last line
/// that covers it wins), or nullptr.
const std::string* tuning_lookup(const Plan& plan, long long block_bytes) {
  const std::string* found = nullptr;
  for (const auto& l : plan.tuning)
    if (l.lo <= block_bytes && block_bytes <= l.hi) found = &l.algorithm;
  return found;
}

/// The candidates auto times for a size class: the model's fastest two
/// algorithms (three if the calibration was rejected) and the vendor's
/// allgather, modelled or not. Collective (the predictions).
int start_trial(Plan& plan, long long block_bytes, long cls) {
  if (plan.trials.count(cls)) return MPI_SUCCESS;
  std::vector<Candidate> candidates;
  int best = -1;
  if (const int err = predictions(plan, block_bytes, &candidates, &best); err != MPI_SUCCESS) return err;
  announce_predictions(plan, block_bytes, candidates, best);
  std::vector<const Candidate*> ranked;
  for (const Candidate& c : candidates)
    if (c.why_not.empty() && !c.named_only && c.name != "vendor") ranked.push_back(&c);
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const Candidate* a, const Candidate* b) { return a->predicted < b->predicted; });
  Plan::Trial t;
  const std::size_t keep = plan.calibration && plan.calibration->rejected ? 3 : 2;
  for (std::size_t i = 0; i < ranked.size() && i < keep; ++i) t.names.push_back(ranked[i]->name);
  t.names.push_back("vendor");
  plan.trials[cls] = t;
  return MPI_SUCCESS;
}

}  // namespace

int trial_start(const Plan& plan, double* t0) {
  const int err = PMPI_Barrier(plan.comm);
  *t0 = PMPI_Wtime();
  return err;
}

/// Records a trial call's time on this rank. After the last one, the ranks
/// agree on every call's slowest rank (one allreduce); each candidate's
/// median over its timed calls decides, rank 0 appends the decision to the
/// tuning file, and the class is measured. Collective on that last call.
int record_trial(Plan& plan, long cls, double seconds) {
  auto it = plan.trials.find(cls);
  if (it == plan.trials.end()) return MPI_SUCCESS;
  Plan::Trial& t = it->second;
  t.seconds.push_back(seconds);
  const std::size_t n = t.names.size(), calls = static_cast<std::size_t>(trials_per_candidate(plan, cls) + 1);
  if (t.seconds.size() < n * calls) return MPI_SUCCESS;
  if (const int err = PMPI_Allreduce(MPI_IN_PLACE, t.seconds.data(), static_cast<int>(t.seconds.size()), MPI_DOUBLE,
                                     MPI_MAX, plan.comm);
      err != MPI_SUCCESS) {
    plan.trials.erase(it);
    return err;
  }
  // The vendor (last) keeps the call unless clearly beaten: the promise is
  // never to be slower than it.
  const TrialDecision d = decide_trial(t.seconds, n, kVendorMargin);
  const std::size_t winner = d.winner;
  plan.measured[cls] = t.names[winner];
  std::string times;
  for (std::size_t i = 0; i < n; ++i) {
    char us[32];
    std::snprintf(us, sizeof us, " %.2f us", d.median[i] * 1e6);
    times += (i ? ", " : "") + t.names[i] + us;
  }
  std::string rounds;  // a challenger's paired rounds against the vendor
  if (d.fastest != n - 1)
    rounds = " (" + t.names[d.fastest] + " faster than the vendor in " + std::to_string(d.wins) + " of " +
             std::to_string(calls - 1) + " rounds, " + std::to_string(d.needed) + " needed)";
  const long long lo = 1LL << cls, hi = (1LL << (cls + 1)) - 1;
  if (plan.rank == 0 && environment().verbose)
    std::fprintf(stderr, "torusgather: auto measured %lld..%lld B on a %s torus (%d ranks): %s; runs %s%s\n", lo, hi,
                 plan.torus.to_string().c_str(), plan.size, times.c_str(), t.names[winner].c_str(), rounds.c_str());
  if (plan.rank == 0 && !environment().tuning_file.empty()) {
    if (FILE* f = std::fopen(environment().tuning_file.c_str(), "a")) {
      std::fprintf(f, "%d %s %lld %lld %s # median of %d calls, slowest rank: %s%s\n", plan.size,
                   plan.torus.to_string().c_str(), lo, hi, t.names[winner].c_str(), trials_per_candidate(plan, cls),
                   times.c_str(), rounds.c_str());
      std::fclose(f);
    } else {
      std::fprintf(stderr, "torusgather: cannot append to TORUSGATHER_TUNING_FILE %s\n",
                   environment().tuning_file.c_str());
    }
  }
  plan.trials.erase(it);
  return MPI_SUCCESS;
}

int choose(Plan& plan, const std::string& requested, long long block_bytes, const Schedule** schedule,
           std::string* chosen, std::string* note, long* trial_class) {
  *schedule = nullptr;
  *chosen = requested;
  if (trial_class) *trial_class = kNoTrial;
  std::string first = requested;
  if (requested == "auto") {
    const long cls = size_class(block_bytes);
    if (const TuneRule* rule = tune_lookup(environment().tune, block_bytes)) {
      first = rule->algorithm;
      *note = "TORUSGATHER_TUNE";
    } else if (plan.source == TorusSource::none) {
      // A torus made up from the rank count would model routes that are
      // not the machine's.
      *chosen = "vendor";
      *note = "no torus known: " + plan.torus_note;
      return MPI_SUCCESS;
    } else if (const int err = read_tuning(plan); err != MPI_SUCCESS) {
      return err;
    } else if (const std::string* line = tuning_lookup(plan, block_bytes)) {
      first = *line;
      *note = "TORUSGATHER_TUNING_FILE";
    } else if (auto it = plan.measured.find(cls); it != plan.measured.end()) {
      first = it->second;
      *note = "measured";
    } else if (trial_class && trials_per_candidate(plan, cls) > 0) {
      if (const int e = start_trial(plan, block_bytes, cls); e != MPI_SUCCESS) return e;
      const Plan::Trial& t = plan.trials[cls];
      first = t.names[trial_candidate(t.seconds.size(), t.names.size())];
      *trial_class = cls;
      *note = "measuring " + std::to_string(t.seconds.size() + 1) + " of " +
              std::to_string(t.names.size() * static_cast<std::size_t>(trials_per_candidate(plan, cls) + 1));
    } else if (const int err = auto_choice(plan, block_bytes, &first); err != MPI_SUCCESS) {
      return err;
    }
  }
  *chosen = first;
  if (first == "vendor") return MPI_SUCCESS;
  std::string why;
  const Schedule* s = nullptr;
  int err = MPI_SUCCESS;
  if (const AlgorithmInfo* info = find_algorithm(first); info && info->tuned) {
    const Machine* m = nullptr;
    if ((err = machine_of(plan, &m)) != MPI_SUCCESS) return err;
    err = tuned_of(plan, *info, block_bytes, &s, &why);
    err = agree_once(plan, first + " " + std::to_string(tuned_bucket(choice_of(plan), *info, block_bytes)), err);
  } else {
    if (first == "three-phase" && (err = ensure_node_map(plan)) != MPI_SUCCESS) return err;
    err = agreed_schedule_of(plan, first, &s, &why);
  }
  if (err != MPI_SUCCESS) return err;
  if (!s) {
    *note = first + " does not apply: " + why;
    *chosen = "dim-rings";
    if ((err = agreed_schedule_of(plan, "dim-rings", &s, &why)) != MPI_SUCCESS) return err;
  }
  *schedule = s;
  return MPI_SUCCESS;
}

}  // namespace torusgather
