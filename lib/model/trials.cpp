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

TrialDecision decide_trial(const std::vector<double>& seconds, std::size_t n, double margin) {
  TrialDecision d;
  d.median.assign(n, 0);
  if (n == 0) return d;
  const std::size_t rounds = seconds.size() / n;
  // times[i][r]: candidate i's call in round r (timed rounds from 1).
  std::vector<std::vector<double>> times(n);
  for (std::size_t k = n; k < rounds * n; ++k) times[trial_candidate(k, n)].push_back(seconds[k]);
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<double> v = times[i];
    std::sort(v.begin(), v.end());
    if (!v.empty()) d.median[i] = v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
    if (d.median[i] < d.median[d.fastest]) d.fastest = i;
  }
  const std::size_t vendor = n - 1;
  d.winner = d.fastest;
  d.needed = wins_needed(static_cast<int>(rounds) - 1);
  if (d.fastest == vendor) return d;
  for (std::size_t r = 0; r < times[vendor].size(); ++r) d.wins += times[d.fastest][r] < times[vendor][r] ? 1 : 0;
  if (d.median[d.fastest] > margin * d.median[vendor] || d.wins < d.needed) d.winner = vendor;
  return d;
}

}  // namespace torusgather
