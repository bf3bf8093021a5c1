// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/ring_gossip.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>

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
const std::vector<std::vector<Merge>>& concentration(int m, int* leader, std::vector<std::pair<int, int>>* held) {
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

/// After phase 1 of a ring of n in a segments: the run of ring positions
/// [first, last + 1) each position holds (phase 2 gives the bridgeheads
/// everything), and the bridgeheads.
struct Phase1 {
  std::vector<std::pair<int, int>> runs;
  std::vector<int> heads;
  int longest_run = 0;  ///< the longest run of a position that is not a bridgehead
  int widest_gap = 0;   ///< the most positions from one bridgehead to the next
};

Phase1 make_phase1(int n, int a) {
  Phase1 out;
  for (const auto& seg : segments(n, a)) {
    int leader = 0;
    std::vector<std::pair<int, int>> runs;
    concentration(seg.length, &leader, &runs);
    for (const auto& r : runs) out.runs.emplace_back(seg.start + r.first, seg.start + r.second);
    out.heads.push_back(seg.bridgehead);
  }
  std::vector<char> head(out.runs.size(), 0);
  for (int h : out.heads) head[static_cast<std::size_t>(h)] = 1;
  for (std::size_t p = 0; p < out.runs.size(); ++p)
    if (!head[p]) out.longest_run = std::max(out.longest_run, out.runs[p].second - out.runs[p].first);
  for (const int g : gaps(out.heads, n)) out.widest_gap = std::max(out.widest_gap, g);
  return out;
}

}  // namespace

/// Packet c of k: the ring positions [cn/k, (c+1)n/k).
std::pair<int, int> packet_run(int n, int k, int c) { return {c * (n / k), (c + 1) * (n / k)}; }

namespace {

/// Offsets (1 .. g-1) of the new bridgeheads phase 3 inserts into a gap of g
/// between consecutive bridgeheads: b - 1 of them, evenly spaced (fewer if g < b).
template <class F>
void for_each_inserted(int g, int b, F&& f) {
  int last = 0;
  for (int i = 1; i < b; ++i) {
    const int off = static_cast<int>(static_cast<long long>(g) * i / b);
    if (off > last) f(off);
    last = std::max(last, off);
  }
}

std::vector<int> inserted(int g, int b) {
  std::vector<int> out;
  for_each_inserted(g, b, [&out](int off) { out.push_back(off); });
  return out;
}

int inserted_count(int g, int b) {
  int count = 0;
  for_each_inserted(g, b, [&count](int) { ++count; });
  return count;
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

/// The two pipelined streams of a gap of g between bridgeheads (§4.2
/// phase 3, Fig. 1): the chain's offsets (0, the b − 1 inserted, g) and its
/// calls (step, chain node from, to, packet). A node forwards a packet one
/// step after it got it, and nothing is sent to a node that has it or gets
/// it this step (where the streams cross). Remembered per (g, b, k): the
/// parameter searches ask for the same gaps thousands of times.
struct Streams {
  struct Rel {
    int step, from, to, packet;
  };
  std::vector<int> chain;
  std::vector<Rel> rels;
};

Streams run_streams(int g, int b, int k) {
  Streams out;
  std::vector<int>& chain = out.chain;
  chain.push_back(0);
  for (int off : inserted(g, b)) chain.push_back(off);
  chain.push_back(g);
  const int t = static_cast<int>(chain.size()) - 2;
  if (t <= 0) return out;
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
      out.rels.push_back({s, j, j + 1, p - 1});
    }
    // Right stream: packets k, k-1, ...; the u-th node from the right end
    // forwards packet k - (s - u) + 1 to its left.
    for (int u = 0; u < t; ++u) {
      const int j = t + 1 - u;
      const int p = k - (s - u) + 1;
      if (p < 1 || p > k || !at(has, j, p) || at(now, j - 1, p)) continue;
      at(now, j - 1, p) = 1;
      out.rels.push_back({s, j, j - 1, p - 1});
    }
    if (now == has) throw std::logic_error("bridgehead: phase 3 streams stalled");
    has.swap(now);
  }
  return out;
}

struct GapKey {
  int g, b, k;
  bool operator==(const GapKey& o) const { return g == o.g && b == o.b && k == o.k; }
};
struct GapHash {
  std::size_t operator()(const GapKey& x) const {
    return std::hash<std::uint64_t>()((static_cast<std::uint64_t>(static_cast<std::uint32_t>(x.g)) << 32) ^
                                      (static_cast<std::uint64_t>(static_cast<std::uint32_t>(x.b)) << 20) ^
                                      static_cast<std::uint32_t>(x.k));
  }
};

/// Phase 3's bridgeheads and their gaps, round by round until every
/// position is one.
using HeadRounds = std::vector<std::pair<std::vector<int>, std::vector<int>>>;

}  // namespace

struct SearchMemo::Tables {
  std::unordered_map<GapKey, Streams, GapHash> streams;
  std::map<std::tuple<int, int, int>, HeadRounds> heads;
  std::map<std::pair<int, int>, Phase1> phase1;
  /// (n, a, b): each round of phase 3, the inserted counts of its gaps > 1.
  std::map<std::tuple<int, int, int>, std::vector<std::vector<int>>> inserted;
  std::tuple<int, int, int> inserted_key{-1, -1, -1};  ///< the last asked for: the searches ask k by k
  const std::vector<std::vector<int>>* inserted_last = nullptr;
  std::vector<std::vector<long long>> lemma5;  ///< [t][k]: chain_steps(t, k), 0 where not yet known
};

namespace {

thread_local SearchMemo::Tables* active_tables = nullptr;

const Streams& streams(SearchMemo::Tables& memo, int g, int b, int k) {
  const GapKey key{g, b, k};
  if (auto it = memo.streams.find(key); it != memo.streams.end()) return it->second;
  return memo.streams.emplace(key, run_streams(g, b, k)).first->second;
}

const Phase1& phase1_of(SearchMemo::Tables& memo, int n, int a) {
  auto [it, fresh] = memo.phase1.try_emplace(std::make_pair(n, a));
  if (fresh) it->second = make_phase1(n, a);
  return it->second;
}

/// Every call of one round of phase 3, in step order within each
/// bridgehead's gap: visit(step index, call); after each bridgehead's
/// calls, stop() may end the round early.
template <class Visit, class Stop>
void for_each_round_call(SearchMemo::Tables& memo, const std::vector<int>& heads, const std::vector<int>& gap, int n,
                         int b, int k, Visit&& visit, Stop&& stop) {
  const Streams* last = nullptr;  // a ring's gaps take one or two lengths
  int last_gap = -1;
  for (std::size_t h = 0; h < heads.size(); ++h) {
    if (gap[h] != last_gap) {
      last = &streams(memo, gap[h], b, k);
      last_gap = gap[h];
    }
    const Streams& st = *last;
    auto pos = [&](int j) { return (heads[h] + st.chain[static_cast<std::size_t>(j)]) % n; };
    for (const Streams::Rel& r : st.rels) {
      const bool plus = r.to > r.from;
      const int dist = std::abs(st.chain[static_cast<std::size_t>(r.to)] - st.chain[static_cast<std::size_t>(r.from)]);
      visit(static_cast<std::size_t>(r.step - 1), ChainCall{pos(r.from), pos(r.to), plus, dist, r.packet});
    }
    if (stop()) return;
  }
}

}  // namespace

namespace {

/// The bridgeheads after one round of phase 3.
std::vector<int> grow(const std::vector<int>& heads, const std::vector<int>& gap, int n, int b) {
  std::vector<int> out;
  for (std::size_t h = 0; h < heads.size(); ++h) {
    out.push_back(heads[h]);
    for_each_inserted(gap[h], b, [&](int off) { out.push_back((heads[h] + off) % n); });
  }
  // Sorted but for the positions past the last head that wrapped round: merged in O(n).
  const auto wrapped = std::is_sorted_until(out.begin(), out.end());
  if (std::is_sorted(wrapped, out.end()))
    std::inplace_merge(out.begin(), wrapped, out.end());
  else
    std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

SearchMemo::SearchMemo() {
  if (active_tables == nullptr) {
    own_ = std::make_unique<Tables>();
    active_tables = own_.get();
  }
}

SearchMemo::~SearchMemo() {
  if (own_) active_tables = nullptr;
}

std::vector<int> initial_heads(int n, int a) { return make_phase1(n, a).heads; }

/// The pipelined rounds of circgos' phase 3 on a ring of n (bridgeheads
/// after phase 1 of circgos(n, a, b), multiplied by b per round, k packets
/// of n/k positions), with what each call carries: a position stands for
/// rows[t] rows of data in round t (none given: one, as on a ring; cubgos'
/// phase 4a: the old bridgeheads' class, §6.2), of which the callee holds
/// at most the run of its own row that phase 1 left it. A call is dropped
/// when it would carry nothing, and a step when all its calls are; the
/// steps left never exceed Lemma 5's count, checked here. Shared by the
/// cost formulas and the generators.
namespace {

const HeadRounds& head_rounds(SearchMemo::Tables& memo, int n, int a, int b) {
  auto [it, fresh] = memo.heads.try_emplace(std::make_tuple(n, a, b));
  if (!fresh) return it->second;
  for (auto heads = phase1_of(memo, n, a).heads; static_cast<int>(heads.size()) < n;) {
    std::vector<int> gap = gaps(heads, n);
    std::vector<int> next = grow(heads, gap, n, b);
    it->second.emplace_back(std::move(heads), std::move(gap));
    heads = std::move(next);
  }
  return it->second;
}

/// Rounds of phase 3 until a gap of g is all bridgeheads: a round cuts
/// every gap into gaps of floor(g/b) and ceil(g/b) (for_each_inserted), so
/// the widest gap of phase 1 decides: ceil(log_b g) rounds.
long long rounds_of_phase3(SearchMemo::Tables& memo, int n, int a, int b) {
  long long rounds = 0;
  for (long long g = phase1_of(memo, n, a).widest_gap; g > 1; g = (g + b - 1) / b) ++rounds;
  return rounds;
}

/// Phase 3 round by round: visit(t, step index, call) for every call with
/// what it carries (size > 0; see chain_rounds), then end_round(t), which
/// returns the steps the round kept, checked against Lemma 5's count.
/// Between bridgeheads, full(steps) may end the round early, `steps` the
/// step indices the round's gaps have.
template <class Visit, class Full, class EndRound>
void run_chain(int n, int a, int b, int k, const std::vector<long long>& rows, Visit&& visit, Full&& full,
               EndRound&& end_round) {
  SearchMemo::Tables local;  // outside a search, nothing outlives the call
  SearchMemo::Tables& memo = active_tables ? *active_tables : local;
  const auto& runs = phase1_of(memo, n, a).runs;
  const auto& rounds = head_rounds(memo, n, a, b);
  for (std::size_t t = 0; t < rounds.size(); ++t) {
    const auto& [heads, gap] = rounds[t];
    long long lemma5 = 0;
    for (int g : gap) lemma5 = std::max(lemma5, chain_steps(inserted_count(g, b), k));
    const long long per_position = rows.empty() ? 1 : rows.at(t);
    std::size_t steps = 0;  // a ring's gaps take one or two lengths
    for (std::size_t h = 0; h < gap.size(); ++h)
      if (h == 0 || gap[h] != gap[h - 1])
        if (const auto& rels = streams(memo, gap[h], b, k).rels; !rels.empty())
          steps = std::max(steps, static_cast<std::size_t>(rels.back().step));
    for_each_round_call(
        memo, heads, gap, n, b, k,
        [&](std::size_t step, ChainCall call) {
          const auto packet = packet_run(n, k, call.packet);
          const auto& own = runs[static_cast<std::size_t>(call.to)];
          const int overlap = std::max(0, std::min(packet.second, own.second) - std::max(packet.first, own.first));
          call.size = static_cast<int>((packet.second - packet.first) * per_position - overlap);
          if (call.size > 0) visit(t, step, call);
        },
        [&] { return full(steps); });
    const std::size_t kept = end_round(t);
    if (static_cast<long long>(kept) > lemma5)
      throw std::logic_error("bridgehead: phase 3 pipelines take " + std::to_string(kept) +
                             " steps, more than Lemma 5's " + std::to_string(lemma5));
  }
}

}  // namespace

std::vector<std::vector<std::vector<ChainCall>>> chain_rounds(int n, int a, int b, int k,
                                                              const std::vector<long long>& rows) {
  std::vector<std::vector<std::vector<ChainCall>>> out;
  std::vector<std::vector<ChainCall>> steps;  // by step index, empty ones dropped at the round's end
  run_chain(
      n, a, b, k, rows,
      [&](std::size_t, std::size_t step, const ChainCall& call) {
        if (steps.size() <= step) steps.resize(step + 1);
        steps[step].push_back(call);
      },
      [](std::size_t) { return false; },  // every call listed
      [&](std::size_t) {
        std::vector<std::vector<ChainCall>> kept;
        for (auto& step : steps)
          if (!step.empty()) kept.push_back(std::move(step));
        steps.clear();
        out.push_back(std::move(kept));
        return out.back().size();
      });
  return out;
}

std::vector<std::vector<long long>> chain_round_largest(int n, int a, int b, int k, const std::vector<long long>& rows) {
  std::vector<std::vector<long long>> out;
  std::vector<long long> largest;  // by step index; 0: no call in that step
  std::size_t at_most = 0;  // steps whose largest call carries all a call can
  run_chain(
      n, a, b, k, rows,
      [&](std::size_t t, std::size_t step, const ChainCall& call) {
        if (largest.size() <= step) largest.resize(step + 1, 0);
        const long long most = static_cast<long long>(n / k) * (rows.empty() ? 1 : rows.at(t));
        if (call.size > largest[step] && call.size == most) ++at_most;
        largest[step] = std::max<long long>(largest[step], call.size);
      },
      [&](std::size_t steps) {
        // Once every step has a call as large as a call can be, the
        // round's other bridgeheads change nothing.
        return at_most == steps;
      },
      [&](std::size_t) {
        std::vector<long long> kept;
        for (long long size : largest)
          if (size > 0) kept.push_back(size);
        largest.clear();
        at_most = 0;
        out.push_back(std::move(kept));
        return out.back().size();
      });
  return out;
}

long long phase3_rounds(int n, int a, int b) {
  SearchMemo::Tables local;
  return rounds_of_phase3(active_tables ? *active_tables : local, n, a, b);
}

namespace {

/// Each round of phase 3 on circgos(n, a, b), the inserted counts of its
/// gaps (each distinct count once): a round cuts a gap of g into gaps of
/// floor(g/b) and ceil(g/b).
const std::vector<std::vector<int>>& inserted_per_round(SearchMemo::Tables& memo, int n, int a, int b) {
  const auto key = std::make_tuple(n, a, b);
  if (memo.inserted_last && memo.inserted_key == key) return *memo.inserted_last;
  auto [it, fresh] = memo.inserted.try_emplace(key);
  memo.inserted_key = key;
  memo.inserted_last = &it->second;
  if (!fresh) return it->second;
  std::set<int> widths;
  for (const int g : gaps(phase1_of(memo, n, a).heads, n))
    if (g > 1) widths.insert(g);
  while (!widths.empty()) {
    std::set<int> counts, next;
    for (const int g : widths) {
      counts.insert(inserted_count(g, b));
      int last = 0;
      for_each_inserted(g, b, [&](int off) {
        if (off - last > 1) next.insert(off - last);
        last = off;
      });
      if (g - last > 1) next.insert(g - last);
    }
    it->second.emplace_back(counts.begin(), counts.end());
    widths.swap(next);
  }
  return it->second;
}

/// chain_steps(t, k), remembered in the search's tables.
long long lemma5_steps(SearchMemo::Tables& memo, int t, int k) {
  auto& row = memo.lemma5;
  if (row.size() <= static_cast<std::size_t>(t)) row.resize(static_cast<std::size_t>(t) + 1);
  auto& col = row[static_cast<std::size_t>(t)];
  if (col.size() <= static_cast<std::size_t>(k)) col.resize(static_cast<std::size_t>(k) + 1, 0);
  long long& steps = col[static_cast<std::size_t>(k)];
  if (steps == 0) steps = chain_steps(t, k) + 1;  // stored + 1: 0 marks unknown
  return steps - 1;
}

}  // namespace

std::pair<long long, long long> chain_floor(int n, int a, int b, int k) {
  SearchMemo::Tables local;
  SearchMemo::Tables& memo = active_tables ? *active_tables : local;
  const int longest = phase1_of(memo, n, a).longest_run;
  const long long rounds = rounds_of_phase3(memo, n, a, b);
  // A packet is n/k positions: a run of `longest` covers at most longest·k/n of them.
  const long long missing = k - static_cast<long long>(longest) * k / n;
  const long long steps = std::max(1LL, (missing + 1) / 2);
  // Every kept step has a call to a new bridgehead, whose phase-1 run
  // covers at most `longest` of its packet's n/k positions.
  const long long per_step = std::max(1LL, static_cast<long long>(n / k) - longest);
  const long long blocks = std::max(steps * per_step, (n - longest + 1) / 2LL);
  return {rounds * steps, rounds * blocks};
}

std::pair<long long, long long> pipelines_floor(int n, int a, int b, int k) {
  SearchMemo::Tables local;
  SearchMemo::Tables& memo = active_tables ? *active_tables : local;
  const int longest = phase1_of(memo, n, a).longest_run;
  if (n / k <= longest) return chain_floor(n, a, b, k);
  // A packet is longer than any run, so no call carries nothing and a
  // round keeps every step of its longest pipeline (Lemma 5's count).
  const long long per_step = static_cast<long long>(n / k) - longest, spread = (n - longest + 1) / 2LL;
  long long all_steps = 0, all_blocks = 0;
  for (const auto& counts : inserted_per_round(memo, n, a, b)) {
    long long most = 0;
    for (const int t : counts) most = std::max(most, lemma5_steps(memo, t, k));
    all_steps += most;
    all_blocks += std::max(most * per_step, spread);
  }
  return {all_steps, all_blocks};
}

}  // namespace ring_gossip
}  // namespace torusgather
