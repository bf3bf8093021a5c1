// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/bridgehead.hpp"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <memory>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace torusgather {
namespace {

// The geometry shared by the cost formula and the generator: where the
// bridgeheads are and who merges with whom. What each step costs is counted
// separately by each, and the simulator checks the generator's count.

/// One call of phase 1: `from` (offset in its segment) sends its group of
/// `size` ranks' data to `to`.
struct Merge {
  int from, to;
  long long size;
};

/// Phase 1 on a segment of m ranks, a linear array: each step groups the
/// current leaders in consecutive triples and the outer two call the middle
/// one, so the data triples per step (§4.1, approach 2): ⌈log3 m⌉ steps.
/// A trailing pair merges into its second; a trailing single waits. A group
/// is a run of consecutive offsets: held[i] is the run offset i holds after
/// the phase (its group when it last led one).
std::vector<std::vector<Merge>> concentrate_segment(int m, int* leader, std::vector<std::pair<int, int>>* held) {
  std::vector<std::pair<int, long long>> leaders;  // (offset, group size)
  std::vector<std::pair<int, int>> run;            // run[offset]: [first, last + 1)
  for (int i = 0; i < m; ++i) {
    leaders.emplace_back(i, 1);
    run.emplace_back(i, i + 1);
  }
  std::vector<std::vector<Merge>> steps;
  while (leaders.size() > 1) {
    std::vector<Merge> step;
    std::vector<std::pair<int, long long>> next;
    for (std::size_t i = 0; i < leaders.size(); i += 3) {
      const std::size_t rest = leaders.size() - i;
      if (rest == 1) {
        next.push_back(leaders[i]);
        continue;
      }
      const auto mid = leaders[i + 1];
      long long size = leaders[i].second + mid.second;
      auto& into = run[static_cast<std::size_t>(mid.first)];
      step.push_back({leaders[i].first, mid.first, leaders[i].second});
      into.first = run[static_cast<std::size_t>(leaders[i].first)].first;
      if (rest >= 3) {
        step.push_back({leaders[i + 2].first, mid.first, leaders[i + 2].second});
        size += leaders[i + 2].second;
        into.second = run[static_cast<std::size_t>(leaders[i + 2].first)].second;
      }
      next.emplace_back(mid.first, size);
    }
    steps.push_back(std::move(step));
    leaders = std::move(next);
  }
  *leader = m > 0 ? leaders.front().first : 0;
  if (held) *held = std::move(run);
  return steps;
}

/// concentrate_segment, remembered per m (the parameter searches ask for the
/// same few segment lengths thousands of times).
std::vector<std::vector<Merge>> concentration(int m, int* leader, std::vector<std::pair<int, int>>* held = nullptr) {
  struct Known {
    std::vector<std::vector<Merge>> steps;
    int leader = 0;
    std::vector<std::pair<int, int>> held;
  };
  thread_local std::map<int, Known> known;
  auto [it, fresh] = known.try_emplace(m);
  if (fresh) it->second.steps = concentrate_segment(m, &it->second.leader, &it->second.held);
  *leader = it->second.leader;
  if (held) *held = it->second.held;
  return it->second.steps;
}

struct Segment {
  int start, length, bridgehead;
};

/// Phase 1's a segments of a ring of n: segment i is [⌊in/a⌋, ⌊(i+1)n/a⌋),
/// its bridgehead where concentration ends (evenly spaced when a | n).
std::vector<Segment> segments(int n, int a) {
  std::vector<Segment> out;
  for (int i = 0; i < a; ++i) {
    const int start = static_cast<int>(static_cast<long long>(i) * n / a);
    const int end = static_cast<int>(static_cast<long long>(i + 1) * n / a);
    int leader = 0;
    concentration(end - start, &leader);
    out.push_back({start, end - start, start + leader});
  }
  return out;
}

/// The run of ring positions [first, last + 1) each position holds after
/// phase 1 (phase 2 gives the bridgeheads everything).
std::vector<std::pair<int, int>> phase1_runs(int n, int a) {
  std::vector<std::pair<int, int>> out;
  for (const auto& seg : segments(n, a)) {
    int leader = 0;
    std::vector<std::pair<int, int>> runs;
    concentration(seg.length, &leader, &runs);
    for (const auto& r : runs) out.emplace_back(seg.start + r.first, seg.start + r.second);
  }
  return out;
}

/// Packet c of k: the ring positions [cn/k, (c+1)n/k).
std::pair<int, int> packet_run(int n, int k, int c) { return {c * (n / k), (c + 1) * (n / k)}; }

/// Offsets (1 .. g-1) of the new bridgeheads phase 3 inserts into a gap of g
/// between consecutive bridgeheads: b - 1 of them, evenly spaced (fewer if g < b).
std::vector<int> inserted(int g, int b) {
  std::vector<int> out;
  for (int i = 1; i < b; ++i) {
    const int off = static_cast<int>(static_cast<long long>(g) * i / b);
    if (off > 0 && (out.empty() || out.back() != off)) out.push_back(off);
  }
  return out;
}

/// The bridgeheads' gaps (to the next one, cyclically); a single bridgehead
/// has the whole ring as its gap.
std::vector<int> gaps(const std::vector<int>& heads, int n) {
  std::vector<int> out;
  for (std::size_t i = 0; i < heads.size(); ++i) {
    const int next = heads[(i + 1) % heads.size()];
    out.push_back(heads.size() == 1 ? n : ((next - heads[i]) % n + n) % n);
  }
  return out;
}

/// Steps until every one of t new bridgeheads between two old ones holds
/// all k packets (proof of Lemma 5): node i receives the left stream's
/// packets 1, 2, ... from step i on and the right stream's k, k-1, ... from
/// step t+1-i on, and holds everything once the two runs cover 1..k.
long long chain_steps(int t, int k) {
  long long worst = 0;
  for (int i = 1; i <= t; ++i) {
    long long s = 0;
    auto got = [&](long long from) { return std::min<long long>(k, std::max<long long>(0, s - from + 1)); };
    while (got(i) + got(t + 1 - i) < k) ++s;
    worst = std::max(worst, s);
  }
  return worst;
}

/// A call of phase 3 between positions of a ring: + (rightwards, in order)
/// or - (leftwards, in reverse order), carrying packet `packet` (0-based).
struct ChainCall {
  int from, to;
  bool plus;
  int dist;
  int packet;
  int size = 0;  ///< blocks the receiver lacks (set by chain_rounds)
};

/// Phase 3's steps for one round, found by running the two pipelined
/// streams of every gap (§4.2 phase 3, Fig. 1): a node forwards a packet one
/// step after it got it, and nothing is sent to a node that has it or gets
/// it this step (where the streams cross).
std::vector<std::vector<ChainCall>> round_calls(const std::vector<int>& heads, int n, int b, int k) {
  // A gap's streams depend only on its length (a ring has one or two):
  // run them once per length, as (step, chain node from, to, packet).
  struct Rel {
    int step, from, to, packet;
  };
  std::map<int, std::pair<std::vector<int>, std::vector<Rel>>> by_gap;
  auto streams = [&](int g) -> const std::pair<std::vector<int>, std::vector<Rel>>& {
    auto [it, fresh] = by_gap.try_emplace(g);
    if (!fresh) return it->second;
    std::vector<int>& chain = it->second.first;
    std::vector<Rel>& rels = it->second.second;
    chain.push_back(0);
    for (int off : inserted(g, b)) chain.push_back(off);
    chain.push_back(g);
    const int t = static_cast<int>(chain.size()) - 2;
    if (t <= 0) return it->second;
    const auto K = static_cast<std::size_t>(k);
    std::vector<char> has(chain.size() * K, 0), now;
    std::fill(has.begin(), has.begin() + static_cast<long>(K), 1);
    std::fill(has.end() - static_cast<long>(K), has.end(), 1);
    auto at = [K](std::vector<char>& v, int j, int p) -> char& { return v[static_cast<std::size_t>(j) * K + static_cast<std::size_t>(p - 1)]; };
    auto done = [&] { return std::all_of(has.begin() + static_cast<long>(K), has.end() - static_cast<long>(K), [](char c) { return c != 0; }); };
    for (int s = 1; !done(); ++s) {
      now = has;
      // Left stream: packet p (1-based) leaves chain node j at step p + j.
      for (int j = 0; j < t; ++j) {
        const int p = s - j;
        if (p < 1 || p > k || !at(has, j, p) || at(now, j + 1, p)) continue;
        at(now, j + 1, p) = 1;
        rels.push_back({s, j, j + 1, p - 1});
      }
      // Right stream: packets k, k-1, ...; the u-th node from the right end
      // forwards packet k - (s - u) + 1 to its left.
      for (int u = 0; u < t; ++u) {
        const int j = t + 1 - u;
        const int p = k - (s - u) + 1;
        if (p < 1 || p > k || !at(has, j, p) || at(now, j - 1, p)) continue;
        at(now, j - 1, p) = 1;
        rels.push_back({s, j, j - 1, p - 1});
      }
      if (now == has) throw std::logic_error("bridgehead: phase 3 streams stalled");
      has.swap(now);
    }
    return it->second;
  };
  std::vector<std::vector<ChainCall>> steps;
  const auto gap = gaps(heads, n);
  for (std::size_t h = 0; h < heads.size(); ++h) {
    const auto& [chain, rels] = streams(gap[h]);
    auto pos = [&](int j) { return (heads[h] + chain[static_cast<std::size_t>(j)]) % n; };
    for (const Rel& r : rels) {
      if (steps.size() < static_cast<std::size_t>(r.step)) steps.resize(static_cast<std::size_t>(r.step));
      const bool plus = r.to > r.from;
      const int dist = std::abs(chain[static_cast<std::size_t>(r.to)] - chain[static_cast<std::size_t>(r.from)]);
      steps[static_cast<std::size_t>(r.step - 1)].push_back({pos(r.from), pos(r.to), plus, dist, r.packet});
    }
  }
  return steps;
}

/// The bridgeheads after one round of phase 3.
std::vector<int> grow(const std::vector<int>& heads, int n, int b) {
  std::vector<int> out;
  const auto gap = gaps(heads, n);
  for (std::size_t h = 0; h < heads.size(); ++h) {
    out.push_back(heads[h]);
    for (int off : inserted(gap[h], b)) out.push_back((heads[h] + off) % n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<int> initial_heads(int n, int a) {
  std::vector<int> heads;
  for (const auto& seg : segments(n, a)) heads.push_back(seg.bridgehead);
  return heads;
}

/// The pipelined rounds of circgos' phase 3 on a ring of n (bridgeheads
/// after phase 1 of circgos(n, a, b), multiplied by b per round, k packets
/// of n/k positions), with what each call carries: a position stands for
/// rows[t] rows of data in round t (none given: one, as on a ring; cubgos'
/// phase 4a: the old bridgeheads' class, §6.2), of which the callee holds
/// at most the run of its own row that phase 1 left it. A call is dropped
/// when it would carry nothing, and a step when all its calls are; the
/// steps left never exceed Lemma 5's count, checked here. Shared by the
/// cost formulas and the generators.
std::vector<std::vector<std::vector<ChainCall>>> chain_rounds(int n, int a, int b, int k,
                                                              const std::vector<long long>& rows = {}) {
  std::vector<std::vector<std::vector<ChainCall>>> out;
  const auto runs = phase1_runs(n, a);
  std::size_t t = 0;
  for (auto heads = initial_heads(n, a); static_cast<int>(heads.size()) < n; heads = grow(heads, n, b), ++t) {
    long long lemma5 = 0;
    for (int g : gaps(heads, n)) lemma5 = std::max(lemma5, chain_steps(static_cast<int>(inserted(g, b).size()), k));
    const long long per_position = rows.empty() ? 1 : rows.at(t);
    std::vector<std::vector<ChainCall>> steps;
    for (auto& step : round_calls(heads, n, b, k)) {
      std::vector<ChainCall> kept;
      for (auto& call : step) {
        const auto packet = packet_run(n, k, call.packet);
        const auto& own = runs[static_cast<std::size_t>(call.to)];
        const int overlap = std::max(0, std::min(packet.second, own.second) - std::max(packet.first, own.first));
        call.size = static_cast<int>((packet.second - packet.first) * per_position - overlap);
        if (call.size > 0) kept.push_back(call);
      }
      if (!kept.empty()) steps.push_back(std::move(kept));
    }
    if (static_cast<long long>(steps.size()) > lemma5)
      throw std::logic_error("bridgehead: phase 3 pipelines take " + std::to_string(steps.size()) +
                             " steps, more than Lemma 5's " + std::to_string(lemma5));
    out.push_back(std::move(steps));
  }
  return out;
}

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

namespace {

/// BridgeheadSchedule::ring_steps without the memo.
std::vector<long long> ring_steps_of(int n, const RingParams& p);

}  // namespace

namespace {

/// A ring's steps and their sum, remembered: the parameter searches (best,
/// best_coloured) ask for the same rings again and again, per axis, per
/// colour and per r bucket.
struct RingSteps {
  std::vector<long long> steps;
  long long sum = 0;
};

std::shared_ptr<const RingSteps> remembered_steps(int n, const RingParams& p) {
  static std::mutex mutex;
  static std::map<std::tuple<int, int, int, int>, std::shared_ptr<const RingSteps>> known;
  const auto key = std::make_tuple(n, p.a, p.b, p.k);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = known.find(key); it != known.end()) return it->second;
  }
  auto entry = std::make_shared<RingSteps>();
  entry->steps = ring_steps_of(n, p);
  for (long long size : entry->steps) entry->sum += size;
  std::lock_guard<std::mutex> lock(mutex);
  if (known.size() > 100000) known.clear();  // bounded: rings of a few shapes fill it
  known.emplace(key, entry);
  return entry;
}

}  // namespace

std::vector<long long> BridgeheadSchedule::ring_steps(int n, const RingParams& p) {
  return remembered_steps(n, p)->steps;
}

namespace {

std::vector<long long> ring_steps_of(int n, const RingParams& p) {
  std::vector<long long> out;
  if (n <= 1) return out;
  // Phase 1: the segments concentrate side by side; step j costs the
  // largest group merged in it.
  std::vector<long long> phase1;
  long long longest = 0;
  for (const auto& seg : segments(n, p.a)) {
    int leader = 0;
    const auto steps = concentration(seg.length, &leader);
    if (phase1.size() < steps.size()) phase1.resize(steps.size(), 0);
    for (std::size_t j = 0; j < steps.size(); ++j)
      for (const auto& m : steps[j]) phase1[j] = std::max(phase1[j], m.size);
    longest = std::max<long long>(longest, seg.length);
  }
  out = phase1;
  // Phase 2: ⌊a/2⌋ steps of approach 1 among the bridgeheads, a segment each.
  if (p.a >= 2) out.insert(out.end(), static_cast<std::size_t>(p.a / 2), longest);
  // Phase 3: rounds until every rank is a bridgehead; each step moves
  // packets of n/k ranks' data less what the receiver holds from phase 1.
  for (const auto& round : chain_rounds(n, p.a, p.b, p.k)) {
    for (const auto& step : round) {
      long long largest = 0;
      for (const auto& call : step) largest = std::max<long long>(largest, call.size);
      out.push_back(largest);
    }
  }
  return out;
}

}  // namespace

StepCost BridgeheadSchedule::ring_cost(int n, const RingParams& p, long long unit) {
  const auto ring = remembered_steps(n, p);
  return StepCost{static_cast<long long>(ring->steps.size()), ring->sum * unit};
}

StepCost BridgeheadSchedule::cost(const Torus& torus, const std::vector<RingParams>& params) {
  StepCost c;
  long long unit = 1;
  const auto axes = torus.active_axes();
  for (std::size_t i = 0; i < axes.size() && i < params.size(); ++i) {
    const StepCost ring = ring_cost(torus.dim(axes[i]), params[i], unit);
    c.steps += ring.steps;
    c.blocks += ring.blocks;
    unit *= torus.dim(axes[i]);
  }
  return c;
}

std::vector<RingParams> BridgeheadSchedule::concentrate(const Torus& torus) {
  return std::vector<RingParams>(torus.active_axes().size(), RingParams{1, 3, 1});
}

std::vector<RingParams> BridgeheadSchedule::best(const Torus& torus, double r) {
  std::vector<RingParams> out;
  long long unit = 1;
  for (int axis : torus.active_axes()) {
    const int n = torus.dim(axis);
    RingParams best_p{n, 2, 1};  // approach 1
    StepCost best_c = ring_cost(n, best_p, unit);
    // a up to 32 and every divisor of n; b up to 8 and k up to 32, k | n
    // (equal packets): the paper's Table 1 optima stay well inside.
    for (int a = 1; a < n; ++a) {
      if (a > 32 && n % a) continue;
      for (int b = 2; b <= std::min(n, 8); ++b)
        for (int k = 1; k <= std::min(n, 32); ++k) {
          if (n % k) continue;
          const RingParams p{a, b, k};
          const StepCost c = ring_cost(n, p, unit);
          if (c.at(r) < best_c.at(r) || (c.at(r) == best_c.at(r) && c.steps < best_c.steps)) {
            best_c = c;
            best_p = p;
          }
        }
    }
    out.push_back(best_p);
    unit *= n;
  }
  return out;
}

std::string BridgeheadSchedule::to_string(const std::vector<RingParams>& params) {
  std::string s;
  for (const auto& p : params)
    s += (s.empty() ? "" : ";") + std::to_string(p.a) + "," + std::to_string(p.b) + "," + std::to_string(p.k);
  return s;
}

bool BridgeheadSchedule::parse(const std::string& text, const Torus& torus, std::vector<RingParams>* params,
                               std::string* why) {
  std::vector<RingParams> out;
  std::stringstream all(text);
  std::string item;
  while (std::getline(all, item, ';')) {
    RingParams p;
    char c1 = 0, c2 = 0;
    std::stringstream one(item);
    if (!(one >> p.a >> c1 >> p.b >> c2 >> p.k) || c1 != ',' || c2 != ',' || !(one >> std::ws).eof()) {
      *why = "bridgehead parameters must be a,b,k (per axis, separated by ';'), not '" + text + "'";
      return false;
    }
    out.push_back(p);
  }
  if (out.size() == 1) out.resize(torus.active_axes().size(), out.front());
  if (std::string bad = check(torus, out); !bad.empty()) {
    *why = bad;
    return false;
  }
  *params = std::move(out);
  return true;
}

std::string BridgeheadSchedule::not_applicable(const Torus&) {
  return {};  // any torus, a single rank (no axis, no round) included
}

std::string BridgeheadSchedule::check(const Torus& torus, const std::vector<RingParams>& params) {
  const auto axes = torus.active_axes();
  if (params.size() != axes.size())
    return "needs one a,b,k per side > 1 (" + std::to_string(axes.size()) + "), got " + std::to_string(params.size());
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const int n = torus.dim(axes[i]);
    const RingParams& p = params[i];
    if (p.a < 1 || p.a > n || p.b < 2 || p.k < 1 || n % p.k)
      return "a,b,k = " + to_string({p}) + " does not fit a ring of " + std::to_string(n) +
             " (needs 1 <= a <= n, b >= 2, k dividing n)";
  }
  return {};
}

std::string BridgeheadSchedule::construction() const {
  std::string s = colours_ > 1 ? std::to_string(colours_) +
                                     " colours, colour c taking the axes from the c-th on (highdimgos'); circgos(n, a, b) with k packets per axis:"
                               : "circgos(n, a, b) with k packets, axis by axis:";
  const auto axes = torus().active_axes();
  for (std::size_t i = 0; i < axes.size(); ++i)
    s += std::string(i ? ";" : "") + " n=" + std::to_string(torus().dim(axes[i])) + " a=" +
         std::to_string(params_[i].a) + " b=" + std::to_string(params_[i].b) + " k=" + std::to_string(params_[i].k);
  return s;
}

namespace {

/// circgos(n, a, b) on one ring of n positions (port 1 rightwards, 0
/// leftwards), into `builder`, a GossipBuilder over those n positions. Every
/// ring of an axis runs these steps at once, and a position's data is what
/// its rank held when the axis began (the blocks of the ranks that differ
/// from it on the axes already done), the same amount for every position:
/// so what a call carries follows from the ring alone, and a rank needs
/// only n x n bits, not P x P, to derive its calls.
void ring_generate(GossipBuilder& builder, int n, const RingParams& p) {
  auto line = [](bool plus, int dist) { return std::vector<Port>(static_cast<std::size_t>(dist), make_port(0, plus)); };
  // Phase 1: concentrate each segment into its bridgehead.
  const auto segs = segments(n, p.a);
  std::vector<std::vector<std::vector<Merge>>> merges;
  std::size_t phase1 = 0;
  for (const auto& seg : segs) {
    int leader = 0;
    merges.push_back(concentration(seg.length, &leader));
    phase1 = std::max(phase1, merges.back().size());
  }
  for (std::size_t j = 0; j < phase1; ++j) {
    builder.next_round();
    for (std::size_t g = 0; g < segs.size(); ++g) {
      if (j >= merges[g].size()) continue;
      for (const auto& m : merges[g][j])
        builder.call(segs[g].start + m.from, line(m.to > m.from, std::abs(m.to - m.from)));
    }
  }
  // Phase 2: approach 1 among the bridgeheads, both ways round.
  const auto heads0 = initial_heads(n, p.a);
  const auto gap0 = gaps(heads0, n);
  if (p.a >= 2)
    for (int step = 0; step < p.a / 2; ++step) {
      builder.next_round();
      for (std::size_t h = 0; h < heads0.size(); ++h) {
        const std::size_t prev = (h + heads0.size() - 1) % heads0.size();
        builder.call(heads0[h], line(true, gap0[h]));
        builder.call(heads0[h], line(false, gap0[prev]));
      }
    }
  // Phase 3: each bridgehead holds the ring's data; cut it in k packets
  // of n/k positions and pipeline them to the new bridgeheads. A call
  // carries its packet less what the callee has or gets earlier in the
  // step (the caller holds the packet: the simulator checks it).
  std::vector<std::vector<std::uint64_t>> packets(static_cast<std::size_t>(p.k), builder.mask());
  for (int c = 0; c < p.k; ++c) {
    const auto run = packet_run(n, p.k, c);
    for (int x = run.first; x < run.second; ++x) packets[static_cast<std::size_t>(c)][static_cast<std::size_t>(x / 64)] |= 1ull << (x % 64);
  }
  for (const auto& round : chain_rounds(n, p.a, p.b, p.k)) {
    for (const auto& step : round) {
      builder.next_round();
      for (const auto& c : step) builder.call(c.from, line(c.plus, c.dist), &packets[static_cast<std::size_t>(c.packet)]);
    }
  }
}

/// Colour c of bridgehead-coloured takes the active axes from the c-th on,
/// cyclically: in phase f it runs along axis (c + f) mod d.
std::size_t rotated(std::size_t c, std::size_t f, std::size_t d) { return (c + f) % d; }

}  // namespace

/// One rank's calls, derived from the rings it is on (n x n bits per ring,
/// dropped once derived), sorted by round.
struct BridgeheadSchedule::RankCalls {
  struct Mine {
    long long round;
    bool send;
    int peer;
    Port port;
    int dist;
    BlockRanges positions;  ///< ring positions whose data the call carries
    int colour;
    std::uint32_t done;
    int axis;
  };
  Rank rank = -1;
  std::vector<Mine> calls;
  std::map<std::pair<Port, int>, std::vector<Port>> routes;
  /// Each call's blocks as ranks, where they fit in kKeptRanges ranges in
  /// all; else (sides whose blocks the row-major order scatters, at 10^5
  /// ranks and more) each round expands its calls again.
  std::vector<BlockRanges> expanded;
};

namespace {

/// The blocks of the ranks whose coordinates are any on the axes done,
/// in `positions` on the call's axis, and this rank's elsewhere: sorted
/// ranges in the row-major receive buffer, built slowest axis first.
void expand(const Torus& t, Rank self, int axis, std::uint32_t done, const BlockRanges& positions, BlockRanges& out) {
  out.clear();
  const int D = t.ndims();
  int m = D;  // axes m.. are all free: each value of the axes before is one chunk
  while (m > 0 && ((done >> (m - 1)) & 1u || t.dim(m - 1) == 1)) --m;
  Rank chunk = 1;
  for (int k = m; k < D; ++k) chunk *= t.dim(k);
  auto emit = [&out](Rank lo, Rank hi) {
    if (!out.empty() && out.back().second == lo) out.back().second = hi;
    else out.emplace_back(lo, hi);
  };
  // Odometer over axes 0 .. m-2; axis m-1 (the call's axis or a fixed
  // one) gives the ranges of each prefix.
  std::function<void(int, Rank)> walk = [&](int k, Rank base) {
    if (k == m - 1) {
      if (k == axis) {
        for (const auto& run : positions)
          emit(base + static_cast<Rank>(run.first) * chunk, base + static_cast<Rank>(run.second) * chunk);
      } else {
        const Rank at = base + static_cast<Rank>(t.coord(self, k)) * chunk;
        emit(at, at + chunk);
      }
      return;
    }
    const Rank stride = t.stride(k);
    if (k == axis) {
      for (const auto& run : positions)
        for (Rank v = run.first; v < run.second; ++v) walk(k + 1, base + v * stride);
    } else if ((done >> k) & 1u) {
      for (Rank v = 0; v < t.dim(k); ++v) walk(k + 1, base + v * stride);
    } else {
      walk(k + 1, base + static_cast<Rank>(t.coord(self, k)) * stride);
    }
  };
  walk(0, 0);
}

}  // namespace

std::shared_ptr<const BridgeheadSchedule::RankCalls> BridgeheadSchedule::calls_of(Rank self) const {
  // Every call of a communicator runs a program of the same rank: derive its
  // calls once (the simulators, which step through every rank, miss).
  {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    if (cached_ && cached_->rank == self) return cached_;
  }
  auto out = std::make_shared<RankCalls>();
  out->rank = self;
  const Torus& t = torus();
  for (const auto& ph : phases_) {
    const int n = t.dim(ph.axis);
    const int mine = t.coord(self, ph.axis);
    Torus ring({n});
    GossipBuilder builder(n, [&ring](Rank r, Port p) { return ring.neighbor(r, p); });
    builder.stream_to([&](long long round, const Call& c) {
      if (c.from != mine && c.to != mine) return;
      const Port first = make_port(ph.axis, port_plus(c.route.front()));
      const int dist = static_cast<int>(c.route.size());
      out->routes.try_emplace(std::make_pair(first, dist), static_cast<std::size_t>(dist), first);
      // A call to itself around a ring of 2 cannot happen: dist < n.
      if (c.from == mine)
        out->calls.push_back({ph.start + round, true, static_cast<int>(c.to), first, dist, c.ranges, ph.colour, ph.done, ph.axis});
      if (c.to == mine)
        out->calls.push_back({ph.start + round, false, static_cast<int>(c.from), first, dist, c.ranges, ph.colour, ph.done, ph.axis});
    });
    ring_generate(builder, n, params_[static_cast<std::size_t>(ph.param)]);
  }
  std::stable_sort(out->calls.begin(), out->calls.end(),
                   [](const RankCalls::Mine& x, const RankCalls::Mine& y) { return x.round < y.round; });
  std::size_t kept = 0;
  out->expanded.resize(out->calls.size());
  for (std::size_t i = 0; i < out->calls.size() && kept <= kKeptRanges; ++i) {
    const auto& c = out->calls[i];
    expand(t, self, c.axis, c.done, c.positions, out->expanded[i]);
    kept += out->expanded[i].size();
  }
  if (kept > kKeptRanges) out->expanded.clear();
  std::lock_guard<std::mutex> lock(cache_mutex_);
  cached_ = out;
  return out;
}

/// A rank's program: its calls (calls_of), the blocks of each expanded from
/// ring positions to ranks as its round is made.
class BridgeheadSchedule::Program final : public RankProgram {
 public:
  Program(const BridgeheadSchedule& s, Rank self) : s_(s), self_(self), mine_(s.calls_of(self)) {}

  void next_round(RoundOps& ops) override {
    ops.clear();
    ++round_;
    const std::size_t first = next_;
    const auto& calls = mine_->calls;
    while (next_ < calls.size() && calls[next_].round == round_) ++next_;
    if (mine_->expanded.empty()) ranges_.resize(next_ - first);
    const Torus& t = s_.torus();
    for (std::size_t i = first; i < next_; ++i) {
      const RankCalls::Mine& c = calls[i];
      const BlockRanges* blocks = nullptr;
      if (mine_->expanded.empty()) {
        expand(t, self_, c.axis, c.done, c.positions, ranges_[i - first]);
        blocks = &ranges_[i - first];
      } else {
        blocks = &mine_->expanded[i];
      }
      Transfer x;
      x.port = c.port;
      x.peer = t.shift(self_, c.axis, c.peer - t.coord(self_, c.axis));
      x.route = &mine_->routes.at(std::make_pair(c.port, c.dist));
      x.ranges = blocks;
      x.piece.colour = static_cast<std::uint16_t>(c.colour);
      x.piece.colours = static_cast<std::uint16_t>(s_.colours_);
      (c.send ? ops.sends : ops.recvs).push_back(x);
    }
  }

 private:
  const BridgeheadSchedule& s_;
  Rank self_;
  std::shared_ptr<const RankCalls> mine_;
  std::vector<BlockRanges> ranges_;
  std::size_t next_ = 0;
  long long round_ = 0;
};

std::unique_ptr<RankProgram> BridgeheadSchedule::program(Rank r) const { return std::make_unique<Program>(*this, r); }

std::vector<BridgeheadSchedule::RoundLoad> BridgeheadSchedule::round_loads() const {
  const Torus& t = torus();
  std::vector<RoundLoad> out(static_cast<std::size_t>(rounds()));
  std::map<std::pair<int, int>, std::vector<RoundLoad>> rings;  // (n, param) -> loads in ring positions
  for (const auto& ph : phases_) {
    const int n = t.dim(ph.axis);
    auto [it, fresh] = rings.try_emplace(std::make_pair(n, ph.param));
    if (fresh) {
      Torus ring({n});
      GossipBuilder builder(n, [&ring](Rank r, Port p) { return ring.neighbor(r, p); });
      std::vector<RoundLoad>& loads = it->second;
      std::vector<long long> link(static_cast<std::size_t>(2 * n)), recv(static_cast<std::size_t>(n));
      std::vector<int> sends(static_cast<std::size_t>(n)), recvs(static_cast<std::size_t>(n));
      long long current = 0;
      auto close = [&] {
        if (current == 0) return;
        RoundLoad& l = loads[static_cast<std::size_t>(current - 1)];
        l.link_blocks = static_cast<double>(*std::max_element(link.begin(), link.end()));
        l.recv_blocks = static_cast<double>(*std::max_element(recv.begin(), recv.end()));
        l.sends = *std::max_element(sends.begin(), sends.end());
        l.recvs = *std::max_element(recvs.begin(), recvs.end());
        std::fill(link.begin(), link.end(), 0);
        std::fill(recv.begin(), recv.end(), 0);
        std::fill(sends.begin(), sends.end(), 0);
        std::fill(recvs.begin(), recvs.end(), 0);
      };
      builder.stream_to([&](long long round, const Call& c) {
        while (current < round) {
          close();
          loads.emplace_back();
          ++current;
        }
        const long long blocks = block_count(c.ranges);
        // An MPI message: the network takes the shorter way round (+ on a
        // tie), whatever way the paper drew, as profile() charges it.
        const int ahead = static_cast<int>(((c.to - c.from) % n + n) % n);
        const bool plus = ahead <= n - ahead;
        const int hops = plus ? ahead : n - ahead;
        Rank at = c.from;
        for (int k = 0; k < hops; ++k) {
          link[static_cast<std::size_t>(2 * at + make_port(0, plus))] += blocks;
          at = ring.neighbor(at, make_port(0, plus));
        }
        recv[static_cast<std::size_t>(c.to)] += blocks;
        ++sends[static_cast<std::size_t>(c.from)];
        ++recvs[static_cast<std::size_t>(c.to)];
        RoundLoad& l = loads[static_cast<std::size_t>(round - 1)];
        l.hops = std::max(l.hops, hops);
      });
      ring_generate(builder, n, params_[static_cast<std::size_t>(ph.param)]);
      close();
      loads.resize(static_cast<std::size_t>(builder.rounds()));
    }
    long long unit = 1;
    for (int a = 0; a < t.ndims(); ++a)
      if ((ph.done >> a) & 1u) unit *= t.dim(a);
    const double scale = static_cast<double>(unit) / colours_;
    for (std::size_t j = 0; j < it->second.size(); ++j) {
      const RoundLoad& l = it->second[j];
      RoundLoad& o = out.at(static_cast<std::size_t>(ph.start) + j);
      o.link_blocks = std::max(o.link_blocks, l.link_blocks * scale);
      o.recv_blocks += l.recv_blocks * scale;
      o.sends += l.sends;
      o.recvs += l.recvs;
      o.hops = std::max(o.hops, l.hops);
    }
  }
  return out;
}

BridgeheadSchedule::BridgeheadSchedule(const Torus& torus, std::vector<RingParams> params, const char* name)
    : Schedule(torus), name_(name), params_(std::move(params)) {
  if (std::string why = not_applicable(torus); !why.empty()) throw std::invalid_argument(std::string(name) + ": " + why);
  if (std::string why = check(torus, params_); !why.empty()) throw std::invalid_argument(std::string(name) + ": " + why);
  cost_ = cost(torus, params_);
  const auto axes = torus.active_axes();
  long long start = 0;
  std::uint32_t done = 0;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    phases_.push_back({axes[i], static_cast<int>(i), 0, start, done});
    start += static_cast<long long>(ring_steps(torus.dim(axes[i]), params_[i]).size());
    done |= 1u << axes[i];
  }
}

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

}  // namespace

StepCost BridgeheadSchedule::coloured_cost(const Torus& torus, const std::vector<RingParams>& params) {
  return coloured_cost_of(torus, params, [](int n, const RingParams& p) { return ring_steps(n, p); });
}

std::vector<RingParams> BridgeheadSchedule::best_coloured(const Torus& torus, double r) {
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
  std::vector<RingParams> best_p = best(torus, r * d);
  auto best_t = time(best_p);
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
        const std::vector<RingParams> p(axes.size(), RingParams{a, b, k});
        const auto t = time(p);
        if (t < best_t) {
          best_t = t;
          best_p = p;
        }
      }
  }
  return best_p;
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

std::string CubgosSchedule::not_applicable(const Torus& torus) {
  if (torus.active_axes().size() < 2) return "needs d >= 2 sides > 1 (on a ring it is circgos: bridgehead)";
  if (torus.size() > kMaxRanks) return "builds its calls with P x P bits: at most " + std::to_string(kMaxRanks) + " ranks";
  return {};
}

std::string CubgosSchedule::check(const Torus& torus, const DiagonalParams& p) {
  if (std::string why = not_applicable(torus); !why.empty()) return why;
  const auto axes = torus.active_axes();
  const int n0 = torus.dim(axes[0]);
  const std::string bad = "a,b,k = " + to_string(p) + " does not fit " + torus.to_string() + ": ";
  if (p.a < 1 || p.a > n0 || n0 % p.a) return bad + "a must divide n_0 = " + std::to_string(n0);
  const int g = n0 / p.a;
  for (int axis : axes)
    if (torus.dim(axis) % g) return bad + "the spacing g = n_0/a = " + std::to_string(g) + " must divide every side";
  if (p.b < 2 || !power_of(g, p.b)) return bad + "g = " + std::to_string(g) + " must be a power of b >= 2";
  if (p.k < 1 || n0 % p.k) return bad + "k must divide n_0 = " + std::to_string(n0);
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
  const auto chains = chain_rounds(n0, p.a, p.b, p.k, rows);
  for (std::size_t t = 0; t < chains.size(); ++t) {
    for (const auto& step : chains[t]) {
      long long largest = 0;
      for (const auto& call : step) largest = std::max<long long>(largest, call.size);
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

DiagonalParams CubgosSchedule::best(const Torus& torus, double r) {
  const auto axes = torus.active_axes();
  const int n0 = torus.dim(axes[0]);
  DiagonalParams best_p{n0, 2, 1};  // g = 1: approach 1 along every axis
  StepCost best_c = cost(torus, best_p);
  for (int a = 1; a < n0; ++a)
    for (int b = 2; b <= 8; ++b)
      for (int k = 1; k <= std::min(n0, 32); ++k) {
        const DiagonalParams p{a, b, k};
        if (!check(torus, p).empty()) continue;
        const StepCost c = cost(torus, p);
        if (c.at(r) < best_c.at(r) || (c.at(r) == best_c.at(r) && c.steps < best_c.steps)) {
          best_c = c;
          best_p = p;
        }
      }
  return best_p;
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
  set_calls(builder.finish());
}

}  // namespace torusgather
