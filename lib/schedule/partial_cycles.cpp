#include "schedule/partial_cycles.hpp"

#include <stdexcept>

namespace torusgather {
namespace {

long long mod(long long a, long long m) { return ((a % m) + m) % m; }

}  // namespace

std::string PartialCyclesSchedule::not_applicable(const Torus& t) {
  if (t.ndims() != 2) return "2D only (the 3D and d-dimensional constructions of §4.2-4.3 are not built yet)";
  const bool ok1 = t.dim(1) % 2 == 0 && t.dim(1) >= 4 && t.dim(0) >= 2;
  const bool ok0 = t.dim(0) % 2 == 0 && t.dim(0) >= 4 && t.dim(1) >= 2;
  if (!ok1 && !ok0)
    return "needs one side even and >= 4 and the other >= 2 (§4.1; the special column for odd sides is not built)";
  return {};
}

PartialCyclesSchedule::PartialCyclesSchedule(const Torus& t) : Schedule(t) {
  const std::string why = not_applicable(t);
  if (!why.empty()) throw std::invalid_argument("partial-cycles: " + why);
  // The cycles hold m = n1*(n2+2)/2 = P/2 + n1 ranks each: the paper's x1
  // (n1 even) is the smaller eligible side.
  const bool ok1 = t.dim(1) % 2 == 0 && t.dim(1) >= 4;
  const bool ok0 = t.dim(0) % 2 == 0 && t.dim(0) >= 4;
  if (ok1 && (!ok0 || t.dim(1) <= t.dim(0))) {
    x1_ = 1;
    x2_ = 0;
  } else {
    x1_ = 0;
    x2_ = 1;
  }
  n1_ = t.dim(x1_);
  n2_ = t.dim(x2_);
}

std::string PartialCyclesSchedule::construction() const {
  return "two partial cycles of " + std::to_string(cycle_length()) + " ranks, zigzag (1,2,1), x1 = axis " +
         std::to_string(x1_) + " (§4.1)";
}

Rank PartialCyclesSchedule::at(int c, long long p) const {
  const long long L = n2_ + 2;  // lap length
  const long long i = mod(p, cycle_length()) / L, o = mod(p, cycle_length()) % L;
  long long x1, x2;
  if (o == 0) x1 = 2 * i + c, x2 = 0;
  else if (o == 1) x1 = 2 * i + c + 1, x2 = 0;
  else if (o == 2) x1 = 2 * i + c + 1, x2 = 1;
  else x1 = 2 * i + c + 2, x2 = o - 2;  // o = 3..n2+1: x2 = 1..n2-1
  std::vector<int> coords(2);
  coords[x1_] = static_cast<int>(mod(x1, n1_));
  coords[x2_] = static_cast<int>(x2);
  return torus().rank(coords);
}

long long PartialCyclesSchedule::position(Rank r, int c) const {
  const long long L = n2_ + 2, laps = n1_ / 2;
  const long long u = mod(torus().coord(r, x1_) - c, n1_);
  const int x2 = torus().coord(r, x2_);
  if (x2 == 0) return u % 2 == 0 ? (u / 2) * L : ((u - 1) / 2) * L + 1;
  if (x2 == 1) return u % 2 == 1 ? ((u - 1) / 2) * L + 2 : mod((u - 2) / 2, laps) * L + 3;
  if (u % 2 == 1) return -1;  // rows x2 >= 2 of the other parity: off this cycle
  return mod((u - 2) / 2, laps) * L + x2 + 2;
}

bool PartialCyclesSchedule::injects(Rank r, int c) const {
  const bool on0 = position(r, 0) >= 0, on1 = position(r, 1) >= 0;
  if (on0 && on1) return c == (torus().coord(r, x1_) + torus().coord(r, x2_)) % 2;  // balance rows 0 and 1
  return c == (on0 ? 0 : 1);
}

Port PartialCyclesSchedule::cycle_port(Rank r, int c, int dir) const {
  const long long p = position(r, c);
  const Rank other = at(c, p + dir);
  // Consecutive ranks differ along exactly one axis, by +1 when going forward.
  for (int axis : {x1_, x2_})
    if (torus().shift(r, axis, dir) == other && torus().coord(r, axis == x1_ ? x2_ : x1_) ==
                                                    torus().coord(other, axis == x1_ ? x2_ : x1_))
      return make_port(axis, dir > 0);
  return -1;
}

namespace {

/// Feeding an off-cycle rank C from its x1 neighbours A (behind, at position
/// a) and B (ahead, at a + l + 1) on cycle c, m positions (§3.2's switching
/// strategy, with blocks the feeders already hold): in round s, A sends
/// position a - (s-1) (s = 1..ceil(m/2)); B sends a + l + 1 - (s-1) while
/// s <= l+1, then a + s (s <= floor(m/2)). A covers a, a-1, ..., B covers the
/// l + 1 positions between and beyond; together every position once, each
/// sent after it reached its feeder.
/// False when that feeder sends nothing in round s; positions are mod m.
bool feed_position(bool from_a, long long a, long long l, long long m, long long s, long long* p) {
  if (from_a) {
    *p = a - (s - 1);
    return s <= (m + 1) / 2;
  }
  *p = s <= l + 1 ? a + l + 1 - (s - 1) : a + s;
  return s <= m / 2;
}

class PartialCyclesProgram final : public RankProgram {
 public:
  PartialCyclesProgram(const PartialCyclesSchedule& s, Rank self) : s_(s), self_(self) {}

  void next_round(RoundOps& ops) override {
    ops.clear();
    ++round_;
    const Torus& t = s_.torus();
    const long long m = s_.cycle_length();
    const Piece whole{0, 1, 0};
    auto block = [](Rank r) { return BlockSet{r, 0}; };
    for (int c = 0; c < 2; ++c) {
      const long long q = s_.position(self_, c);
      if (q >= 0) {
        // On the cycle: both directions, as in §3 (halves at the antipode of an even cycle).
        const long long t_ = round_;
        const bool halves = m % 2 == 0 && t_ == m / 2;
        if (t_ <= m / 2) {
          for (int dir : {+1, -1}) {
            // Received from the neighbour at q - dir: the block from q - dir*t.
            const Rank origin = s_.at(c, q - dir * t_);
            Piece in = whole;
            if (halves) in.half = dir > 0 ? 1 : 2;
            if (s_.injects(origin, c)) ops.recvs.push_back({s_.cycle_port(self_, c, -dir), block(origin), in});
            const Rank fwd = s_.at(c, q - dir * (t_ - 1));
            if (s_.injects(fwd, c)) ops.sends.push_back({s_.cycle_port(self_, c, dir), block(fwd), in});
          }
        }
        // Feeding the off-cycle x1 neighbours.
        for (int side : {+1, -1}) {
          const Rank nb = t.shift(self_, s_.x1_axis(), side);
          if (s_.position(nb, c) >= 0) continue;
          // side +1: nb is ahead of us along x1, so we are its A; else its B.
          const bool is_a = side > 0;
          const Rank a_rank = is_a ? self_ : t.shift(nb, s_.x1_axis(), -1);
          const Rank b_rank = is_a ? t.shift(nb, s_.x1_axis(), 1) : self_;
          const long long a = s_.position(a_rank, c), b = s_.position(b_rank, c);
          const long long l = ((b - a) % m + m) % m - 1;
          long long p = 0;
          if (!feed_position(is_a, a, l, m, round_, &p)) continue;
          const Rank origin = s_.at(c, p);
          if (s_.injects(origin, c))
            ops.sends.push_back({make_port(s_.x1_axis(), side > 0), block(origin), whole});
        }
      } else {
        // Off the cycle: fed by the x1 neighbours A (behind, -x1) and B (ahead, +x1).
        const Rank a_rank = t.shift(self_, s_.x1_axis(), -1), b_rank = t.shift(self_, s_.x1_axis(), 1);
        const long long a = s_.position(a_rank, c), b = s_.position(b_rank, c);
        const long long l = ((b - a) % m + m) % m - 1;
        for (bool from_a : {true, false}) {
          long long p = 0;
          if (!feed_position(from_a, a, l, m, round_, &p)) continue;
          const Rank origin = s_.at(c, p);
          if (s_.injects(origin, c))
            ops.recvs.push_back({make_port(s_.x1_axis(), !from_a), block(origin), whole});
        }
      }
    }
  }

 private:
  const PartialCyclesSchedule& s_;
  Rank self_;
  long long round_ = 0;
};

}  // namespace

std::unique_ptr<RankProgram> PartialCyclesSchedule::program(Rank r) const {
  return std::make_unique<PartialCyclesProgram>(*this, r);
}

}  // namespace torusgather
