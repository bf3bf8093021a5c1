// SPDX-License-Identifier: BSD-3-Clause
#include "model/auto_policy.hpp"

#include <algorithm>
#include <cstdio>

#include "model/predictions.hpp"
#include "model/trials.hpp"

namespace torusgather {
namespace {

/// A trial leaves out a candidate the model puts at this many times the
/// vendor's time or more.
constexpr double kPriorFactor = 2;
/// Block sizes whose ranking a plan keeps (a program with many sizes).
constexpr std::size_t kRankedSizes = 4096;

const TuningLine* tuning_lookup(const std::vector<TuningLine>& lines, long long block_bytes) {
  const TuningLine* found = nullptr;  // the last line that covers it wins
  for (const auto& l : lines)
    if (l.lo <= block_bytes && block_bytes <= l.hi) found = &l;
  return found;
}

void single(AutoDecision* out, Pick pick, std::string note) {
  out->ranked = fallback_chain(pick);
  out->note = std::move(note);
}

}  // namespace

long size_class(long long block_bytes) {
  long c = 0;
  for (long long b = std::max(1LL, block_bytes); b > 1; b >>= 1) ++c;
  return c;
}

std::vector<Pick> fallback_chain(Pick pick) {
  std::vector<Pick> chain{pick};
  if (pick.vendor) return chain;
  for (AlgorithmId a = pick.id; a != kUniversal;) {
    const AlgorithmId next = algorithm(a).fallback;
    a = next == a ? kUniversal : next;
    chain.push_back(Pick::of(a));
  }
  return chain;
}

int decide_auto(AutoState& state, const AutoInputs& in, long long block_bytes, AutoDecision* out) {
  *out = AutoDecision{};
  const long cls = size_class(block_bytes);
  if (const TuneRule* rule = in.tune ? tune_lookup(*in.tune, block_bytes) : nullptr) {
    single(out, rule->pick, "TORUSGATHER_TUNE");
    return 0;
  }
  if (!in.torus_known) {
    // A torus made up from the rank count would model routes that are not
    // the machine's.
    single(out, Pick::the_vendor(), "no torus known: " + in.no_torus);
    return 0;
  }
  if (const TuningLine* line = tuning_lookup(state.tuning, block_bytes)) {
    single(out, line->pick, "TORUSGATHER_TUNING_FILE");
    return 0;
  }
  if (auto it = state.measured.find(cls); it != state.measured.end()) {
    single(out, it->second, "measured");
    return 0;
  }
  if (!in.learning_allowed) {
    single(out, Pick::the_vendor(), "waits to learn");
    out->waiting = true;
    return 0;
  }
  const bool measure = in.may_measure && in.trials_per_candidate && in.trials_per_candidate(cls) > 0;
  if (measure && !state.trials.count(cls)) {
    if (const int err = in.predict(&out->table, &out->best)) return err;
    Trial t;
    const std::size_t keep = in.trial_algorithms ? in.trial_algorithms() : 2;
    // The model as the prior: a candidate it puts at kPriorFactor times the
    // vendor's time or more is not tried.
    const bool trusted = !in.prior_trusted || in.prior_trusted();
    t.early_win = trusted;
    double vendor_time = -1;
    for (const Candidate& c : out->table)
      if (c.pick.vendor && c.why_not.empty() && c.predicted > 0) vendor_time = c.predicted;
    for (const Candidate* c : ranked(out->table))
      if (!c->pick.vendor && t.picks.size() < keep &&
          !(trusted && vendor_time > 0 && c->predicted >= kPriorFactor * vendor_time))
        t.picks.push_back(c->pick);
    if (t.picks.empty()) {
      single(out, Pick::the_vendor(), "no trial: the model puts every candidate at " +
                                          std::to_string(static_cast<int>(kPriorFactor)) + "x the vendor's time or more");
      state.measured[cls] = Pick::the_vendor();
      return 0;
    }
    t.picks.push_back(Pick::the_vendor());
    t.per_candidate = in.trials_per_candidate(cls);
    state.trials[cls] = t;
  }
  if (measure) {
    const Trial& t = state.trials[cls];
    std::string note = "measuring " + std::to_string(t.seconds.size() + 1) + " of at most " + std::to_string(t.calls());
    if (t.seconds.empty()) {  // the first call says what the trial times
      note += " (";
      for (std::size_t i = 0; i < t.picks.size(); ++i) note += (i ? ", " : "") + t.picks[i].name();
      note += " in turn, up to " + std::to_string(t.per_candidate) + " timed calls each)";
    }
    single(out, t.picks[trial_candidate(t.seconds.size(), t.picks.size())], std::move(note));
    out->trial_class = cls;
    return 0;
  }
  if (auto it = state.ranked.find(block_bytes); it != state.ranked.end()) {
    out->ranked = it->second;
    return 0;
  }
  if (const int err = in.predict(&out->table, &out->best)) return err;
  for (const Candidate* c : ranked(out->table)) out->ranked.push_back(c->pick);
  if (std::find(out->ranked.begin(), out->ranked.end(), Pick::of(kUniversal)) == out->ranked.end())
    out->ranked.push_back(Pick::of(kUniversal));
  if (state.ranked.size() >= kRankedSizes) state.ranked.clear();
  state.ranked[block_bytes] = out->ranked;
  return 0;
}

TrialResult finish_trial(AutoState& state, long cls, const TrialDecision& d) {
  const Trial& t = state.trials.at(cls);
  const std::size_t n = t.picks.size();
  TrialResult r;
  r.winner = t.picks[d.winner];
  r.per_candidate = t.per_candidate;
  r.timed_rounds = d.rounds;
  r.rule = d.rule;
  for (std::size_t i = 0; i < n; ++i) {
    char us[32];
    std::snprintf(us, sizeof us, " %.2f us", d.median[i] * 1e6);
    r.times += (i ? ", " : "") + t.picks[i].name() + us;
  }
  // By how much: the runner-up's median over the winner's (the vendor's,
  // or the best challenger's where the vendor keeps the call).
  const std::size_t vendor = n - 1;
  std::size_t runner = vendor;
  if (d.winner == vendor)
    for (std::size_t i = 0; i < vendor; ++i)
      if (runner == vendor || d.median[i] < d.median[runner]) runner = i;
  if (runner != d.winner && d.median[d.winner] > 0) {
    char lead[160];
    auto of = [](const std::string& name) { return name + (name.back() == 's' ? "'" : "'s"); };
    std::snprintf(lead, sizeof lead, "%s median %.2fx %s", of(t.picks[runner].name()).c_str(),
                  d.median[runner] / d.median[d.winner], of(r.winner.name()).c_str());
    r.lead = lead;
  }
  if (d.fastest != vendor)
    r.rounds = t.picks[d.fastest].name() + " faster than the vendor in " + std::to_string(d.wins) + " of " +
               std::to_string(d.rounds) + " rounds";
  state.measured[cls] = r.winner;
  state.trials.erase(cls);
  return r;
}

}  // namespace torusgather
