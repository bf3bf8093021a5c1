// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/phases.hpp"

namespace torusgather {

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

}  // namespace torusgather
