// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/cubgos.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "schedule/ring_gossip.hpp"

namespace torusgather {
namespace {

using namespace ring_gossip;

/// Whether g = b^t for some t >= 0.
bool power_of(int g, int b) {
  for (; g > 1; g /= b)
    if (g % b) return false;
  return true;
}

/// rows[t]: rows of the class an old bridgehead holds at the start of
/// round t of phase 4 (one per residue mod g_t of every further axis).
std::vector<long long> class_rows(const Torus& torus, const DiagonalParams& p) {
  const auto axes = torus.active_axes();
  std::vector<long long> rows;
  for (int g = torus.dim(axes[0]) / p.a; g > 1; g /= p.b) {
    long long r = 1;
    for (std::size_t i = 1; i < axes.size(); ++i) r *= torus.dim(axes[i]) / g;
    rows.push_back(r);
  }
  return rows;
}

}  // namespace

std::string CubgosSchedule::not_applicable(const Torus& torus) {
  if (torus.active_axes().size() < 2) return "needs d >= 2 sides > 1 (on a ring it is circgos: bridgehead)";
  if (torus.size() > kMaxRanks) return "builds its calls with P x P bits: at most " + std::to_string(kMaxRanks) + " ranks";
  return {};
}

namespace {

/// Which of (a, b, k)'s conditions on the torus fails first, if any; the
/// search asks for every candidate, check() says why.
enum class Misfit { none, a, g, b, k };

Misfit misfit(const Torus& torus, const DiagonalParams& p) {
  const auto axes = torus.active_axes();
  const int n0 = torus.dim(axes[0]);
  if (p.a < 1 || p.a > n0 || n0 % p.a) return Misfit::a;
  const int g = n0 / p.a;
  for (int axis : axes)
    if (torus.dim(axis) % g) return Misfit::g;
  if (p.b < 2 || !power_of(g, p.b)) return Misfit::b;
  if (p.k < 1 || n0 % p.k) return Misfit::k;
  return Misfit::none;
}

}  // namespace

std::string CubgosSchedule::check(const Torus& torus, const DiagonalParams& p) {
  if (std::string why = not_applicable(torus); !why.empty()) return why;
  const int n0 = torus.dim(torus.active_axes()[0]);
  const std::string bad = "a,b,k = " + to_string(p) + " does not fit " + torus.to_string() + ": ";
  const std::string g = p.a >= 1 ? std::to_string(n0 / p.a) : "?";
  switch (misfit(torus, p)) {
    case Misfit::a: return bad + "a must divide n_0 = " + std::to_string(n0);
    case Misfit::g: return bad + "the spacing g = n_0/a = " + g + " must divide every side";
    case Misfit::b: return bad + "g = " + g + " must be a power of b >= 2";
    case Misfit::k: return bad + "k must divide n_0 = " + std::to_string(n0);
    case Misfit::none: break;
  }
  return {};
}

StepCost CubgosSchedule::cost(const Torus& torus, const DiagonalParams& p) {
  StepCost c;
  const auto axes = torus.active_axes();
  const int n0 = torus.dim(axes[0]);
  const int g = n0 / p.a;
  // Phase 1: every segment of g concentrates by triples; a step costs its
  // largest merged group (all segments alike).
  int leader = 0;
  for (const auto& step : concentration(g, &leader)) {
    long long largest = 0;
    for (const auto& m : step) largest = std::max(largest, m.size);
    ++c.steps;
    c.blocks += largest;
  }
  // Phase 2: approach 1 among a bridgeheads per row, a segment per step.
  c.steps += p.a / 2;
  c.blocks += static_cast<long long>(p.a / 2) * g;
  // Phase 3: approach 1 among the n_i/g bridgeheads of every x_i-line; a
  // step moves what a bridgehead held when the axis began.
  long long unit = n0;
  for (std::size_t i = 1; i < axes.size(); ++i) {
    const int w = torus.dim(axes[i]) / g;
    c.steps += w / 2;
    c.blocks += (w / 2) * unit;
    unit *= w;
  }
  // Phase 4: per round, the chains along the rows, then ⌊b/2⌋ steps per
  // further axis among b consecutive bridgeheads (the data grows b-fold).
  const auto rows = class_rows(torus, p);
  const auto chains = chain_round_largest(n0, p.a, p.b, p.k, rows);
  for (std::size_t t = 0; t < chains.size(); ++t) {
    for (long long largest : chains[t]) {
      ++c.steps;
      c.blocks += largest;
    }
    unit = n0 * rows[t];
    for (std::size_t i = 1; i < axes.size(); ++i) {
      c.steps += p.b / 2;
      c.blocks += (p.b / 2) * unit;
      unit *= p.b;
    }
  }
  return c;
}

namespace {

/// Every (a, b, k) that fits the shape with its cost, made once per shape in
/// a process (best() asks for each block size's r).
std::shared_ptr<const std::vector<std::pair<DiagonalParams, StepCost>>> costs_of(const Torus& torus) {
  static std::mutex mutex;
  static std::map<std::vector<int>, std::shared_ptr<const std::vector<std::pair<DiagonalParams, StepCost>>>> known;
  const std::vector<int> key = torus.dims();
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = known.find(key); it != known.end()) return it->second;
  }
  auto all = std::make_shared<std::vector<std::pair<DiagonalParams, StepCost>>>();
  const SearchMemo memo;
  const int n0 = CubgosSchedule::not_applicable(torus).empty() ? torus.dim(torus.active_axes()[0]) : 0;
  for (int a = 1; a < n0; ++a)
    for (int b = 2; b <= 8; ++b)
      for (int k = 1; k <= std::min(n0, 32); ++k) {
        const DiagonalParams p{a, b, k};
        if (misfit(torus, p) == Misfit::none) all->emplace_back(p, CubgosSchedule::cost(torus, p));
      }
  std::lock_guard<std::mutex> lock(mutex);
  if (known.size() > 64) known.clear();  // bounded: a process sees a few shapes
  known.emplace(key, all);
  return all;
}

}  // namespace

DiagonalParams CubgosSchedule::best(const Torus& torus, double r) {
  const auto axes = torus.active_axes();
  const int n0 = torus.dim(axes[0]);
  DiagonalParams best_p{n0, 2, 1};  // g = 1: approach 1 along every axis
  StepCost best_c = cost(torus, best_p);
  for (const auto& [p, c] : *costs_of(torus))
    if (c.at(r) < best_c.at(r) || (c.at(r) == best_c.at(r) && c.steps < best_c.steps)) {
      best_c = c;
      best_p = p;
    }
  return best_p;
}

std::vector<CubgosSchedule::LineRound> CubgosSchedule::line_rounds() const {
  const Torus& t = torus();
  const DiagonalParams& p = params_;
  const auto axes = t.active_axes();
  const int n0 = t.dim(axes[0]);
  const int g0 = n0 / p.a;
  std::vector<LineRound> out;
  // Approach 1 among bridgeheads g apart: right every step, left in the
  // first ⌊(w-1)/2⌋, each message `unit` blocks.
  auto gather = [&](int axis, int g, int w, long long unit) {
    for (int s = 1; s <= w / 2; ++s) {
      LineRound round{axis, g, {}};
      for (int at = 0; at < t.dim(axis); at += g) {
        round.calls.push_back({at, g, unit});
        if (s <= (w - 1) / 2) round.calls.push_back({at, -g, unit});
      }
      out.push_back(std::move(round));
    }
  };
  int leader = 0;
  for (const auto& step : concentration(g0, &leader)) {
    LineRound round{axes[0], g0, {}};
    for (const auto& seg : segments(n0, p.a))
      for (const auto& m : step) round.calls.push_back({seg.start + m.from, m.to - m.from, m.size});
    out.push_back(std::move(round));
  }
  gather(axes[0], g0, p.a, g0);
  long long unit = n0;
  for (std::size_t i = 1; i < axes.size(); ++i) {
    const int w = t.dim(axes[i]) / g0;
    gather(axes[i], g0, w, unit);
    unit *= w;
  }
  const auto rows = class_rows(t, p);
  const auto chains = chain_rounds(n0, p.a, p.b, p.k, rows);
  int g = g0;
  for (std::size_t r = 0; r < chains.size(); ++r) {
    for (const auto& step : chains[r]) {
      LineRound round{axes[0], g0, {}};
      for (const auto& c : step) round.calls.push_back({c.from, c.plus ? c.dist : -c.dist, c.size});
      out.push_back(std::move(round));
    }
    g /= p.b;
    unit = n0 * rows[r];
    for (std::size_t i = 1; i < axes.size(); ++i) {
      gather(axes[i], g, p.b, unit);
      unit *= p.b;
    }
  }
  return out;
}

std::string CubgosSchedule::to_string(const DiagonalParams& p) {
  return std::to_string(p.a) + "," + std::to_string(p.b) + "," + std::to_string(p.k);
}

bool CubgosSchedule::parse(const std::string& text, const Torus& torus, DiagonalParams* params, std::string* why) {
  DiagonalParams p;
  char c1 = 0, c2 = 0;
  std::stringstream one(text);
  if (!(one >> p.a >> c1 >> p.b >> c2 >> p.k) || c1 != ',' || c2 != ',' || !(one >> std::ws).eof()) {
    *why = "cubgos parameters must be a,b,k, not '" + text + "'";
    return false;
  }
  if (std::string bad = check(torus, p); !bad.empty()) {
    *why = bad;
    return false;
  }
  *params = p;
  return true;
}

std::string CubgosSchedule::construction() const {
  const auto axes = torus().active_axes();
  return std::string(axes.size() == 2 ? "torgos" : "cubgos") + "(n, a, b) with k packets (Juurlink, Rao & Sibeyn " +
         (axes.size() == 2 ? "§5.2" : "§6.2") + "): rows along axis " + std::to_string(axes[0]) +
         ", bridgeheads x_0 = x_1 + ... (mod g), g = " + std::to_string(torus().dim(axes[0]) / params_.a) +
         ", a=" + std::to_string(params_.a) + " b=" + std::to_string(params_.b) + " k=" + std::to_string(params_.k);
}

CubgosSchedule::CubgosSchedule(const Torus& torus, DiagonalParams params)
    : ExplicitSchedule(torus), params_(params) {
  if (std::string why = check(torus, params_); !why.empty()) throw std::invalid_argument("cubgos: " + why);
  cost_ = cost(torus, params_);
  defer_calls([this] { return make_calls(); });
}

std::vector<std::vector<Call>> CubgosSchedule::make_calls() const {
  const Torus& torus = this->torus();
  const auto axes = torus.active_axes();
  const int x0 = axes[0];
  const int n0 = torus.dim(x0);
  const int g0 = n0 / params_.a;
  const Rank P = torus.size();
  GossipBuilder builder(P, [&torus](Rank r, Port p) { return torus.neighbor(r, p); });
  auto line = [](int axis, bool plus, int dist) {
    return std::vector<Port>(static_cast<std::size_t>(dist), make_port(axis, plus));
  };
  // sigma[r] = x_1 + ... + x_{d-1}: r is a bridgehead of spacing g iff x_0 ≡ sigma (mod g).
  std::vector<long long> sigma(static_cast<std::size_t>(P), 0);
  for (Rank r = 0; r < P; ++r)
    for (std::size_t i = 1; i < axes.size(); ++i) sigma[static_cast<std::size_t>(r)] += torus.coord(r, axes[i]);
  auto head = [&](Rank r, int g) {
    return ((torus.coord(r, x0) - sigma[static_cast<std::size_t>(r)]) % g + g) % g == 0;
  };
  // The rows (x_0 = 0) and the map from positions relative to a row's first
  // segment to ranks: the row's bridgeheads of spacing g0 sit at relative
  // leader + j·g0 and at x_0 ≡ sigma (mod g0).
  int leader = 0;
  const auto merges = concentration(g0, &leader);
  std::vector<Rank> rows;
  for (Rank r = 0; r < P; ++r)
    if (torus.coord(r, x0) == 0) rows.push_back(r);
  auto at = [&](Rank row, int rel) {
    const long long c = sigma[static_cast<std::size_t>(row)] % g0;
    return torus.shift(row, x0, ((rel - leader + c) % n0 + n0) % n0);
  };
  // Approach 1 among the bridgeheads (spacing g) of every line along
  // `axis` until each holds the w classes within ⌊w/2⌋ steps: rightwards
  // every step, leftwards ⌊(w-1)/2⌋ steps (no block arrives twice).
  auto gather = [&](int axis, int g, int w) {
    for (int s = 1; s <= w / 2; ++s) {
      builder.next_round();
      for (Rank r = 0; r < P; ++r) {
        if (!head(r, g)) continue;
        builder.call(r, line(axis, true, g));
        if (s <= (w - 1) / 2) builder.call(r, line(axis, false, g));
      }
    }
  };
  // Phase 1.
  for (const auto& step : merges) {
    builder.next_round();
    for (Rank row : rows)
      for (const auto& seg : segments(n0, params_.a))
        for (const auto& m : step) builder.call(at(row, seg.start + m.from), line(x0, m.to > m.from, std::abs(m.to - m.from)));
  }
  // Phase 2 and 3.
  gather(x0, g0, params_.a);
  for (std::size_t i = 1; i < axes.size(); ++i) gather(axes[i], g0, torus.dim(axes[i]) / g0);
  // Phase 4.
  const auto class_count = class_rows(torus, params_);
  const auto chains = chain_rounds(n0, params_.a, params_.b, params_.k, class_count);
  int g = g0;
  for (const auto& round : chains) {
    // 4a: a packet is its positions of the row times the rows y with
    // y_i ≡ x_i (mod g) on every further axis: the old bridgeheads' class.
    std::vector<std::vector<Rank>> class_of(rows.size());
    for (std::size_t w = 0; w < rows.size(); ++w) {
      std::vector<Rank> offs{0};
      for (std::size_t i = 1; i < axes.size(); ++i) {
        std::vector<Rank> more;
        const int n = torus.dim(axes[i]);
        for (Rank o : offs)
          for (int y = torus.coord(rows[w], axes[i]) % g; y < n; y += g) more.push_back(o + y * torus.stride(axes[i]));
        offs = std::move(more);
      }
      class_of[w] = std::move(offs);
    }
    for (const auto& step : round) {
      builder.next_round();
      for (std::size_t w = 0; w < rows.size(); ++w)
        for (const auto& c : step) {
          std::vector<Rank> blocks;
          const auto packet = packet_run(n0, params_.k, c.packet);
          for (int x = packet.first; x < packet.second; ++x) {
            const Rank col = static_cast<Rank>(torus.coord(at(rows[w], x), x0)) * torus.stride(x0);
            for (Rank o : class_of[w]) blocks.push_back(col + o);
          }
          std::sort(blocks.begin(), blocks.end());
          builder.offer(at(rows[w], c.from), line(x0, c.plus, c.dist), blocks);
        }
    }
    g /= params_.b;
    // 4b.
    for (std::size_t i = 1; i < axes.size(); ++i) gather(axes[i], g, params_.b);
  }
  return builder.finish();
}

}  // namespace torusgather
