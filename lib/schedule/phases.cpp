// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/phases.hpp"

#include <algorithm>

namespace torusgather {
namespace {

/// Algorithm 2 among n (even) nodes, round j (1-based): i <-> i + 2^j - 1
/// for even i.
std::pair<int, int> alg2_pair(int n, long long j, int k) {
  if (k >= n) return {-1, -1};
  const int step = static_cast<int>(((1LL << j) - 1) % n);
  if (k % 2 == 0) return {k, (k + step) % n};
  return {((k - step) % n + n) % n, k};
}

/// Sorted, merged, without empty intervals.
NodeIntervals normalized(NodeIntervals v) {
  std::sort(v.begin(), v.end());
  NodeIntervals out;
  for (const auto& [lo, hi] : v) {
    if (lo >= hi) continue;
    if (!out.empty() && lo <= out.back().second)
      out.back().second = std::max(out.back().second, hi);
    else
      out.emplace_back(lo, hi);
  }
  return out;
}

/// The nodes [from, from + len) counted round a ring of n, len <= n.
NodeIntervals cyclic(int n, long long from, long long len) {
  const int a = static_cast<int>((from % n + n) % n);
  if (a + len <= n) return {{a, static_cast<int>(a + len)}};
  return normalized({{a, n}, {0, static_cast<int>(a + len - n)}});
}

/// Whose blocks node k of Algorithm 2 among n holds after t rounds: even i
/// holds [i, i + 2^t), odd i [i + 1 - 2^t, i + 1), round the ring.
NodeIntervals alg2_span(int n, int t, int k) {
  const long long len = std::min<long long>(1LL << std::min(t, 40), n);
  return k % 2 == 0 ? cyclic(n, k, len) : cyclic(n, k + 1 - len, len);
}

}  // namespace

long long ceil_log2(long long v) {
  long long k = 0;
  while ((1LL << k) < v) ++k;
  return k;
}

std::vector<std::vector<std::pair<Rank, Rank>>> halving_broadcast(Rank lo, Rank hi, Rank root) {
  struct Part {
    Rank lo, hi, root;
  };
  std::vector<std::vector<std::pair<Rank, Rank>>> rounds;
  std::vector<Part> parts{{lo, hi, root}};
  for (std::size_t round = 0; !parts.empty(); ++round) {
    std::vector<Part> next;
    for (const Part& p : parts) {
      if (p.hi - p.lo <= 1) continue;
      if (rounds.size() <= round) rounds.emplace_back();
      const Rank mid = p.lo + (p.hi - p.lo + 1) / 2;
      const bool low = p.root < mid;
      const Rank callee = low ? mid : mid - 1;
      rounds[round].emplace_back(p.root, callee);
      next.push_back({p.lo, mid, low ? p.root : callee});
      next.push_back({mid, p.hi, low ? callee : p.root});
    }
    parts = std::move(next);
  }
  return rounds;
}

std::vector<HalvingCall> halving_calls_of(Rank lo, Rank hi, Rank root, Rank self) {
  std::vector<HalvingCall> out;
  for (int depth = 0; hi - lo > 1; ++depth) {
    const Rank mid = lo + (hi - lo + 1) / 2;
    const bool low = root < mid;
    const Rank callee = low ? mid : mid - 1;
    if (self == root || self == callee) out.push_back({depth, root, callee, low ? mid : lo, low ? hi : mid});
    if (self < mid) {
      hi = mid;
      if (!low) root = callee;
    } else {
      lo = mid;
      if (low) root = callee;
    }
  }
  return out;
}

std::vector<GossipRound> complete_gossip(int r) {
  std::vector<GossipRound> out;
  auto alg2 = [&](int n) {
    for (long long j = 1; j <= ceil_log2(n); ++j) {
      GossipRound g{{}, n};
      for (int i = 0; i < n; i += 2) g.pairs.emplace_back(i, static_cast<int>((i + (1LL << j) - 1) % n));
      out.push_back(std::move(g));
    }
  };
  if (r <= 1) return out;
  if (r % 2 == 0) {
    alg2(r);
    return out;
  }
  const int m = r / 2;
  GossipRound ends{{}, r};
  for (int i = 1; i <= m; ++i) ends.pairs.emplace_back(i, i + m);
  out.push_back(ends);
  alg2(m % 2 ? m + 1 : m + 2);
  out.push_back(ends);
  return out;
}

int gossip_round_count(int r) {
  if (r <= 1) return 0;
  if (r % 2 == 0) return static_cast<int>(ceil_log2(r));
  const int m = r / 2;
  return 2 + static_cast<int>(ceil_log2(m % 2 ? m + 1 : m + 2));
}

std::pair<int, int> gossip_pair(int r, int t, int k) {
  if (r <= 1 || k < 0 || k >= r || t < 0) return {-1, -1};
  if (r % 2 == 0) return t < ceil_log2(r) ? alg2_pair(r, t + 1, k) : std::pair{-1, -1};
  const int m = r / 2, n = m % 2 ? m + 1 : m + 2;
  const int middle = static_cast<int>(ceil_log2(n));
  if (t == 0 || t == middle + 1) {
    if (k == 0) return {-1, -1};
    return k <= m ? std::pair{k, k + m} : std::pair{k - m, k};
  }
  return t <= middle ? alg2_pair(n, t, k) : std::pair{-1, -1};
}

int gossip_groups(int r, int t) {
  if (r % 2 == 0) return r;
  const int m = r / 2, n = m % 2 ? m + 1 : m + 2;
  return t >= 1 && t <= ceil_log2(n) ? n : r;
}

NodeIntervals gossip_holding(int r, int t, int k) {
  if (r % 2 == 0) return alg2_span(r, t, k);
  const int m = r / 2, n = m % 2 ? m + 1 : m + 2;
  const int middle = static_cast<int>(ceil_log2(n));
  if (t == 0 || r == 1) return {{k, k + 1}};
  if (t >= middle + 2) return {{0, r}};
  // Algorithm 3's first round paired i and i + m (1 <= i <= m); in the
  // middle rounds each of the first n nodes holds, for every node g of its
  // Algorithm 2 span, g and g's partner of that round.
  if (k >= n) return normalized({{k, k + 1}, {k - m, k - m + 1}});
  NodeIntervals out;
  for (const auto& [a, b] : alg2_span(n, t - 1, k)) {
    out.emplace_back(a, b);
    out.emplace_back(std::max(a, 1) + m, std::min(b, m + 1) + m);
    out.emplace_back(std::max(a, m + 1) - m, std::min(b, 2 * m + 1) - m);
  }
  return normalized(out);
}

NodeIntervals minus(const NodeIntervals& a, const NodeIntervals& b) {
  NodeIntervals out;
  std::size_t j = 0;
  for (auto [lo, hi] : a) {
    while (j < b.size() && b[j].second <= lo) ++j;
    for (std::size_t i = j; i < b.size() && b[i].first < hi; ++i) {
      if (b[i].first > lo) out.emplace_back(lo, b[i].first);
      lo = std::max(lo, b[i].second);
    }
    if (lo < hi) out.emplace_back(lo, hi);
  }
  return out;
}

}  // namespace torusgather
