// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/bridgehead_ring.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstdint>
#include <tuple>
#include <utility>

#include "schedule/process_memo.hpp"
#include "schedule/ring_gossip.hpp"

namespace torusgather {
namespace bridgehead_ring {

using namespace ring_gossip;

namespace {

/// Phase 1: concentrate each segment into its bridgehead.
void ring_phase1(GossipBuilder& builder, int n, const RingParams& p) {
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
        builder.call_line(segs[g].start + m.from, make_port(0, m.to > m.from), std::abs(m.to - m.from));
    }
  }
}

/// Phase 2: approach 1 among the bridgeheads, both ways round.
void ring_phase2(GossipBuilder& builder, int n, const RingParams& p) {
  const auto heads0 = initial_heads(n, p.a);
  const auto gap0 = gaps(heads0, n);
  if (p.a >= 2)
    for (int step = 0; step < p.a / 2; ++step) {
      builder.next_round();
      for (std::size_t h = 0; h < heads0.size(); ++h) {
        const std::size_t prev = (h + heads0.size() - 1) % heads0.size();
        builder.call_line(heads0[h], make_port(0, true), gap0[h]);
        builder.call_line(heads0[h], make_port(0, false), gap0[prev]);
      }
    }
}

/// Phase 3: each bridgehead holds the ring's data; cut it in k packets
/// of n/k positions and pipeline them to the new bridgeheads. A call
/// carries its packet less what the callee has or gets earlier in the
/// step (the caller holds the packet: the simulator checks it).
void ring_phase3(GossipBuilder& builder, int n, const RingParams& p) {
  std::vector<std::vector<std::uint64_t>> packets(static_cast<std::size_t>(p.k), builder.mask());
  for (int c = 0; c < p.k; ++c) {
    const auto run = packet_run(n, p.k, c);
    for (int x = run.first; x < run.second; ++x) packets[static_cast<std::size_t>(c)][static_cast<std::size_t>(x / 64)] |= 1ull << (x % 64);
  }
  for (const auto& round : chain_rounds(n, p.a, p.b, p.k)) {
    for (const auto& step : round) {
      builder.next_round();
      for (const auto& c : step)
        builder.call_line(c.from, make_port(0, c.plus), c.dist, &packets[static_cast<std::size_t>(c.packet)]);
    }
  }
}

/// Phase 2's calls without the holdings: in step j bridgehead h has the
/// segments h - j .. h + j, so it sends segment h - j on and h + j back
/// (ring_phase2's calls). In the last step of an even a both reach the
/// callee's one missing segment, which only the call made first carries.
/// count(from, to, blocks) for each call that carries anything, O(a) a
/// step; repeat() for a step whose calls are the last step's (segments
/// all alike and not the last step of an even a).
template <class Count, class Repeat>
void count_phase2(int n, const RingParams& p, GossipBuilder& builder, Count&& count, Repeat&& repeat) {
  const int a = p.a;
  if (a < 2) return;
  const auto heads = initial_heads(n, a);
  const auto segs = segments(n, a);
  const bool alike = n % a == 0;  // segments of n/a
  auto at = [a](long long i) { return static_cast<std::size_t>(((i % a) + a) % a); };
  for (int j = 0; j < a / 2; ++j) {
    builder.next_round();
    const bool last_even = 2 * j + 2 == a;
    if (alike && j > 0 && !last_even) {
      repeat();
      continue;
    }
    for (int h = 0; h < a; ++h) {
      // + to h + 1 (made in iteration h, first), - to h - 1 (iteration h, second).
      const int up = static_cast<int>(at(h + 1)), down = static_cast<int>(at(h - 1));
      bool plus_carries = true, minus_carries = true;
      if (last_even) {
        // The other call to the same callee: - from up + 1, + from down - 1.
        plus_carries = std::make_pair(h, 0) < std::make_pair(static_cast<int>(at(up + 1)), 1);
        minus_carries = std::make_pair(h, 1) < std::make_pair(static_cast<int>(at(down - 1)), 0);
      }
      if (plus_carries) count(heads[static_cast<std::size_t>(h)], heads[static_cast<std::size_t>(up)], segs[at(h - j)].length);
      if (minus_carries) count(heads[static_cast<std::size_t>(h)], heads[static_cast<std::size_t>(down)], segs[at(h + j)].length);
    }
  }
  // Every bridgehead now holds the whole ring.
  std::vector<std::uint64_t> all = builder.mask();
  for (int x = 0; x < n; ++x) all[static_cast<std::size_t>(x / 64)] |= 1ull << (x % 64);
  for (int h : heads) builder.give(h, all);
}

}  // namespace

std::shared_ptr<const std::vector<BridgeheadSchedule::RoundLoad>> ring_loads(int n, const RingParams& p) {
  using Loads = std::vector<BridgeheadSchedule::RoundLoad>;
  static ProcessMemo<std::tuple<int, int, int, int>, Loads> known;
  return known.get(std::make_tuple(n, p.a, p.b, p.k), [&] {
    auto loads = std::make_shared<Loads>();
    GossipBuilder builder = ring_builder(n);
    std::vector<long long> link(static_cast<std::size_t>(2 * n)), recv(static_cast<std::size_t>(n));
    std::vector<int> sends(static_cast<std::size_t>(n)), recvs(static_cast<std::size_t>(n));
    long long current = 0;
    bool copied = false;  // the current round's loads are a copy of the round before's
    auto close = [&] {
      if (current == 0 || std::exchange(copied, false)) return;
      BridgeheadSchedule::RoundLoad& l = (*loads)[static_cast<std::size_t>(current - 1)];
      l.link_blocks = static_cast<double>(*std::max_element(link.begin(), link.end()));
      l.recv_blocks = static_cast<double>(*std::max_element(recv.begin(), recv.end()));
      l.sends = *std::max_element(sends.begin(), sends.end());
      l.recvs = *std::max_element(recvs.begin(), recvs.end());
      std::fill(link.begin(), link.end(), 0);
      std::fill(recv.begin(), recv.end(), 0);
      std::fill(sends.begin(), sends.end(), 0);
      std::fill(recvs.begin(), recvs.end(), 0);
    };
    auto count = [&](long long round, Rank from, Rank to, long long blocks) {
      while (current < round) {
        close();
        loads->emplace_back();
        ++current;
      }
      // An MPI message: the network takes the shorter way round (+ on a
      // tie), whatever way the paper drew, as profile() charges it.
      const int ahead = static_cast<int>(((to - from) % n + n) % n);
      const bool plus = ahead <= n - ahead;
      const int hops = plus ? ahead : n - ahead;
      const int port = make_port(0, plus);
      for (int k = 0, at = static_cast<int>(from); k < hops; ++k) {
        const auto i = static_cast<std::size_t>(2 * at + port);
        link[i] += blocks;
        at = plus ? (at + 1 == n ? 0 : at + 1) : (at == 0 ? n - 1 : at - 1);
      }
      recv[static_cast<std::size_t>(to)] += blocks;
      ++sends[static_cast<std::size_t>(from)];
      ++recvs[static_cast<std::size_t>(to)];
      BridgeheadSchedule::RoundLoad& l = (*loads)[static_cast<std::size_t>(round - 1)];
      l.hops = std::max(l.hops, hops);
    };
    builder.count_to(count);
    ring_phase1(builder, n, p);
    count_phase2(
        n, p, builder, [&](Rank from, Rank to, long long blocks) { count(builder.rounds(), from, to, blocks); },
        [&] {
          close();
          loads->push_back(loads->back());
          ++current;
          copied = true;
        });
    ring_phase3(builder, n, p);
    close();
    loads->resize(static_cast<std::size_t>(builder.rounds()));
    return loads;
  });
}

GossipBuilder ring_builder(int n) {
  GossipBuilder builder(n, [n](Rank r, Port port) {
    return port_plus(port) ? (r + 1 == n ? 0 : r + 1) : (r == 0 ? n - 1 : r - 1);
  });
  builder.lines_by([n](Rank r, Port port, int hops) {
    return static_cast<Rank>(((port_plus(port) ? r + hops : r - hops) % n + n) % n);
  });
  return builder;
}

void ring_generate(GossipBuilder& builder, int n, const RingParams& p) {
  ring_phase1(builder, n, p);
  ring_phase2(builder, n, p);
  ring_phase3(builder, n, p);
}

}  // namespace bridgehead_ring
}  // namespace torusgather
