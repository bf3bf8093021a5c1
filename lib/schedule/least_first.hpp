// SPDX-License-Identifier: BSD-3-Clause
// A parameter search that works out a candidate's cost only where a lower
// bound on it (its floor) could still match the best found, least floor
// first: the bridgehead family's a, b, k.
#pragma once

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <vector>

namespace torusgather {

template <class P>
struct Option {
  P params;
  double floor;  ///< at most the first of the option's cost
};

/// Of `start` and `options`, the one with the least cost (a pair, (time,
/// steps), compared in order), on a tie the first (start before the
/// options): what trying them in turn and keeping each strictly better one
/// gives. `cost` runs only on options whose floor is not above the best
/// time found so far.
template <class P, class Cost>
P least_first(const P& start, const std::vector<Option<P>>& options, Cost&& cost) {
  std::vector<std::size_t> order(options.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t x, std::size_t y) { return options[x].floor < options[y].floor; });
  auto best = cost(start);
  const P* best_p = &start;
  std::size_t best_at = 0;  // 0: start; i + 1: options[i]
  for (std::size_t i : order) {
    if (options[i].floor > best.first) break;
    const auto c = cost(options[i].params);
    if (c < best || (c == best && best_at != 0 && i + 1 < best_at)) {
      best = c;
      best_p = &options[i].params;
      best_at = i + 1;
    }
  }
  return *best_p;
}

}  // namespace torusgather
