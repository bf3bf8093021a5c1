// SPDX-License-Identifier: BSD-3-Clause
#include <algorithm>
#include <numeric>
#include <vector>

#include "model/profiles/profiles.hpp"

namespace torusgather {
namespace profiles {

namespace {

/// One feeding: a rank off cycle `c` fed by its neighbour, its feeder `which`.
struct Feed {
  int c, which;
  PartialCyclesSchedule::Feeders f;
};

/// The loads of the sends under way, per link and per rank (blocks in
/// halves), kept from one round to the next: a round changes only the
/// sends that start or stop, and its maxima are one pass over the arrays.
class Loads {
 public:
  Loads(std::size_t links, Rank ranks)
      : network_(links, 0), node_(links, 0), recv_(static_cast<std::size_t>(ranks), 0), sends_(recv_), recvs_(recv_) {}

  /// A send of `halves` half blocks starts (sign 1) or stops (sign -1).
  void change(std::size_t link, bool on_node, Rank from, Rank to, int halves, int sign) {
    (on_node ? node_ : network_)[link] += sign * halves;
    sends_[static_cast<std::size_t>(from)] += sign;
    recvs_[static_cast<std::size_t>(to)] += sign;
    recv_[static_cast<std::size_t>(to)] += sign * halves;
    under_way_ += sign;
  }
  /// The round's cost as profile() counts it for these sends.
  RoundCost cost() const {
    const auto most = [](const std::vector<int>& v) { return *std::max_element(v.begin(), v.end()); };
    RoundCost c;
    if (under_way_ == 0) return c;
    c.link_blocks = most(network_) / 2.0;
    c.node_blocks = most(node_) / 2.0;
    c.recv_blocks = most(recv_) / 2.0;
    c.sends = most(sends_);
    c.recvs = most(recvs_);
    c.hops = 1;
    return c;
  }

 private:
  std::vector<int> network_, node_, recv_, sends_, recvs_;
  long long under_way_ = 0;
};

/// The least T dividing m with x[q] == x[q + T] for every q (cyclically):
/// the period of the least period of the word, when that divides m.
long long cyclic_period(const char* x, long long m) {
  std::vector<long long> border(static_cast<std::size_t>(m), 0);  // prefix function
  for (long long i = 1, k = 0; i < m; ++i) {
    while (k > 0 && x[i] != x[k]) k = border[static_cast<std::size_t>(k - 1)];
    if (x[i] == x[k]) ++k;
    border[static_cast<std::size_t>(i)] = k;
  }
  const long long p = m - border[static_cast<std::size_t>(m - 1)];
  return m % p == 0 ? p : m;
}

}  // namespace

/// Every rank's sends, round by round, as its program makes them (both ways
/// round each cycle it lies on, and the feeding of its off-cycle
/// neighbours), charged as profile() charges them, without the programs.
/// The loads carry over from round to round: the cycles' sends shift by
/// one position per round, so only those next to where a run of injecting
/// positions ends start or stop, and each feeding is asked again. Between
/// two changes of rule every position sent moves by one per round, so the
/// sends repeat with the injecting pattern's period L: a round L after one
/// under the same rules costs what that one cost. O(P d) per round stepped.
CostProfile partial_cycles(const PartialCyclesSchedule& s, int node_ranks) {
  const Torus& t = s.torus();
  const Rank P = t.size();
  const int d = s.cycles(), ports = t.ports();
  const long long m = s.cycle_length();
  const NodeAxis node = node_axis_of(t, node_ranks);
  const int k = node.axis >= 0 ? node_ranks : 1;
  // The link a send from `from` through port p is charged to: a message on
  // a side of 2 with one link takes it as +, as dimension order routes it,
  // and a node's ranks share its network links.
  auto link_of = [&](Rank from, Port p, bool* on_node) {
    if (t.shared_link(port_axis(p))) p = make_port(port_axis(p), true);
    *on_node = k > 1 && port_axis(p) == node.axis;
    const Rank owner = k > 1 && !*on_node ? from - from % k : from;
    return static_cast<std::size_t>(owner * ports + p);
  };
  struct Send {
    Rank from, to;
    std::size_t link;
    bool on_node;
    int halves = 0;  ///< under way now, in half blocks (0: none)
  };
  std::vector<Feed> feeds;
  std::vector<Send> feed_sends;
  const std::vector<long long> positions = s.positions_table();
  for (Rank r = 0; r < P; ++r) {
    const PartialCyclesSchedule::Local own = s.local(r, positions);
    for (int c = 0; c < d; ++c)
      if (own.pos[static_cast<std::size_t>(c)] < 0)
        for (int w = 0; w < 2; ++w) {
          const Port in = own.feed[static_cast<std::size_t>(c)][static_cast<std::size_t>(w)];
          feeds.push_back({c, w, s.feeders(own, c)});
          Send x{t.neighbor(r, in), r, 0, false};
          x.link = link_of(x.from, opposite(in), &x.on_node);
          feed_sends.push_back(x);
        }
  }
  // Each cycle's positions, listed once: who injects there, and each
  // position's send both ways round; where the injecting runs end.
  std::vector<char> injected(static_cast<std::size_t>(d * m));
  std::vector<Send> cycle_sends(static_cast<std::size_t>(d * m * 2));
  std::vector<std::vector<long long>> ends(static_cast<std::size_t>(d));
  for (int c = 0; c < d; ++c) {
    for (long long q = 0; q < m; ++q) {
      bool injects = false;
      const Rank r = s.at(c, q, &injects);
      injected[static_cast<std::size_t>(c * m + q)] = injects;
      for (int w = 0; w < 2; ++w) {
        const int dir = w == 0 ? 1 : -1;
        Send& x = cycle_sends[static_cast<std::size_t>((c * m + q) * 2 + w)];
        x = {r, s.at(c, q + dir), 0, false};
        x.link = link_of(r, s.port_at(c, q, dir), &x.on_node);
      }
    }
    for (long long q = 0; q < m; ++q)
      if (injected[static_cast<std::size_t>(c * m + q)] != injected[static_cast<std::size_t>(c * m + (q + 1) % m)])
        ends[static_cast<std::size_t>(c)].push_back(q);
  }
  Loads loads(static_cast<std::size_t>(P * ports), P);
  const auto set = [&loads](Send& x, int halves) {
    if (x.halves == halves) return;
    if (x.halves > 0) loads.change(x.link, x.on_node, x.from, x.to, x.halves, -1);
    if (halves > 0) loads.change(x.link, x.on_node, x.from, x.to, halves, 1);
    x.halves = halves;
  };
  // x mod m, for x mostly within one cycle length of [0, m): without dividing there.
  const auto mod = [m](long long x) {
    if (x >= m) x = x - m < m ? x - m : x % m;
    if (x < 0) x = x + m >= 0 ? x + m : (x % m + m) % m;
    return x;
  };
  long long period = 1;
  for (int c = 0; c < d && period <= s.rounds(); ++c)
    period = std::lcm(period, cyclic_period(&injected[static_cast<std::size_t>(c * m)], m));
  const std::vector<long long> changes = s.rule_changes();
  std::size_t next_change = 0;
  long long rules_since = 1;  // the round the current rules began
  std::vector<RoundCost> costs(static_cast<std::size_t>(s.rounds() + 1));
  CostProfile out;
  int last_halves = -1;  // the cycles' block size last round (-1: no round yet, or rounds skipped)
  for (long long round = 1; round <= s.rounds(); ++round) {
    while (next_change < changes.size() && changes[next_change] <= round) rules_since = changes[next_change++];
    if (round - period >= rules_since) {
      costs[static_cast<std::size_t>(round)] = costs[static_cast<std::size_t>(round - period)];
      out.add(costs[static_cast<std::size_t>(round)]);
      last_halves = -1;
      continue;
    }
    // In half blocks: 2, or 1 at an even cycle's antipode when switching; 0 after the cycle rounds.
    const bool cycling = round <= s.cycle_rounds();
    const int halves = !cycling ? 0 : !s.time_independent() && m % 2 == 0 && round == m / 2 ? 1 : 2;
    for (int w = 0; w < 2; ++w) {
      // Position q sends the block injected at q - dir·(round - 1).
      const long long shift = mod(-(w == 0 ? 1 : -1) * (round - 1));
      const auto update = [&](int c, long long q) {
        set(cycle_sends[static_cast<std::size_t>((c * m + q) * 2 + w)],
            injected[static_cast<std::size_t>(c * m + mod(q + shift))] ? halves : 0);
      };
      for (int c = 0; c < d; ++c) {
        if (halves != last_halves) {
          for (long long q = 0; q < m; ++q) update(c, q);
        } else if (cycling) {
          // A shift by one changes a position's send only where a run of
          // injecting positions starts or ends next to it.
          for (long long e : ends[static_cast<std::size_t>(c)]) {
            update(c, mod(e - shift));
            update(c, mod(e + 1 - shift));
          }
        }
      }
    }
    last_halves = halves;
    long long p = 0;
    bool relay = false;
    for (std::size_t i = 0; i < feeds.size(); ++i) {
      const Feed& f = feeds[i];
      const bool on = s.fed_from(f.f, f.which, round, &p, &relay) &&
                      injected[static_cast<std::size_t>(f.c * m + mod(p))];
      set(feed_sends[i], on ? 2 : 0);
    }
    costs[static_cast<std::size_t>(round)] = loads.cost();
    out.add(costs[static_cast<std::size_t>(round)]);
  }
  return out;
}

}  // namespace profiles
}  // namespace torusgather
