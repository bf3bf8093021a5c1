// SPDX-License-Identifier: BSD-3-Clause
#include "api/tuning_file.hpp"

#include <cstdio>
#include <string>

#include "api/env.hpp"

namespace torusgather {

int read_tuning(Plan& plan) {
  if (plan.tuning_file.read) return MPI_SUCCESS;
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
        Pick pick;
        if (std::sscanf(line, "%lld %255s %lld %lld %127s", &ranks, dims, &lo, &hi, name) != 5 || lo > hi ||
            !parse_pick(name, &pick)) {
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
    TuningLine l;
    char name[128] = "";
    if (std::sscanf(mine.substr(at, end - at).c_str(), "%lld %lld %127s", &l.lo, &l.hi, name) == 3 &&
        parse_pick(name, &l.pick))
      plan.autos.tuning.push_back(l);
    at = end + 1;
  }
  plan.tuning_file.read = true;
  return MPI_SUCCESS;
}


void append_tuning(const Plan& plan, long cls, const TrialResult& r) {
  if (plan.rank != 0 || environment().tuning_file.empty()) return;
  const long long lo = 1LL << cls, hi = (1LL << (cls + 1)) - 1;
  if (FILE* f = std::fopen(environment().tuning_file.c_str(), "a")) {
    const std::string when = now_utc();
    std::fprintf(f, "%d %s %lld %lld %s # %s, median of %d calls, slowest rank: %s; %s%s%s\n", plan.size,
                 plan.torus.to_string().c_str(), lo, hi, r.winner.name().c_str(), when.c_str(), r.timed_rounds,
                 r.times.c_str(), r.rule.c_str(), r.rounds.empty() ? "" : "; ", r.rounds.c_str());
    std::fclose(f);
  } else {
    std::fprintf(stderr, "torusgather: cannot append to TORUSGATHER_TUNING_FILE %s\n",
                 environment().tuning_file.c_str());
  }
}

void append_calibration(const Calibration& c) {
  const std::string& path = environment().tuning_file;
  if (path.empty() || !c.measured || c.rejected) return;
  if (FILE* f = std::fopen(path.c_str(), "a")) {
    const Machine& m = c.machine;
    std::fprintf(f,
                 "# calibration %s %s alpha %.6e beta %.6e delta %.6e overhead %.6e tg_per_round %.6e "
                 "vendor_per_round %.6e\n",
                 now_utc().c_str(), c.shape.c_str(), m.alpha, m.beta, m.delta, m.overhead, c.tg_per_round,
                 c.vendor_per_round);
    std::fclose(f);
  }
}

bool last_recorded_calibration(const std::string& shape, RecordedMachine* out) {
  const std::string& path = environment().tuning_file;
  FILE* f = path.empty() ? nullptr : std::fopen(path.c_str(), "r");
  if (!f) return false;
  char line[1024];
  bool found = false;
  while (std::fgets(line, sizeof line, f)) {
    char when[64], p[32], dims[256], kind[32];
    double a = 0, b = 0;
    if (std::sscanf(line, "# calibration %63s %31s %255s %31s alpha %lg beta %lg", when, p, dims, kind, &a, &b) == 6 &&
        shape == std::string(p) + " " + dims + " " + kind && a > 0 && b > 0) {
      out->machine.alpha = a;
      out->machine.beta = b;
      out->when = when;
      found = true;  // the last line wins
    }
  }
  std::fclose(f);
  return found;
}

}  // namespace torusgather
