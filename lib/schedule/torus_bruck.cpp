// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/torus_bruck.hpp"

#include <algorithm>
#include <stdexcept>

namespace torusgather {

namespace {

/// The rounds of one axis of side n with radix k (see the header).
std::vector<TorusBruckSchedule::Round> axis_rounds(int axis, long long n, int k) {
  std::vector<TorusBruckSchedule::Round> out;
  const long long up = k / 2, down = (k - 1) / 2;  // partners up and down the ring
  long long low = 0, high = 0;                      // the interval [x - low, x + high]
  while (low + high + 1 < n) {
    const long long m = low + high + 1;
    long long left = n - m;
    TorusBruckSchedule::Round round;
    round.axis = axis;
    long long got_up = 0, got_down = 0;
    // Nearest partners first, alternating up and down: a cut-short round
    // keeps its routes short.
    for (long long j = 1; j <= std::max(up, down) && left > 0; ++j) {
      if (j <= up && left > 0) {
        // From x + j*m: its lowest positions, next above the interval.
        const long long c = std::min(m, left);
        round.parts.push_back({j * m, high + 1 + (j - 1) * m, c, {}});
        got_up += c;
        left -= c;
      }
      if (j <= down && left > 0) {
        // From x - j*m: its highest positions, next below the interval.
        const long long c = std::min(m, left);
        round.parts.push_back({-j * m, -low - (j - 1) * m - c, c, {}});
        got_down += c;
        left -= c;
      }
    }
    for (auto& p : round.parts) {
      // The sender sends to itself - delta: the shorter way round.
      const long long ahead = ((-p.delta) % n + n) % n;
      const bool plus = ahead <= n - ahead;
      p.route.assign(static_cast<std::size_t>(plus ? ahead : n - ahead), make_port(axis, plus));
    }
    high += got_up;
    low += got_down;
    out.push_back(std::move(round));
  }
  return out;
}

long long ceil_log(long long n, long long k) {
  long long rounds = 0;
  for (long long m = 1; m < n; m *= k) ++rounds;
  return rounds;
}

}  // namespace

std::string TorusBruckSchedule::not_applicable(const Torus& torus) {
  return torus.size() < 2 ? "needs at least 2 ranks" : "";
}

long long TorusBruckSchedule::formula_rounds(const Torus& torus, int radix) {
  long long rounds = 0;
  for (int a = 0; a < torus.ndims(); ++a) rounds += ceil_log(torus.dim(a), radix);
  return rounds;
}

TorusBruckSchedule::TorusBruckSchedule(const Torus& torus, int radix) : Schedule(torus), radix_(radix) {
  if (radix < 2) throw std::invalid_argument("torus-bruck: the radix must be at least 2");
  // The fastest axis first: a rank's blocks then stay one or two ranges of
  // the row-major buffer.
  for (int a = torus.ndims() - 1; a >= 0; --a) {
    if (torus.dim(a) < 2) continue;
    for (auto& round : axis_rounds(a, torus.dim(a), radix)) rounds_.push_back(std::move(round));
  }
  for (const Round& round : rounds_) {
    // Every rank sends each part along the same number of links the same
    // way, so each of those links carries one message per hop of the part.
    int per_direction[2] = {0, 0};
    std::size_t longest = 0;
    for (const Part& p : round.parts) {
      per_direction[port_plus(p.route.front()) ? 1 : 0] += static_cast<int>(p.route.size());
      longest = std::max(longest, p.route.size());
    }
    // On a side of 2 both ports reach the one neighbour over one link.
    const int link = torus.dim(round.axis) == 2 ? per_direction[0] + per_direction[1]
                                                 : std::max(per_direction[0], per_direction[1]);
    max_link_messages_ = std::max(max_link_messages_, link);
    hops_sum_ += static_cast<long long>(longest);
  }
}

int TorusBruckSchedule::best(const Torus& torus, double r, double q, double round_ratio) {
  const int top = std::max(2, 2 * static_cast<int>(torus.active_axes().size()) + 1);
  int best_k = 2;
  double best_cost = -1;
  for (int k = 2; k <= top; ++k) {
    double cost = 0;
    for (int a = torus.ndims() - 1; a >= 0; --a) {
      if (torus.dim(a) < 2) continue;
      const double row = static_cast<double>(torus.stride(a));
      for (const Round& round : axis_rounds(a, torus.dim(a), k)) {
        double per_direction[2] = {0, 0};
        for (const Part& p : round.parts)
          per_direction[port_plus(p.route.front()) ? 1 : 0] +=
              static_cast<double>(p.count) * row * static_cast<double>(p.route.size());
        cost += r * (1 + round_ratio + q * static_cast<double>(2 * round.parts.size() - 2)) +
                std::max(per_direction[0], per_direction[1]);
      }
    }
    if (best_cost < 0 || cost < best_cost) {
      best_cost = cost;
      best_k = k;
    }
  }
  return best_k;
}

bool TorusBruckSchedule::parse(const std::string& text, const Torus&, int* radix, std::string* why) {
  char* end = nullptr;
  const long k = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || k < 2 || k > 1024) {
    *why = "the radix '" + text + "' is not an integer from 2 to 1024";
    return false;
  }
  *radix = static_cast<int>(k);
  return true;
}

class TorusBruckSchedule::Program final : public RankProgram {
 public:
  Program(const TorusBruckSchedule& s, Rank self) : s_(s), self_(self) {}

  void next_round(RoundOps& ops) override {
    ops.clear();
    if (round_ >= s_.rounds_.size()) return;
    const Round& round = s_.rounds_[round_++];
    const Torus& t = s_.torus();
    const int a = round.axis;
    const long long n = t.dim(a);
    const Rank stride = t.stride(a);
    // Pointers into ranges_ stay valid: it is sized before any is taken.
    ranges_.assign(2 * round.parts.size(), {});
    std::size_t used = 0;
    // Positions [offset, offset + count) of rank x's ring, with the axes
    // already done whole: one or two ranges of the buffer.
    auto blocks = [&](Rank x, long long offset, long long count) -> const BlockRanges* {
      const Rank base = x - x % (n * stride);
      const long long start = ((t.coord(x, a) + offset) % n + n) % n;
      BlockRanges& out = ranges_[used++];
      if (start + count <= n) {
        out.emplace_back(base + start * stride, base + (start + count) * stride);
      } else {
        out.emplace_back(base, base + (start + count - n) * stride);
        out.emplace_back(base + start * stride, base + n * stride);
      }
      return &out;
    };
    std::vector<std::pair<Rank, Transfer>> recvs;
    for (const Part& p : round.parts) {
      Transfer send;
      send.port = p.route.front();
      send.route = &p.route;
      send.peer = t.shift(self_, a, -p.delta);
      send.ranges = blocks(self_, p.offset - p.delta, p.count);
      ops.sends.push_back(send);
      Transfer recv = send;
      recv.peer = t.shift(self_, a, p.delta);
      recv.ranges = blocks(self_, p.offset, p.count);
      recvs.emplace_back(recv.peer, recv);
    }
    std::stable_sort(recvs.begin(), recvs.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (auto& entry : recvs) ops.recvs.push_back(entry.second);
  }

 private:
  const TorusBruckSchedule& s_;
  Rank self_;
  std::size_t round_ = 0;
  std::vector<BlockRanges> ranges_;
};

std::unique_ptr<RankProgram> TorusBruckSchedule::program(Rank r) const { return std::make_unique<Program>(*this, r); }

}  // namespace torusgather
