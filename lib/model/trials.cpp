// SPDX-License-Identifier: BSD-3-Clause
#include "model/trials.hpp"

#include <algorithm>

namespace torusgather {

std::size_t trial_candidate(std::size_t call, std::size_t n) {
  const std::size_t round = call / n, j = call % n, first = (round / 2) % n;
  return round % 2 ? (first + n - 1 - j) % n : (first + j) % n;
}

int wins_needed(int rounds) {
  // P(X >= w) for X ~ Binomial(rounds, 1/2), from w = rounds down.
  double tail = 0, term = 1;  // term: C(rounds, w) / 2^rounds, built up from w = rounds
  for (int i = 0; i < rounds; ++i) term /= 2;
  for (int w = rounds; w >= 0; --w) {
    if (tail + term > 0.05) return std::min(w + 1, rounds);
    tail += term;
    term = term * w / (rounds - w + 1);  // C(r, w-1) = C(r, w) * w / (r - w + 1)
  }
  return 0;
}

namespace {

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

/// Whether every call in a was faster than every call in b.
bool all_faster(const std::vector<double>& a, const std::vector<double>& b) {
  return !a.empty() && !b.empty() && *std::max_element(a.begin(), a.end()) < *std::min_element(b.begin(), b.end());
}

}  // namespace

TrialDecision decide_trial(const std::vector<double>& seconds, std::size_t n, int max_rounds, double margin,
                           bool early_win) {
  TrialDecision d;
  d.median.assign(n, 0);
  if (n == 0) return d;
  const std::size_t vendor = n - 1;
  const std::size_t calls = seconds.size() / n;
  d.rounds = calls > 0 ? static_cast<int>(calls) - 1 : 0;
  d.needed = wins_needed(max_rounds);
  // times[i][r]: candidate i's call in timed round r.
  std::vector<std::vector<double>> times(n);
  for (std::size_t k = n; k < calls * n; ++k) times[trial_candidate(k, n)].push_back(seconds[k]);
  std::vector<int> wins(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    d.median[i] = median_of(times[i]);
    if (d.median[i] < d.median[d.fastest]) d.fastest = i;
    for (int r = 0; r < d.rounds; ++r) wins[i] += times[i][r] < times[vendor][r] ? 1 : 0;
  }
  d.winner = vendor;
  d.wins = d.fastest == vendor ? 0 : wins[d.fastest];
  if (d.rounds == 0) return d;
  auto settle = [&](std::size_t winner, std::string rule) {
    d.settled = true;
    d.winner = winner;
    d.rule = std::move(rule);
    return d;
  };
  // The best challenger that passes `rule`, by median.
  auto best_challenger = [&](auto rule) {
    std::size_t best = vendor;
    for (std::size_t i = 0; i < vendor; ++i)
      if (d.median[i] <= margin * d.median[vendor] && rule(i) && (best == vendor || d.median[i] < d.median[best]))
        best = i;
    return best;
  };
  if (d.rounds >= 3 && n > 1) {
    bool ahead = true;
    for (std::size_t i = 0; i < vendor; ++i) ahead = ahead && all_faster(times[vendor], times[i]);
    if (ahead) return settle(vendor, "the vendor faster in every call");
  }
  if (early_win && max_rounds >= kEarlyWinRounds && d.rounds < max_rounds) {
    if (d.rounds >= 4)
      if (const std::size_t i = best_challenger([&](std::size_t c) { return all_faster(times[c], times[vendor]); });
          i != vendor)
        return settle(i, "faster than the vendor in every call");
    if (d.rounds >= 6)
      if (const std::size_t i = best_challenger([&](std::size_t c) { return wins[c] == d.rounds; }); i != vendor)
        return settle(i, "faster than the vendor in every round");
  }
  bool reachable = false;
  for (std::size_t i = 0; i < vendor; ++i) reachable = reachable || wins[i] + (max_rounds - d.rounds) >= d.needed;
  if (!reachable) return settle(vendor, "no challenger can win " + std::to_string(d.needed) + " rounds");
  if (d.rounds < max_rounds) return d;
  if (d.fastest == vendor) return settle(vendor, "the vendor's median the lowest");
  if (d.median[d.fastest] > margin * d.median[vendor] || wins[d.fastest] < d.needed)
    return settle(vendor, "no clear win");
  return settle(d.fastest, "the sign test");
}

}  // namespace torusgather
