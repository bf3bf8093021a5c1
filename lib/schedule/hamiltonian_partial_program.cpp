// SPDX-License-Identifier: BSD-3-Clause
// hamiltonian-partial's program: one rank's rounds, every position it sends
// or receives a cursor stepped one place along its cycle per round.
#include <cstdint>
#include <memory>
#include <vector>

#include "schedule/hamiltonian_partial.hpp"

namespace torusgather {

namespace {

/// One rank: both ways round each cycle it lies on (out of its last position
/// forward, its first backward), fed on the cycle it is off, and sending the
/// streams its neighbours off a cycle are fed through it. Every position it
/// sends or receives moves by one along a cycle per round, so each is a
/// cursor stepped once a round: O(1) state, no table of positions.
class HamiltonianPartialProgram final : public RankProgram {
  using Place = HamiltonianPartialSchedule::Place;
  struct Cursor {
    Place x;
    int k = 0;
  };

 public:
  HamiltonianPartialProgram(const HamiltonianPartialSchedule& s, Rank self) : s_(s), self_(s.place(self)) {
    for (int c = 0; c < 2; ++c) {
      const int n = s.positions(self_, c);
      if (n == 0) continue;
      Cycle& cy = cycles_[cy_count_++];
      cy.c = c;
      cy.n = n;
      cy.fwd = s.cycle_port(self_, c, +1);
      cy.bwd = s.cycle_port(self_, c, -1);
      cy.next_one = s.positions(s.moved(self_, cy.fwd), c) == 1;
      cy.prev_one = s.positions(s.moved(self_, cy.bwd), c) == 1;
      cy.send_fwd = {self_, n - 1};
      cy.recv_bwd = {self_, 0};
      s.step(&cy.recv_bwd.x, &cy.recv_bwd.k, c, -1);
      cy.send_bwd = {self_, 0};
      cy.recv_fwd = {self_, n - 1};
      s.step(&cy.recv_fwd.x, &cy.recv_fwd.k, c, +1);
    }
    const Torus& t = s.torus();
    const int off = s.off_cycle(self_);
    if (off >= 0)
      for (int w = 0; w < 2; ++w) add(self, w, s.feed(self, w).port, true);
    // Feeding: a neighbour off a cycle that receives one of its streams from
    // us (as its feeder on that cycle, or as the other relaying rank).
    for (int a : {s.row_axis(), s.column_axis()})
      for (bool plus : {false, true}) {
        const Port p = make_port(a, plus);
        const Rank y = t.neighbor(self, p);
        if (s.off_cycle(y) < 0) continue;
        for (int w = 0; w < 2; ++w)
          if (s.feed(y, w).port == opposite(p)) add(y, w, p, false);
      }
  }

  void next_round(RoundOps& ops) override {
    ops.clear();
    const long long t = ++round_;
    if (t > s_.rounds()) return;
    auto transfer = [&](Port port, int c, const Cursor& at, std::uint8_t half) {
      const int part = s_.positions(at.x, c) == 2 ? at.k : c;
      const Piece piece{static_cast<std::uint16_t>(part), 2, half};
      return Transfer{port, {s_.rank(at.x), 0}, piece};
    };
    for (int i = 0; i < cy_count_; ++i) {
      Cycle& cy = cycles_[i];
      const int c = cy.c;
      const long long M = s_.cycle_positions(c);
      if (t > M / 2) continue;
      const bool last_round = t == M / 2;
      // In the last round a rank of one position gets its antipode in halves
      // from both sides; a rank of two positions got both of its antipodes in
      // the round before (from the other side) and gets nothing.
      const bool next_takes = !last_round || cy.next_one;
      const bool prev_takes = !last_round || cy.prev_one;
      const bool self_takes = !last_round || cy.n == 1;
      const std::uint8_t h1 = last_round ? 1 : 0, h2 = last_round ? 2 : 0;
      if (next_takes) ops.sends.push_back(transfer(cy.fwd, c, cy.send_fwd, h1));
      if (self_takes) ops.recvs.push_back(transfer(cy.bwd, c, cy.recv_bwd, h1));
      if (prev_takes) ops.sends.push_back(transfer(cy.bwd, c, cy.send_bwd, h2));
      if (self_takes) ops.recvs.push_back(transfer(cy.fwd, c, cy.recv_fwd, h2));
      s_.step(&cy.send_fwd.x, &cy.send_fwd.k, c, -1);
      s_.step(&cy.recv_bwd.x, &cy.recv_bwd.k, c, -1);
      s_.step(&cy.send_bwd.x, &cy.send_bwd.k, c, +1);
      s_.step(&cy.recv_fwd.x, &cy.recv_fwd.k, c, +1);
    }
    for (Run& run : runs_) {
      const auto& st = run.stream;
      const long long u = t - st.delay;
      if (u < 1 || u > st.n) continue;
      // A relayed position the fed rank's own feeder brings too is not passed on.
      const bool sent =
          st.delay == 0 || !HamiltonianPartialSchedule::brought_anyway(st, run.own, u, s_.cycle_positions(run.c));
      Cursor& at = u <= st.k ? run.back : run.fwd;
      if (sent) (run.recv ? ops.recvs : ops.sends).push_back(transfer(run.port, run.c, at, 0));
      s_.step(&at.x, &at.k, run.c, u <= st.k ? -1 : +1);
    }
  }

 private:
  struct Cycle {
    int c = 0, n = 0;
    Port fwd = -1, bwd = -1;
    bool next_one = false, prev_one = false;  ///< the neighbours hold one position
    Cursor send_fwd, recv_bwd, send_bwd, recv_fwd;
  };
  /// A stream of off-cycle rank `fed` this rank receives (recv) or sends
  /// on `port`: its positions backwards from the anchor's last, then
  /// forwards from the one after it.
  struct Run {
    Port port;
    int c, which;
    Rank fed;
    bool recv;
    HamiltonianPartialSchedule::Stream stream, own;  ///< own: the fed rank's other stream
    Cursor back, fwd;
  };
  void add(Rank fed, int which, Port port, bool recv) {
    Run run{port, s_.off_cycle(fed), which, fed, recv, s_.feed(fed, which), s_.feed(fed, 1 - which), {}, {}};
    const Place a = s_.place(run.stream.anchor);
    run.back = {a, s_.positions(a, run.c) - 1};
    run.fwd = run.back;
    s_.step(&run.fwd.x, &run.fwd.k, run.c, +1);
    runs_.push_back(run);
  }

  const HamiltonianPartialSchedule& s_;
  Place self_;
  Cycle cycles_[2];
  int cy_count_ = 0;
  std::vector<Run> runs_;
  long long round_ = 0;
};

}  // namespace

std::unique_ptr<RankProgram> HamiltonianPartialSchedule::program(Rank r) const {
  return std::make_unique<HamiltonianPartialProgram>(*this, r);
}

}  // namespace torusgather
