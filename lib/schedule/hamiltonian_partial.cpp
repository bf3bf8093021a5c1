#include "schedule/hamiltonian_partial.hpp"

#include <algorithm>
#include <stdexcept>

#include "schedule/hamiltonian.hpp"

namespace torusgather {

std::string HamiltonianPartialSchedule::not_applicable(const Torus& t) {
  const auto active = t.active_axes();
  if (active.size() != 2) return "§3.2 is for 2D tori (two sides > 1)";
  const int a = t.dim(active[0]), b = t.dim(active[1]);
  if (a % 2 == 1 && b % 2 == 1) return "both sides odd: §3.3 needs its Figure 4, not built";
  if (a % 2 == 0 && b % 2 == 0) return "both sides even: §3.1's full cycles apply (hamiltonian)";
  if ((a % 2 == 0 ? a : b) < 4)
    return "the even side must be >= 4: with 2 rows a column rank's top and bottom feeder are one rank";
  return {};
}

Port HamiltonianPartialSchedule::rule(Rank r, Port in) const {
  const Torus& t = torus();
  if (t.coord(r, column_axis_) == t.dim(column_axis_) - 2) {
    // §3.2: "In Column n1 - 2 we perform L <-> R"; its T and B stay free.
    const Port left = make_port(column_axis_, false), right = make_port(column_axis_, true);
    return in == left ? right : in == right ? left : -1;
  }
  // §3.1's rules elsewhere; C is odd, so column C-1 is even anyway.
  return section31_partner(t, row_axis_, column_axis_, r, in);
}

HamiltonianPartialSchedule::HamiltonianPartialSchedule(const Torus& torus) : Schedule(torus) {
  const Torus& t = this->torus();
  if (std::string why = not_applicable(t); !why.empty()) throw std::invalid_argument("hamiltonian-partial: " + why);
  const auto active = t.active_axes();
  row_axis_ = t.dim(active[0]) % 2 == 0 ? active[0] : active[1];
  column_axis_ = row_axis_ == active[0] ? active[1] : active[0];
  const Rank P = t.size();
  const int R = t.dim(row_axis_), C = t.dim(column_axis_);
  const auto fail = [](const std::string& what) { throw std::invalid_argument("hamiltonian-partial: " + what); };

  first_.assign(static_cast<std::size_t>(2 * P), -1);
  port_.assign(static_cast<std::size_t>(4 * P), -1);
  seq_.reserve(static_cast<std::size_t>(2 * P));
  part_.reserve(static_cast<std::size_t>(2 * P));

  // Follow the strands of rank 0 (column 0, never special): cycle 0 leaves on
  // its right port, cycle 1 on its bottom port (the other strand of a rank
  // with T<->R, B<->L).
  const Port starts[2] = {make_port(column_axis_, true), make_port(row_axis_, true)};
  for (int c = 0; c < 2; ++c) {
    Rank r = 0;
    Port out = starts[c];
    long long ranks = 0;
    do {
      if (first_[static_cast<std::size_t>(r * 2 + c)] >= 0) fail("cycle " + std::to_string(c) + " is not simple");
      first_[static_cast<std::size_t>(r * 2 + c)] = static_cast<long long>(seq_.size()) - c * P;
      port_[static_cast<std::size_t>((r * 2 + c) * 2)] = out;
      port_[static_cast<std::size_t>((r * 2 + c) * 2 + 1)] = rule(r, out);
      // A rank of column C-2 lies on this cycle only: both parts of its
      // block become two consecutive positions here.
      const bool both = t.coord(r, column_axis_) == C - 2;
      for (int k = 0; k < (both ? 2 : 1); ++k) {
        seq_.push_back(r);
        part_.push_back(static_cast<std::uint8_t>(both ? k : c));
      }
      ++ranks;
      const Rank next = t.neighbor(r, out);
      const Port in = opposite(out);
      out = rule(next, in);
      if (out < 0) fail("a cycle enters a free link");
      if (next == 0 && in != rule(0, starts[c])) fail("rank 0's two strands are one cycle");
      r = next;
    } while (r != 0);
    if (static_cast<long long>(seq_.size()) != (c + 1) * P)
      fail("cycle " + std::to_string(c) + " carries " + std::to_string(seq_.size() - c * P) + " packets, not P");
    if (c == 0) cycle_ranks_ = ranks;
    if (ranks != P - R / 2) fail("cycle " + std::to_string(c) + " has " + std::to_string(ranks) + " ranks, not P - R/2");
  }

  // Every rank on both cycles but column C-2, whose ranks lie on one and are
  // fed the other's packets by their top and bottom neighbours over links no
  // cycle uses.
  const Port top = make_port(row_axis_, false), bottom = make_port(row_axis_, true);
  auto last = [&](Rank r, int c) { return position(r, c) + positions(r, c) - 1; };
  for (Rank x = 0; x < P; ++x) {
    const int off = off_cycle(x);
    const bool special = t.coord(x, column_axis_) == C - 2;
    if (special != (off >= 0) || (special && positions(x, 1 - off) != 2))
      fail("rank " + std::to_string(x) + " is not on the cycles §3.2 puts it on");
    if (off < 0) continue;
    const Rank up = t.neighbor(x, top), down = t.neighbor(x, bottom);
    if (position(up, off) < 0 || position(down, off) < 0 || rule(x, top) >= 0 || rule(x, bottom) >= 0 ||
        rule(up, bottom) >= 0 || rule(down, top) >= 0)
      fail("rank " + std::to_string(x) + " has no free feeders on cycle " + std::to_string(off));
    // The switching strategy needs A's last position K = 2C positions
    // behind B's last, K <= P/2 (R >= 4); checked, not assumed.
    const long long k = ((last(down, off) - last(up, off)) % P + P) % P;
    if (k != switch_round() || k > P / 2)
      fail("rank " + std::to_string(x) + "'s feeders are " + std::to_string(k) + " positions apart, not 2C");
  }
}

int HamiltonianPartialSchedule::positions(Rank r, int c) const {
  if (position(r, c) < 0) return 0;
  return torus().coord(r, column_axis_) == torus().dim(column_axis_) - 2 ? 2 : 1;
}

int HamiltonianPartialSchedule::off_cycle(Rank r) const {
  if (position(r, 0) < 0) return 0;
  if (position(r, 1) < 0) return 1;
  return -1;
}

long long HamiltonianPartialSchedule::fed_position(Rank r, int which, long long t) const {
  const int c = off_cycle(r);
  const Rank feeder = torus().neighbor(r, feed_port(which));
  const long long last = position(feeder, c) + positions(feeder, c) - 1;
  // A: its forward stream, last, last-1, ... (what it passes on anyway).
  if (which == 0) return last - (t - 1);
  // B: its forward stream down to A's last position + 1 (K rounds), then the
  // positions beyond itself, which its backward stream brought it: in round
  // t it holds last+1 .. last+t-1 of them and needs last+t-K, K >= 1.
  const long long k = switch_round();
  return t <= k ? last - (t - 1) : last + (t - k);
}

std::string HamiltonianPartialSchedule::construction() const {
  const Torus& t = torus();
  return "partial Hamiltonian cycles of Meyer & Sibeyn §3.2 (column " + std::to_string(t.dim(column_axis_) - 2) +
         " of " + std::to_string(t.dim(column_axis_)) + ": L<->R only), 2 x " + std::to_string(cycle_ranks_) +
         " ranks, column ranks fed by top and bottom with switching";
}

namespace {

/// One rank: both ways round each cycle it lies on (out of its last position
/// forward, its first backward), fed on the cycle it is off, and feeding its
/// top and bottom neighbours where they are off a cycle it is on.
class HamiltonianPartialProgram final : public RankProgram {
 public:
  HamiltonianPartialProgram(const HamiltonianPartialSchedule& s, Rank self) : s_(s), self_(self) {}

  void next_round(RoundOps& ops) override {
    ops.clear();
    const long long t = ++round_;
    const Torus& torus = s_.torus();
    const long long P = torus.size();
    if (t > s_.rounds()) return;
    const bool last_round = t == P / 2;
    auto transfer = [&](Port port, int c, long long p, std::uint8_t half) {
      const Piece piece{static_cast<std::uint16_t>(s_.part(c, p)), 2, half};
      return Transfer{port, {s_.at(c, p), 0}, piece};
    };
    for (int c = 0; c < 2; ++c) {
      const int n = s_.positions(self_, c);
      if (n == 0) {
        for (int w = 0; w < 2; ++w) ops.recvs.push_back(transfer(s_.feed_port(w), c, s_.fed_position(self_, w, t), 0));
        continue;
      }
      const long long first = s_.position(self_, c), last = first + n - 1;
      const Port fwd = s_.cycle_port(self_, c, +1), bwd = s_.cycle_port(self_, c, -1);
      // In the last round a rank of one position gets its antipode in halves
      // from both sides; a rank of two positions got both of its antipodes in
      // the round before (from the other side) and gets nothing.
      const bool next_takes = !last_round || s_.positions(torus.neighbor(self_, fwd), c) == 1;
      const bool prev_takes = !last_round || s_.positions(torus.neighbor(self_, bwd), c) == 1;
      const bool self_takes = !last_round || n == 1;
      const std::uint8_t h1 = last_round ? 1 : 0, h2 = last_round ? 2 : 0;
      if (next_takes) ops.sends.push_back(transfer(fwd, c, last - (t - 1), h1));
      if (self_takes) ops.recvs.push_back(transfer(bwd, c, first - t, h1));
      if (prev_takes) ops.sends.push_back(transfer(bwd, c, first + (t - 1), h2));
      if (self_takes) ops.recvs.push_back(transfer(fwd, c, last + t, h2));
      // Feeding: a top or bottom neighbour off this cycle whose feeder we are.
      // Our bottom port reaches the rank we are feeder A (top) of.
      for (int w = 0; w < 2; ++w) {
        const Port p = opposite(s_.feed_port(w));
        const Rank y = torus.neighbor(self_, p);
        if (s_.off_cycle(y) == c) ops.sends.push_back(transfer(p, c, s_.fed_position(y, w, t), 0));
      }
    }
  }

 private:
  const HamiltonianPartialSchedule& s_;
  Rank self_;
  long long round_ = 0;
};

}  // namespace

std::unique_ptr<RankProgram> HamiltonianPartialSchedule::program(Rank r) const {
  return std::make_unique<HamiltonianPartialProgram>(*this, r);
}

StructuralProof HamiltonianPartialSchedule::prove() const {
  // The constructor has checked: two simple cycles, made of strands of a
  // port pairing (so no link is on both, or twice on one), each of P virtual
  // positions, every (rank, part) at exactly one position; every rank of
  // column C-2 on one cycle, its top and bottom neighbours on the other,
  // over links no strand uses, B's last position 2C <= P/2 positions ahead
  // of A's. Then (header): each cycle brings every rank on it all of its
  // positions once in P/2 rounds, one message per directed link and round;
  // the switching feed brings each column rank the other cycle's positions
  // once in P/2 rounds over its two free links, each carrying one feed. So
  // every part reaches every rank once in P/2 rounds, at most one message
  // (one part, half a block) per directed link per round.
  StructuralProof proof;
  proof.supported = true;
  proof.complete = true;
  proof.rounds = rounds();
  proof.max_link_messages_per_round = 1;
  proof.max_link_blocks_per_round = 0.5;
  // Volume: each stream sends a part in rounds 1 .. P/2 - 1, and in the last
  // round half a part to a rank of one position, nothing to one of two; a
  // feeder sends P/2 parts to each rank it feeds.
  const Torus& t = torus();
  const Rank P = t.size();
  double most = 0;
  for (Rank r = 0; r < P; ++r) {
    double sent = 0;
    for (int c = 0; c < 2; ++c) {
      if (position(r, c) < 0) continue;
      for (int dir : {+1, -1}) {
        const Rank to = t.neighbor(r, cycle_port(r, c, dir));
        sent += 0.5 * static_cast<double>(P / 2 - 1) + (positions(to, c) == 1 ? 0.25 : 0.0);
      }
      for (int w = 0; w < 2; ++w)
        if (off_cycle(t.neighbor(r, opposite(feed_port(w)))) == c) sent += 0.5 * static_cast<double>(P / 2);
    }
    most = std::max(most, sent);
  }
  proof.volume_per_rank_blocks = most;
  proof.detail = construction();
  return proof;
}

}  // namespace torusgather
