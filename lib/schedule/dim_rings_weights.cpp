// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/dim_rings_weights.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <numeric>
#include <tuple>
#include <utility>

namespace torusgather {
namespace {

/// One message of a colour's round into a node: its link, and how many
/// times the round's part of the colour's group it carries (2 on a side of
/// 2 with one link, which takes both directions' messages).
struct Message {
  int link;
  double share;
};

/// The fluid model of one node's links for fixed axis orders, evaluated for
/// many weights: each colour's rounds made once, the flows' buffers reused.
/// A ring of n takes floor(n/2) rounds of its group each way, halves at an
/// even ring's antipode, an open line n − 1 rounds (its busiest links carry
/// the group each way in every round); a shared link is link 2a, any other side has two
/// (2a towards +, 2a + 1 towards -); lane l of a plane takes 2a + l and
/// 2·pair + l (a node's links on the plane, two per lane).
class Fluid {
 public:
  Fluid(const Torus& torus, const std::vector<AxisOrder>& orders)
      : colours_(orders.size()), sharing_(static_cast<std::size_t>(2 * torus.ndims()), 0) {
    // Without lanes every round sends the same towards + and -, so link
    // 2a + 1 repeats link 2a's flows exactly: only the + side is simulated.
    const bool lanes = std::any_of(orders.begin(), orders.end(), [](const AxisOrder& order) {
      return std::any_of(order.begin(), order.end(), [](const Ring& ring) { return ring.pair >= 0; });
    });
    for (const AxisOrder& order : orders) {
      rounds_.emplace_back();
      double grow = 1;
      for (const Ring& ring : order) {
        const int a = ring.axis, n = ring.length(torus);
        const long long steps = ring.steps(torus);
        for (long long step = 1; step <= steps; ++step) {
          const bool half = !ring.open(torus) && n % 2 == 0 && step == n / 2;
          Round r{step == 1 ? grow : 1, half, {}};
          // (push_back: GCC 12 warns, wrongly, of a null memmove on a list assigned here)
          if (ring.pair >= 0) {
            r.messages.push_back({2 * a + ring.lane, 1});
            r.messages.push_back({2 * ring.pair + ring.lane, 1});
          } else if (torus.shared_link(a)) {
            r.messages.push_back({2 * a, 2});
          } else {
            r.messages.push_back({2 * a, 1});
            if (lanes) r.messages.push_back({2 * a + 1, 1});
          }
          rounds_.back().push_back(r);
        }
        grow = n;
      }
    }
  }

  /// The time, in one block's time over one link, with these weights.
  double time(const std::vector<double>& weights) {
    // A colour's group in each round as the colour's steps multiply it, the
    // weight first (the same products as one colour computed alone).
    blocks_.resize(colours_);
    for (auto& b : blocks_) b.clear();
    for (std::size_t c = 0; c < colours_; ++c) {
      if (!(weights[c] > 0)) continue;
      double group = weights[c];
      for (const Round& r : rounds_[c]) {
        group *= r.grow;
        const double b = r.half ? group / 2 : group;
        for (const Message& m : r.messages) blocks_[c].push_back(m.share * b);
      }
    }
    at_.assign(colours_, 0);
    used_.assign(colours_, 0);
    open_.assign(colours_, 0);
    flows_.clear();
    std::fill(sharing_.begin(), sharing_.end(), 0);
    for (std::size_t c = 0; c < colours_; ++c) start(c);
    double t = 0;
    while (!flows_.empty()) {
      double dt = INFINITY;
      for (const Flow& f : flows_) dt = std::min(dt, f.left * sharing_[static_cast<std::size_t>(f.link)]);
      t += dt;
      // Every message on a link gets an equal share; the first to finish leave.
      std::size_t kept = 0;
      arrived_.clear();
      finished_.clear();
      for (const Flow& f : flows_) {
        const double left = f.left - dt / sharing_[static_cast<std::size_t>(f.link)];
        if (left > 1e-12 * std::max(1.0, t)) {
          flows_[kept++] = Flow{f.colour, f.link, left};
        } else {
          finished_.push_back(f.link);
          if (--open_[static_cast<std::size_t>(f.colour)] == 0) arrived_.push_back(static_cast<std::size_t>(f.colour));
        }
      }
      flows_.resize(kept);
      for (int link : finished_) --sharing_[static_cast<std::size_t>(link)];
      // A colour whose round has arrived starts its next one.
      for (std::size_t c : arrived_) start(c);
    }
    return t;
  }

 private:
  struct Round {
    double grow;  ///< what the group grows by before it (a new phase's ring length)
    bool half;
    std::vector<Message> messages;
  };
  struct Flow {
    int colour, link;
    double left;
  };
  /// Starts colour c's next round that moves anything.
  void start(std::size_t c) {
    const auto& rounds = rounds_[c];
    if (blocks_[c].empty()) return;  // weight 0: no rounds
    for (; at_[c] < rounds.size() && open_[c] == 0; ++at_[c])
      for (const Message& m : rounds[at_[c]].messages) {
        const double blocks = blocks_[c][used_[c]++];
        if (blocks > 0) {
          flows_.push_back({static_cast<int>(c), m.link, blocks});
          ++open_[c];
          ++sharing_[static_cast<std::size_t>(m.link)];
        }
      }
  }
  std::size_t colours_;
  std::vector<std::vector<Round>> rounds_;
  std::vector<std::vector<double>> blocks_;
  std::vector<std::size_t> at_, used_;
  std::vector<int> open_;
  std::vector<Flow> flows_;
  std::vector<std::size_t> arrived_;
  std::vector<int> finished_;  ///< the links of the flows that left in this step
  std::vector<int> sharing_;   ///< flows on each link
};

}  // namespace

double fluid_time(const Torus& torus, const std::vector<AxisOrder>& orders, const std::vector<double>& weights) {
  return Fluid(torus, orders).time(weights);
}

namespace {

std::vector<long long> search_weights(const Torus& torus, const std::vector<AxisOrder>& orders, long long units) {
  const std::size_t n = orders.size();
  Fluid fluid(torus, orders);
  std::vector<double> w(n, 1.0 / static_cast<double>(n));
  const auto normalised = [](std::vector<double> v) {
    const double sum = std::accumulate(v.begin(), v.end(), 0.0);
    for (double& x : v) x /= sum;
    return v;
  };
  double best = fluid.time(w);
  // Coordinate search: scale one weight up or down, keep what helps.
  for (double step : {0.5, 0.25, 0.125, 0.0625, 0.03125})
    for (int sweep = 0; sweep < 4; ++sweep) {
      bool improved = false;
      for (std::size_t i = 0; i < n; ++i)
        for (double sign : {1.0, -1.0}) {
          std::vector<double> v = w;
          v[i] *= 1 + sign * step;
          v = normalised(v);
          const double x = fluid.time(v);
          if (x < best * (1 - 1e-9)) {
            best = x;
            w = v;
            improved = true;
          }
        }
      if (!improved) break;
    }
  // Up to 8 colours, moves of weight from one colour to another, which a
  // search one weight at a time cannot make, kept where they gain 1 % or
  // more; with more colours the pairs make it too slow for a decision.
  if (n <= 8) {
    std::vector<double> moved = w;
    double after = best;
    for (double step : {0.5, 0.25, 0.125, 0.0625, 0.03125})
      for (int sweep = 0; sweep < 4; ++sweep) {
        bool improved = false;
        for (std::size_t from = 0; from < n; ++from)
          for (std::size_t to = 0; to < n; ++to) {
            if (from == to || !(moved[from] > 0)) continue;
            std::vector<double> v = moved;
            v[to] += v[from] * step;
            v[from] -= v[from] * step;
            // A move that costs nothing is taken too: from equal weights
            // every single move ties (another link stays the busiest), and
            // the next ones gain.
            const double x = fluid.time(v);
            if (x <= after * (1 + 1e-12)) {
              improved = improved || x < after * (1 - 1e-9);
              after = std::min(after, x);
              moved = v;
            }
          }
        if (!improved) break;
      }
    if (after < best * 0.99) w = moved;
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
  // The search takes milliseconds: once per shape, links, orders and units in the process.
  using Key = std::tuple<std::vector<int>, std::uint32_t, std::uint32_t, std::vector<AxisOrder>, long long>;
  static std::mutex mutex;
  static std::map<Key, std::vector<long long>> known;
  std::vector<int> dims;
  for (int a = 0; a < torus.ndims(); ++a) dims.push_back(torus.dim(a));
  Key key{dims, torus.two_link_axes(), torus.open_axes(), orders, units};
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
