// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/ring_gossip.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

namespace torusgather {
namespace ring_gossip {

namespace {

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

}  // namespace

/// concentrate_segment, remembered per m (the parameter searches ask for the
/// same few segment lengths thousands of times).
std::vector<std::vector<Merge>> concentration(int m, int* leader, std::vector<std::pair<int, int>>* held) {
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

namespace {

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

}  // namespace

/// Packet c of k: the ring positions [cn/k, (c+1)n/k).
std::pair<int, int> packet_run(int n, int k, int c) { return {c * (n / k), (c + 1) * (n / k)}; }

namespace {

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

}  // namespace

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

namespace {

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

}  // namespace

namespace {

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

}  // namespace

namespace {

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

}  // namespace

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
                                                              const std::vector<long long>& rows) {
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

}  // namespace ring_gossip
}  // namespace torusgather
