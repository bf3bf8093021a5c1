// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/dim_rings_weights.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <numeric>
#include <utility>

namespace torusgather {
namespace {

/// One round of a colour: (link, blocks) for each of its messages into a node.
using Step = std::vector<std::pair<int, double>>;

/// A colour's rounds, link by link: a ring of n takes floor(n/2) rounds of
/// its group each way, halves at an even ring's antipode; a side of 2 is
/// one link (link 2a), any other side two (2a towards +, 2a + 1 towards -).
std::vector<Step> steps_of(const Torus& torus, const AxisOrder& order, double weight) {
  std::vector<Step> steps;
  double group = weight;
  for (int a : order) {
    const int n = torus.dim(a);
    for (int step = 1; step <= n / 2; ++step) {
      const double b = n % 2 == 0 && step == n / 2 ? group / 2 : group;
      if (n == 2)
        steps.push_back({{2 * a, 2 * b}});
      else
        steps.push_back({{2 * a, b}, {2 * a + 1, b}});
    }
    group *= n;
  }
  return steps;
}

}  // namespace

double fluid_time(const Torus& torus, const std::vector<AxisOrder>& orders, const std::vector<double>& weights) {
  struct Flow {
    int colour, link;
    double left;
  };
  const std::size_t colours = orders.size();
  std::vector<std::vector<Step>> steps(colours);
  for (std::size_t c = 0; c < colours; ++c)
    if (weights[c] > 0) steps[c] = steps_of(torus, orders[c], weights[c]);
  std::vector<std::size_t> at(colours, 0);
  std::vector<int> open(colours, 0);  // the colour's messages still on the wire
  std::vector<Flow> flows;
  std::vector<std::size_t> arrived;
  // Starts colour c's next round that moves anything.
  const auto start = [&](std::size_t c) {
    for (; at[c] < steps[c].size() && open[c] == 0; ++at[c])
      for (const auto& [link, blocks] : steps[c][at[c]])
        if (blocks > 0) flows.push_back({static_cast<int>(c), link, blocks}), ++open[c];
  };
  for (std::size_t c = 0; c < colours; ++c) start(c);
  std::vector<int> sharing(static_cast<std::size_t>(2 * torus.ndims()), 0);
  double t = 0;
  while (!flows.empty()) {
    std::fill(sharing.begin(), sharing.end(), 0);
    for (const Flow& f : flows) ++sharing[static_cast<std::size_t>(f.link)];
    double dt = INFINITY;
    for (const Flow& f : flows) dt = std::min(dt, f.left * sharing[static_cast<std::size_t>(f.link)]);
    t += dt;
    // Every message on a link gets an equal share; the first to finish leave.
    std::size_t kept = 0;
    arrived.clear();
    for (const Flow& f : flows) {
      const double left = f.left - dt / sharing[static_cast<std::size_t>(f.link)];
      if (left > 1e-12 * std::max(1.0, t)) {
        flows[kept++] = Flow{f.colour, f.link, left};
      } else if (--open[static_cast<std::size_t>(f.colour)] == 0) {
        arrived.push_back(static_cast<std::size_t>(f.colour));
      }
    }
    flows.resize(kept);
    // A colour whose round has arrived starts its next one.
    for (std::size_t c : arrived) start(c);
  }
  return t;
}

namespace {

std::vector<long long> search_weights(const Torus& torus, const std::vector<AxisOrder>& orders, long long units) {
  const std::size_t n = orders.size();
  std::vector<double> w(n, 1.0 / static_cast<double>(n));
  const auto normalised = [](std::vector<double> v) {
    const double sum = std::accumulate(v.begin(), v.end(), 0.0);
    for (double& x : v) x /= sum;
    return v;
  };
  double best = fluid_time(torus, orders, w);
  // Coordinate search: scale one weight up or down, keep what helps.
  for (double step : {0.5, 0.25, 0.125, 0.0625, 0.03125})
    for (int sweep = 0; sweep < 4; ++sweep) {
      bool improved = false;
      for (std::size_t i = 0; i < n; ++i)
        for (double sign : {1.0, -1.0}) {
          std::vector<double> v = w;
          v[i] *= 1 + sign * step;
          v = normalised(v);
          const double x = fluid_time(torus, orders, v);
          if (x < best * (1 - 1e-9)) {
            best = x;
            w = v;
            improved = true;
          }
        }
      if (!improved) break;
    }
  // Whole units, the remainder to the largest fractions (ties: lower colour).
  std::vector<long long> out(n);
  std::vector<std::pair<double, std::size_t>> rest;
  long long given = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double exact = w[i] * static_cast<double>(units);
    out[i] = static_cast<long long>(std::floor(exact));
    given += out[i];
    rest.push_back({-(exact - static_cast<double>(out[i])), i});
  }
  std::sort(rest.begin(), rest.end());
  for (std::size_t k = 0; given < units; ++k, ++given) ++out[rest[k % n].second];
  return out;
}

}  // namespace

std::vector<long long> balanced_weights(const Torus& torus, const std::vector<AxisOrder>& orders, long long units) {
  // The search takes milliseconds: once per shape, orders and units in the process.
  using Key = std::pair<std::vector<int>, std::pair<std::vector<AxisOrder>, long long>>;
  static std::mutex mutex;
  static std::map<Key, std::vector<long long>> known;
  std::vector<int> dims;
  for (int a = 0; a < torus.ndims(); ++a) dims.push_back(torus.dim(a));
  Key key{dims, {orders, units}};
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = known.find(key); it != known.end()) return it->second;
  }
  std::vector<long long> weights = search_weights(torus, orders, units);
  std::lock_guard<std::mutex> lock(mutex);
  known.emplace(std::move(key), weights);
  return weights;
}

}  // namespace torusgather
