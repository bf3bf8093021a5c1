// SPDX-License-Identifier: BSD-3-Clause
// bridgehead-coloured: bridgehead with the block in d colours, colour c
// taking the axes from the c-th on, so that all 2d links work in every phase
// (Juurlink, Rao & Sibeyn §6.2's colouring of highdimgos).
#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "schedule/bridgehead.hpp"
#include "schedule/least_first.hpp"
#include "schedule/ring_gossip.hpp"

namespace torusgather {
namespace {

/// Colour c of bridgehead-coloured takes the active axes from the c-th on,
/// cyclically: in phase f it runs along axis (c + f) mod d.
std::size_t rotated(std::size_t c, std::size_t f, std::size_t d) { return (c + f) % d; }

}  // namespace

std::string BridgeheadSchedule::not_applicable_coloured(const Torus& torus) {
  if (torus.active_axes().size() < 2) return "needs d >= 2 sides > 1 (on a ring there is one colour: bridgehead)";
  return not_applicable(torus);
}

namespace {

/// coloured_cost with each ring's steps from `steps_of(n, params)`; where
/// `ends` is given, the round after which each phase ends (a phase lasts as
/// long as its longest colour).
template <class StepsOf>
StepCost coloured_cost_of(const Torus& torus, const std::vector<RingParams>& params, StepsOf&& steps_of,
                          std::vector<long long>* ends = nullptr) {
  const auto axes = torus.active_axes();
  const std::size_t d = axes.size();
  StepCost c;
  std::vector<long long> unit(d, 1);  // per colour: the sides its earlier phases gathered
  for (std::size_t f = 0; f < d; ++f) {
    std::vector<std::vector<long long>> steps(d);
    std::size_t longest = 0;
    for (std::size_t colour = 0; colour < d; ++colour) {
      const std::size_t i = rotated(colour, f, d);
      steps[colour] = steps_of(torus.dim(axes[i]), params[i]);
      longest = std::max(longest, steps[colour].size());
    }
    for (std::size_t j = 0; j < longest; ++j) {
      long long largest = 0;
      for (std::size_t colour = 0; colour < d; ++colour)
        if (j < steps[colour].size()) largest = std::max(largest, steps[colour][j] * unit[colour]);
      ++c.steps;
      c.blocks += largest;
    }
    for (std::size_t colour = 0; colour < d; ++colour) unit[colour] *= torus.dim(axes[rotated(colour, f, d)]);
    if (ends) ends->push_back(c.steps);
  }
  return c;
}

/// At most coloured_cost_of's time steps·r + blocks/d: per phase, the
/// slowest colour's ring floor (the phase lasts at least as long as it).
double coloured_floor(const Torus& torus, const std::vector<RingParams>& params, double r) {
  const auto axes = torus.active_axes();
  const std::size_t d = axes.size();
  StepCost c;
  std::vector<long long> unit(d, 1);
  for (std::size_t f = 0; f < d; ++f) {
    long long steps = 0, blocks = 0;
    for (std::size_t colour = 0; colour < d; ++colour) {
      const std::size_t i = rotated(colour, f, d);
      const StepCost ring = BridgeheadSchedule::ring_floor(torus.dim(axes[i]), params[i]);
      steps = std::max(steps, ring.steps);
      blocks = std::max(blocks, ring.blocks * unit[colour]);
      unit[colour] *= torus.dim(axes[i]);
    }
    c.steps += steps;
    c.blocks += blocks;
  }
  return static_cast<double>(c.steps) * r + static_cast<double>(c.blocks) / static_cast<double>(d);
}

}  // namespace

StepCost BridgeheadSchedule::coloured_cost(const Torus& torus, const std::vector<RingParams>& params) {
  return coloured_cost_of(torus, params, [](int n, const RingParams& p) { return ring_steps(n, p); });
}

std::vector<RingParams> BridgeheadSchedule::best_coloured(const Torus& torus, double r) {
  const ring_gossip::SearchMemo memo;
  const auto axes = torus.active_axes();
  const double d = static_cast<double>(axes.size());
  // Each candidate needs d rings' steps d times over: remember them.
  std::map<std::tuple<int, int, int, int>, std::vector<long long>> known;
  auto steps_of = [&known](int n, const RingParams& p) -> const std::vector<long long>& {
    auto [it, fresh] = known.try_emplace(std::make_tuple(n, p.a, p.b, p.k));
    if (fresh) it->second = ring_steps(n, p);
    return it->second;
  };
  auto time = [&](const std::vector<RingParams>& p) {
    const StepCost c = coloured_cost_of(torus, p, steps_of);
    return std::make_pair(static_cast<double>(c.steps) * r + static_cast<double>(c.blocks) / d, c.steps);
  };
  // Each colour is a circgos on pieces of s/d: the per-axis optimum at
  // r·d, and every triple that fits all the sides (on a cube the colours'
  // phases then take equally long). The paper chooses by its cost formula;
  // so do we, with the padding of colours that finish a phase early.
  std::vector<Option<std::vector<RingParams>>> options;
  int shortest = torus.dim(axes[0]);
  for (int axis : axes) shortest = std::min(shortest, torus.dim(axis));
  for (int a = 1; a <= shortest; ++a) {
    bool divides_all = true;
    for (int axis : axes) divides_all = divides_all && torus.dim(axis) % a == 0;
    if (a > 32 && !divides_all) continue;
    for (int b = 2; b <= std::min(shortest, 8); ++b)
      for (int k = 1; k <= std::min(shortest, 32); ++k) {
        bool fits = true;
        for (int axis : axes) fits = fits && torus.dim(axis) % k == 0;
        if (!fits) continue;
        std::vector<RingParams> p(axes.size(), RingParams{a, b, k});
        const double floor = coloured_floor(torus, p, r);
        options.push_back({std::move(p), floor});
      }
  }
  return least_first(best(torus, r * d), options, time);
}

BridgeheadSchedule::BridgeheadSchedule(const Torus& torus, std::vector<RingParams> params, Coloured)
    : Schedule(torus), name_("bridgehead-coloured"), params_(std::move(params)) {
  if (std::string why = not_applicable_coloured(torus); !why.empty()) throw std::invalid_argument(std::string(name_) + ": " + why);
  if (std::string why = check(torus, params_); !why.empty()) throw std::invalid_argument(std::string(name_) + ": " + why);
  const auto axes = torus.active_axes();
  const std::size_t d = axes.size();
  colours_ = static_cast<int>(d);
  // Every colour's phase f ends after ends[f] rounds: the colours keep in
  // step, so in every round they run along different axes and their links
  // never meet.
  std::vector<long long> ends;
  cost_ = coloured_cost_of(torus, params_, [](int n, const RingParams& p) { return ring_steps(n, p); }, &ends);
  for (std::size_t colour = 0; colour < d; ++colour) {
    std::uint32_t done = 0;
    for (std::size_t f = 0; f < d; ++f) {
      const std::size_t i = rotated(colour, f, d);
      phases_.push_back({axes[i], static_cast<int>(i), static_cast<int>(colour), f ? ends[f - 1] : 0, done});
      done |= 1u << axes[i];
    }
  }
}

}  // namespace torusgather
