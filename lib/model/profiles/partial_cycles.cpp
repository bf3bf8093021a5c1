// SPDX-License-Identifier: BSD-3-Clause
#include <algorithm>
#include <vector>

#include "model/profiles/profiles.hpp"

namespace torusgather {
namespace profiles {

namespace {

/// One feeding: rank `to`, off cycle `c`, fed by its neighbour `from`
/// through `port` (from's side), as its feeder `which`.
struct Feed {
  Rank from, to;
  int c, which;
  Port port;
  PartialCyclesSchedule::Feeders f;
};

}  // namespace

/// Every rank's sends, round by round, as its program makes them (both ways
/// round each cycle it lies on, and the feeding of its off-cycle
/// neighbours), charged as profile() charges them, without the programs:
/// the feedings and each rank's cycle ports are listed once. O(P d) per
/// round; partial-cycles has ceil(m/2) of them, m >= P/d.
CostProfile partial_cycles(const PartialCyclesSchedule& s, int node_ranks) {
  const Torus& t = s.torus();
  const Rank P = t.size();
  const int d = s.cycles(), ports = t.ports();
  const long long m = s.cycle_length();
  const NodeAxis node = node_axis_of(t, node_ranks);
  const int k = node.axis >= 0 ? node_ranks : 1;
  // A message on a side of 2 with one link takes it as +, as dimension order routes it.
  auto link_port = [&t](Port p) { return t.shared_link(port_axis(p)) ? make_port(port_axis(p), true) : p; };
  std::vector<Feed> feeds;
  for (Rank r = 0; r < P; ++r)
    for (int c = 0; c < d; ++c)
      if (s.position(r, c) < 0)
        for (int w = 0; w < 2; ++w) {
          const Port in = s.feed_port(r, c, w);
          feeds.push_back({t.neighbor(r, in), r, c, w, opposite(in), s.feeders(r, c)});
        }
  // Each cycle's positions, listed once: who injects there, and each
  // position's send both ways round.
  struct CycleSend {
    Rank from, to;
    Port port;
  };
  std::vector<char> injected(static_cast<std::size_t>(d * m));
  std::vector<CycleSend> cycle_sends(static_cast<std::size_t>(d * m * 2));
  for (int c = 0; c < d; ++c)
    for (long long q = 0; q < m; ++q) {
      const Rank r = s.at(c, q);
      injected[static_cast<std::size_t>(c * m + q)] = s.injects(r, c);
      for (int w = 0; w < 2; ++w) {
        const int dir = w == 0 ? 1 : -1;
        cycle_sends[static_cast<std::size_t>((c * m + q) * 2 + w)] = {r, s.at(c, q + dir), s.cycle_port(r, c, dir)};
      }
    }
  std::vector<double> link(static_cast<std::size_t>(P * ports), 0), recv(static_cast<std::size_t>(P), 0);
  std::vector<int> sends(static_cast<std::size_t>(P), 0), recvs(sends);
  CostProfile out;
  for (long long round = 1; round <= s.rounds(); ++round) {
    std::fill(link.begin(), link.end(), 0.0);
    std::fill(recv.begin(), recv.end(), 0.0);
    std::fill(sends.begin(), sends.end(), 0);
    std::fill(recvs.begin(), recvs.end(), 0);
    RoundCost cost;
    auto send = [&](Rank from, Rank to, Port p, double blocks) {
      p = link_port(p);
      const bool on_node = k > 1 && port_axis(p) == node.axis;
      const Rank owner = k > 1 && !on_node ? from - from % k : from;
      double& l = link[static_cast<std::size_t>(owner * ports + p)];
      l += blocks;
      double& most = on_node ? cost.node_blocks : cost.link_blocks;
      most = std::max(most, l);
      cost.sends = std::max(cost.sends, ++sends[static_cast<std::size_t>(from)]);
      cost.recvs = std::max(cost.recvs, ++recvs[static_cast<std::size_t>(to)]);
      cost.recv_blocks = std::max(cost.recv_blocks, recv[static_cast<std::size_t>(to)] += blocks);
      cost.hops = 1;
    };
    if (round <= s.cycle_rounds()) {
      const bool halves = !s.time_independent() && m % 2 == 0 && round == m / 2;
      for (int w = 0; w < 2; ++w) {
        // Position q sends the block injected at q - dir·(round - 1).
        const long long shift = ((-(w == 0 ? 1 : -1) * (round - 1)) % m + m) % m;
        for (int c = 0; c < d; ++c)
          for (long long q = 0; q < m; ++q) {
            long long from = q + shift;
            if (from >= m) from -= m;
            if (!injected[static_cast<std::size_t>(c * m + from)]) continue;
            const CycleSend& x = cycle_sends[static_cast<std::size_t>((c * m + q) * 2 + w)];
            send(x.from, x.to, x.port, halves ? 0.5 : 1.0);
          }
      }
    }
    long long p = 0;
    bool relay = false;
    for (const Feed& f : feeds)
      if (s.fed_from(f.f, f.which, round, &p, &relay)) {
        p %= m;
        if (injected[static_cast<std::size_t>(f.c * m + (p < 0 ? p + m : p))]) send(f.from, f.to, f.port, 1.0);
      }
    out.add(cost);
  }
  return out;
}

}  // namespace profiles
}  // namespace torusgather
