// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/cubgos.hpp"

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "schedule/ring_gossip.hpp"
#include "schedule/round_calls.hpp"

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
  // first ⌊(w-1)/2⌋, each message `unit` blocks: two kinds of round, each
  // kept once with its count.
  auto gather = [&](int axis, int g, int w, long long unit) {
    const long long both = (w - 1) / 2, right = w / 2 - both;
    for (const auto& [times, left] : {std::pair<long long, bool>{both, true}, {right, false}}) {
      if (times <= 0) continue;
      LineRound round{axis, g, {}, times};
      for (int at = 0; at < t.dim(axis); at += g) {
        round.calls.push_back({at, g, unit});
        if (left) round.calls.push_back({at, -g, unit});
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

namespace {

/// The ports of a call `dist` hops along `axis`.
std::vector<Port> line(int axis, bool plus, int dist) {
  return std::vector<Port>(static_cast<std::size_t>(dist), make_port(axis, plus));
}

}  // namespace

/// One rank's rounds. Its row's ranks sit at ring positions rel = x_0 +
/// leader - (sigma mod g0) (mod n_0), sigma = x_1 + ... + x_{d-1}, the
/// frame in which every row runs the same calls; position rel is column
/// x_0 = rel - leader + (sigma mod g0) of each row.
class CubgosSchedule::Program final : public RankProgram {
 public:
  Program(const CubgosSchedule& s, Rank self) : s_(s), t_(s.torus()), self_(self) {
    const auto& axes = s.axes_;
    y_.resize(axes.size());
    long long sigma = 0;
    for (std::size_t i = 1; i < axes.size(); ++i) sigma += y_[i] = t_.coord(self, axes[i]);
    offset_ = static_cast<int>(sigma % s.g0_);
    sigma_ = sigma;
    const int x0 = t_.coord(self, axes[0]);
    rel_ = ((x0 + s.leader_ - offset_) % s.n0_ + s.n0_) % s.n0_;
    row_ = self - static_cast<Rank>(x0) * t_.stride(axes[0]);
  }

  void next_round(RoundOps& ops) override {
    calls_.clear();
    if (run_ < s_.stages_.size()) {
      const StageRun& run = s_.stages_[run_];
      Stage stage = run.first;
      stage.step += in_run_;
      if (++in_run_ == run.rounds) {
        ++run_;
        in_run_ = 0;
      }
      if (stage.kind == Stage::merge) merge(stage);
      if (stage.kind == Stage::gather) gather(stage);
      if (stage.kind == Stage::chain) chain(stage);
    }
    calls_.emit(ops);
  }

 private:
  /// Phase 1: a merge's sender sends the run of its segment it holds.
  void merge(const Stage& stage) {
    const int g0 = s_.g0_, seg = rel_ / g0 * g0, at = rel_ % g0;
    const auto& step = s_.merges_[static_cast<std::size_t>(stage.step)];
    for (std::size_t m = 0; m < step.size(); ++m) {
      const auto& merge = step[m];
      if (at != merge.from && at != merge.to) continue;
      const auto run = s_.merge_runs_[static_cast<std::size_t>(stage.step)][m];
      std::vector<Rank> blocks;
      for (int x = seg + run.first; x < seg + run.second; ++x) blocks.push_back(column(x));
      std::sort(blocks.begin(), blocks.end());
      const bool send = at == merge.from;
      const int other = seg + (send ? merge.to : merge.from);
      calls_.add(send, t_.shift(self_, s_.axes_[0], other - rel_),
          line(s_.axes_[0], merge.to > merge.from, std::abs(merge.to - merge.from)), to_ranges(blocks));
    }
  }

  /// Approach 1 among the bridgeheads `spacing` apart: a call at step s
  /// carries what its sender received s - 1 steps before (its own at s = 1).
  void gather(const Stage& stage) {
    const int g = stage.spacing, axis = s_.axes_[static_cast<std::size_t>(stage.axis)];
    if (((t_.coord(self_, s_.axes_[0]) - sigma_) % g + g) % g != 0) return;
    const int s = stage.step;
    const bool left = s <= (stage.count - 1) / 2;
    // (direction, sender's offset from me in bridgeheads, label's offset from the sender)
    calls_.add(true, t_.shift(self_, axis, g), line(axis, true, g), label(stage, 0, -(s - 1)));
    calls_.add(false, t_.shift(self_, axis, -g), line(axis, true, g), label(stage, -1, -(s - 1)));
    if (!left) return;
    calls_.add(true, t_.shift(self_, axis, -g), line(axis, false, g), label(stage, 0, s - 1));
    calls_.add(false, t_.shift(self_, axis, g), line(axis, false, g), label(stage, 1, s - 1));
  }

  /// What the bridgehead `sender` steps from me along the stage's axis holds
  /// from the bridgehead `shift` steps from it: a segment of my row (phase
  /// 2) or, on a further axis, every column of the rows that agree with
  /// that bridgehead's modulo the stage's moduli.
  BlockRanges label(const Stage& stage, int sender, int shift) const {
    const int g = stage.spacing;
    std::vector<Rank> blocks;
    if (stage.axis == 0) {
      const int a = stage.count, seg = ((rel_ / s_.g0_ + sender + shift) % a + a) % a;
      for (int x = seg * s_.g0_; x < (seg + 1) * s_.g0_; ++x) blocks.push_back(column(x));
    } else {
      std::vector<std::pair<int, int>> rows(y_.size());  // per further axis: (residue, modulus)
      for (std::size_t j = 1; j < y_.size(); ++j) {
        const auto i = static_cast<std::size_t>(stage.axis);
        const int mod = j < i ? stage.before_mod : j == i ? stage.own_mod : stage.after_mod;
        rows[j] = {j == i ? y_[j] + (sender + shift) * g : y_[j], mod};
      }
      all_columns(rows, &blocks);
    }
    std::sort(blocks.begin(), blocks.end());
    return to_ranges(blocks);
  }

  /// Phase 4a: a packet's columns of the old bridgeheads' class (rows equal
  /// to mine modulo g), less the callee's own run of phase 1 in my row.
  void chain(const Stage& stage) {
    const int g = s_.spacing_[static_cast<std::size_t>(stage.round)];
    const auto& calls = s_.chains_[static_cast<std::size_t>(stage.round)][static_cast<std::size_t>(stage.step)];
    for (const auto& call : calls) {
      if (call.from != rel_ && call.to != rel_) continue;
      const bool send = call.from == rel_;
      std::vector<std::pair<int, int>> rows(y_.size());
      for (std::size_t j = 1; j < y_.size(); ++j) rows[j] = {y_[j], g};
      const auto packet = ring_gossip::packet_run(s_.n0_, s_.params_.k, call.packet);
      // The callee's run of phase 1 in its segment.
      const int seg = call.to / s_.g0_ * s_.g0_;
      const auto& run = s_.held_[static_cast<std::size_t>(call.to - seg)];
      const std::pair<int, int> own{seg + run.first, seg + run.second};
      std::vector<Rank> blocks;
      std::vector<Rank> columns;
      for (int x = packet.first; x < packet.second; ++x) columns.push_back(column(x) - row_);
      class_blocks(rows, columns, &blocks);
      std::vector<Rank> held;
      for (int x = std::max(packet.first, own.first); x < std::min(packet.second, own.second); ++x)
        held.push_back(column(x));
      std::sort(blocks.begin(), blocks.end());
      std::sort(held.begin(), held.end());
      std::vector<Rank> lacking;
      std::set_difference(blocks.begin(), blocks.end(), held.begin(), held.end(), std::back_inserter(lacking));
      const int delta = call.plus == send ? call.dist : -call.dist;
      calls_.add(send, t_.shift(self_, s_.axes_[0], delta), line(s_.axes_[0], call.plus, call.dist), to_ranges(lacking));
    }
  }

  /// My row's block at ring position x.
  Rank column(int x) const {
    const int n0 = s_.n0_;
    const int x0 = ((x - s_.leader_ + offset_) % n0 + n0) % n0;
    return row_ + static_cast<Rank>(x0) * t_.stride(s_.axes_[0]);
  }

  /// The blocks at the column offsets `columns` of every row that agrees with
  /// (residue, modulus) on each further axis (modulus 0: equal); the sides of
  /// 1 add nothing to a rank.
  void class_blocks(const std::vector<std::pair<int, int>>& rows, const std::vector<Rank>& columns,
                    std::vector<Rank>* out) const {
    std::vector<Rank> offs{0};
    for (std::size_t j = 1; j < rows.size(); ++j) {
      const int axis = s_.axes_[j], n = t_.dim(axis);
      const int mod = rows[j].second == 0 ? n : rows[j].second;
      std::vector<Rank> more;
      for (Rank o : offs)
        for (int v = ((rows[j].first % mod) + mod) % mod; v < n; v += mod) more.push_back(o + v * t_.stride(axis));
      offs = std::move(more);
    }
    for (Rank o : offs)
      for (Rank c : columns) out->push_back(o + c);
  }

  void all_columns(const std::vector<std::pair<int, int>>& rows, std::vector<Rank>* out) const {
    std::vector<Rank> columns;
    for (int x0 = 0; x0 < s_.n0_; ++x0) columns.push_back(static_cast<Rank>(x0) * t_.stride(s_.axes_[0]));
    class_blocks(rows, columns, out);
  }

  const CubgosSchedule& s_;
  const Torus& t_;
  Rank self_;
  std::vector<int> y_;  ///< my coordinates on the active axes after the first
  long long sigma_ = 0;
  int offset_ = 0, rel_ = 0;
  Rank row_ = 0;  ///< my row's rank at x_0 = 0
  std::size_t run_ = 0;  ///< the run of stages, and the round in it
  int in_run_ = 0;
  RoundCalls calls_;
};

std::unique_ptr<RankProgram> CubgosSchedule::program(Rank r) const { return std::make_unique<Program>(*this, r); }

CubgosSchedule::CubgosSchedule(const Torus& torus, DiagonalParams params) : Schedule(torus), params_(params) {
  if (std::string why = check(torus, params_); !why.empty()) throw std::invalid_argument("cubgos: " + why);
  cost_ = cost(torus, params_);
  axes_ = torus.active_axes();
  n0_ = torus.dim(axes_[0]);
  g0_ = n0_ / params_.a;
  // Phase 1 on one segment of g0, and what each merge's sender holds.
  merges_ = concentration(g0_, &leader_);
  for (int i = 0; i < g0_; ++i) held_.emplace_back(i, i + 1);
  for (const auto& step : merges_) {
    merge_runs_.emplace_back();
    for (const auto& m : step) merge_runs_.back().push_back(held_[static_cast<std::size_t>(m.from)]);
    for (const auto& m : step) {
      auto& into = held_[static_cast<std::size_t>(m.to)];
      const auto& from = held_[static_cast<std::size_t>(m.from)];
      into = {std::min(into.first, from.first), std::max(into.second, from.second)};
    }
    add_stage({Stage::merge, static_cast<int>(merge_runs_.size()) - 1});
  }
  // Phases 2 and 3: approach 1 among the bridgeheads of every row, then of
  // every line along each further axis.
  auto gather = [&](int axis, int spacing, int count, int before, int own, int after) {
    for (int s = 1; s <= count / 2; ++s) {
      Stage st{Stage::gather, s};
      st.axis = axis;
      st.spacing = spacing;
      st.count = count;
      st.before_mod = before;
      st.own_mod = own;
      st.after_mod = after;
      add_stage(st);
    }
  };
  gather(0, g0_, params_.a, 0, 0, 0);
  for (std::size_t i = 1; i < axes_.size(); ++i) gather(static_cast<int>(i), g0_, torus.dim(axes_[i]) / g0_, g0_, 0, 0);
  // Phase 4: the chains along the rows, then ⌊b/2⌋ steps among b
  // consecutive bridgeheads of the new spacing on each further axis.
  chains_ = chain_rounds(n0_, params_.a, params_.b, params_.k, class_rows(torus, params_));
  int g = g0_;
  for (std::size_t t = 0; t < chains_.size(); ++t) {
    spacing_.push_back(g);
    for (std::size_t step = 0; step < chains_[t].size(); ++step) {
      Stage st{Stage::chain, static_cast<int>(step)};
      st.round = static_cast<int>(t);
      add_stage(st);
    }
    const int next = g / params_.b;
    for (std::size_t i = 1; i < axes_.size(); ++i) gather(static_cast<int>(i), next, params_.b, next, g, g);
    g = next;
  }
  long long rounds = 0;
  for (const StageRun& run : stages_) rounds += run.rounds;
  if (rounds != cost_.steps)
    throw std::logic_error("cubgos: " + std::to_string(rounds) + " stages for " + std::to_string(cost_.steps) +
                           " steps");
}

void CubgosSchedule::add_stage(const Stage& st) {
  if (!stages_.empty()) {
    StageRun& last = stages_.back();
    const Stage& f = last.first;
    if (st.kind == f.kind && st.step == f.step + last.rounds && st.round == f.round && st.axis == f.axis &&
        st.spacing == f.spacing && st.count == f.count && st.before_mod == f.before_mod && st.own_mod == f.own_mod &&
        st.after_mod == f.after_mod) {
      ++last.rounds;
      return;
    }
  }
  stages_.push_back({st, 1});
}

}  // namespace torusgather
