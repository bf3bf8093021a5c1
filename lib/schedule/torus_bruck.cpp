// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/torus_bruck.hpp"

#include <algorithm>
#include <stdexcept>

namespace torusgather {

namespace {

using Runs = TorusBruckSchedule::Runs;
using Round = TorusBruckSchedule::Round;
using Part = TorusBruckSchedule::Part;

long long count_of(const Runs& runs) {
  long long c = 0;
  for (const auto& r : runs) c += r.second;
  return c;
}

void normalize(Runs* runs) {
  std::sort(runs->begin(), runs->end());
  Runs out;
  for (const auto& r : *runs) {
    if (!out.empty() && out.back().first + out.back().second >= r.first)
      out.back().second = std::max(out.back().second, r.first + r.second - out.back().first);
    else
      out.push_back(r);
  }
  *runs = std::move(out);
}

Runs shifted(const Runs& runs, long long delta) {
  Runs out = runs;
  for (auto& r : out) r.first += delta;
  return out;
}

/// The part from the rank delta up the ring: the sender sends to itself -
/// delta, the shorter way round (ties +, as the dimension-order routes of
/// the cost model).
Part part_of(int axis, long long n, long long delta, Runs along) {
  const long long ahead = ((-delta) % n + n) % n;
  const bool plus = ahead <= n - ahead;
  return Part{delta, std::move(along), make_port(axis, plus), plus ? ahead : n - ahead};
}

/// Bruck's rounds along one axis of side n, radix k (see the header).
void chain_rounds(int axis, long long n, int k, std::vector<Runs>* held, std::vector<Round>* out) {
  const long long up = k / 2, down = (k - 1) / 2;  // partners up and down the ring
  long long low = 0, high = 0;                      // the interval [x - low, x + high]
  while (low + high + 1 < n) {
    const long long m = low + high + 1;
    long long left = n - m;
    Round round;
    round.axis = axis;
    round.held = *held;
    long long got_up = 0, got_down = 0;
    // Nearest partners first, alternating up and down: a cut-short round
    // keeps its routes short.
    for (long long j = 1; j <= std::max(up, down) && left > 0; ++j) {
      if (j <= up && left > 0) {
        // From x + j*m: its lowest positions, next above the interval.
        const long long c = std::min(m, left);
        round.parts.push_back(part_of(axis, n, j * m, {{high + 1 + (j - 1) * m, c}}));
        got_up += c;
        left -= c;
      }
      if (j <= down && left > 0) {
        // From x - j*m: its highest positions, next below the interval.
        const long long c = std::min(m, left);
        round.parts.push_back(part_of(axis, n, -j * m, {{-low - (j - 1) * m - c, c}}));
        got_down += c;
        left -= c;
      }
    }
    high += got_up;
    low += got_down;
    (*held)[static_cast<std::size_t>(axis)] = {{-low, low + high + 1}};
    out->push_back(std::move(round));
  }
}

/// The round of base-k digit `place` (partners c * place) on an axis of
/// side n, a power of k: each partner sends all it holds on the axis.
Round digit_round(int axis, long long n, int k, long long place, std::vector<Runs>* held) {
  Round round;
  round.axis = axis;
  round.held = *held;
  const Runs mine = (*held)[static_cast<std::size_t>(axis)];
  Runs after = mine;
  const long long up = k / 2, down = (k - 1) / 2;
  for (long long c = 1; c <= std::max(up, down); ++c)
    for (long long delta : {c * place, -c * place}) {
      if ((delta > 0 && c > up) || (delta < 0 && c > down)) continue;
      Runs along = shifted(mine, delta);
      after.insert(after.end(), along.begin(), along.end());
      round.parts.push_back(part_of(axis, n, delta, std::move(along)));
    }
  normalize(&after);
  (*held)[static_cast<std::size_t>(axis)] = std::move(after);
  return round;
}

bool power_of(long long n, int k) {
  long long m = 1;
  while (m < n) m *= k;
  return m == n;
}

long long ceil_log(long long n, long long k) {
  long long rounds = 0;
  for (long long m = 1; m < n; m *= k) ++rounds;
  return rounds;
}

/// An upper bound on the pieces of torus_bruck_ranges's answer for any
/// rank (a run may wrap round its ring once).
long long pieces_bound(const Torus& t, int axis, const Runs& along, const std::vector<Runs>& held) {
  long long pieces = 1;
  bool inner = true;  // every axis after this one is whole
  for (int b = t.ndims() - 1; b >= 0; --b) {
    const Runs& runs = b == axis ? along : held[static_cast<std::size_t>(b)];
    const long long c = count_of(runs);
    if (inner && c >= t.dim(b)) continue;
    long long split = 0;  // a run of more than one position may wrap round
    for (const auto& r : runs) split += r.second > 1 ? 2 : 1;
    pieces *= inner ? split : c;
    inner = false;
  }
  return pieces;
}

std::invalid_argument too_many(const TorusBruckSchedule::Params& p, long long pieces) {
  return std::invalid_argument("torus-bruck " + TorusBruckSchedule::to_string(p) + ": a message would take " +
                               std::to_string(pieces) + " pieces of the buffer (at most " +
                               std::to_string(TorusBruckSchedule::kMaxPieces) + ")");
}

}  // namespace

double Round::blocks(const Part& p) const {
  double b = static_cast<double>(count_of(p.along));
  for (std::size_t a = 0; a < held.size(); ++a)
    if (static_cast<int>(a) != axis) b *= static_cast<double>(count_of(held[a]));
  return b;
}

TorusBruckSchedule::Load TorusBruckSchedule::load(const Round& round) const {
  const Torus& t = torus();
  const long long n = t.dim(round.axis);
  Load out;
  if (!t.open(round.axis)) {
    int messages[2] = {0, 0};
    double blocks[2] = {0, 0};
    for (const Part& p : round.parts) {
      const int way = port_plus(p.port) ? 1 : 0;
      const int hops = static_cast<int>(p.hops);
      messages[way] += hops;
      blocks[way] += round.blocks(p) * hops;
      out.hops = std::max(out.hops, hops);
    }
    // On a side of 2 both ports reach the one neighbour over one link.
    out.messages = n == 2 ? messages[0] + messages[1] : std::max(messages[0], messages[1]);
    out.blocks = n == 2 ? blocks[0] + blocks[1] : std::max(blocks[0], blocks[1]);
    return out;
  }
  // Link i joins positions i and i + 1; way 1 runs from i to i + 1. The
  // receivers whose call crosses link i form an interval [i + lo, i + hi]
  // cut to the receivers [first, last] whose calls go that way (those of a
  // part that wrap round go the other way), so a link's count is a sum of
  // trapezoids in i and its maximum lies next to one of their corners:
  // O(parts^2) per round, whatever n.
  struct Span {
    int way;
    long long lo, hi, first, last;
    double blocks;
  };
  std::vector<Span> spans;
  for (const Part& p : round.parts) {
    const long long e = p.delta > 0 ? p.delta : -p.delta;
    const double b = round.blocks(p);
    if (p.delta > 0) {
      spans.push_back({0, -e + 1, 0, 0, n - e - 1, b});  // from to + e, down the line
      spans.push_back({1, 1, n - e, n - e, n - 1, b});   // wrapped: from to + e - n, up
    } else {
      spans.push_back({1, 1, e, e, n - 1, b});           // from to - e, up the line
      spans.push_back({0, e - n + 1, 0, 0, e - 1, b});   // wrapped: from to - e + n, down
    }
    out.hops = std::max(out.hops, static_cast<int>(std::max(e, n - e)));
  }
  const auto crossing = [](const Span& x, long long i) {
    return std::max(0LL, std::min(i + x.hi, x.last) - std::max(i + x.lo, x.first) + 1);
  };
  for (int way = 0; way < 2; ++way) {
    std::vector<long long> at = {0, n - 2};
    for (const Span& x : spans)
      if (x.way == way)
        for (long long corner : {x.first - x.hi, x.last - x.hi, x.first - x.lo, x.last - x.lo})
          for (long long i : {corner - 1, corner, corner + 1}) at.push_back(i);
    for (long long i : at) {
      if (i < 0 || i > n - 2) continue;
      long long messages = 0;
      double blocks = 0;
      for (const Span& x : spans)
        if (x.way == way) {
          const long long c = crossing(x, i);
          messages += c;
          blocks += static_cast<double>(c) * x.blocks;
        }
      out.messages = std::max(out.messages, static_cast<int>(messages));
      out.blocks = std::max(out.blocks, blocks);
    }
  }
  return out;
}

std::vector<Port> TorusBruckSchedule::route_on(const Round& round, const Part& p, Rank to) const {
  const Torus& t = torus();
  const long long n = t.dim(round.axis), at = t.coord(to, round.axis);
  const long long from = ((at + p.delta) % n + n) % n;
  return std::vector<Port>(static_cast<std::size_t>(at > from ? at - from : from - at),
                           make_port(round.axis, at > from));
}

void torus_bruck_ranges(const Torus& t, Rank x, int axis, const Runs& along, const std::vector<Runs>& held,
                        BlockRanges* out) {
  out->clear();
  const int d = t.ndims();
  std::vector<Runs> absolute(static_cast<std::size_t>(d));
  for (int b = 0; b < d; ++b) {
    const Runs& rel = b == axis ? along : held[static_cast<std::size_t>(b)];
    const long long n = t.dim(b), at = t.coord(x, b);
    Runs& abs = absolute[static_cast<std::size_t>(b)];
    for (const auto& r : rel) {
      if (r.second >= n) {
        abs = {{0, n}};
        break;
      }
      const long long s = ((at + r.first) % n + n) % n;
      if (s + r.second <= n) {
        abs.emplace_back(s, r.second);
      } else {
        abs.emplace_back(s, n - s);
        abs.emplace_back(0, r.second - (n - s));
      }
    }
    normalize(&abs);
  }
  // The axes after `inner` are whole: each position of `inner` is one range.
  int inner = d - 1;
  while (inner >= 0 && absolute[static_cast<std::size_t>(inner)].size() == 1 &&
         absolute[static_cast<std::size_t>(inner)][0].second == t.dim(inner))
    --inner;
  if (inner < 0) {
    out->emplace_back(0, t.size());
    return;
  }
  // The axes before it: every combination of their positions.
  std::vector<std::vector<long long>> coords(static_cast<std::size_t>(inner));
  for (int b = 0; b < inner; ++b)
    for (const auto& r : absolute[static_cast<std::size_t>(b)])
      for (long long c = r.first; c < r.first + r.second; ++c) coords[static_cast<std::size_t>(b)].push_back(c);
  std::vector<std::size_t> at(static_cast<std::size_t>(inner), 0);
  const Rank stride = t.stride(inner);
  while (true) {
    Rank base = 0;
    for (std::size_t b = 0; b < at.size(); ++b) base += coords[b][at[b]] * t.stride(static_cast<int>(b));
    for (const auto& r : absolute[static_cast<std::size_t>(inner)]) {
      const Rank lo = base + r.first * stride, hi = lo + r.second * stride;
      if (!out->empty() && out->back().second == lo)
        out->back().second = hi;
      else
        out->emplace_back(lo, hi);
    }
    // The next combination, the last of the outer axes fastest.
    std::size_t b = at.size();
    while (b > 0 && ++at[b - 1] == coords[b - 1].size()) at[--b] = 0;
    if (b == 0) break;
  }
}

std::string TorusBruckSchedule::not_applicable(const Torus& torus) {
  return torus.size() < 2 ? "needs at least 2 ranks" : "";
}

long long TorusBruckSchedule::formula_rounds(const Torus& torus, int radix) {
  long long rounds = 0;
  for (int a = 0; a < torus.ndims(); ++a) rounds += ceil_log(torus.dim(a), radix);
  return rounds;
}

TorusBruckSchedule::TorusBruckSchedule(const Torus& torus, Params params, int node_ranks)
    : Schedule(torus), params_(params) {
  const int k = params.radix;
  if (k < 2) throw std::invalid_argument("torus-bruck: the radix must be at least 2");
  const int d = torus.ndims();
  std::vector<Runs> held(static_cast<std::size_t>(d), Runs{{0, 1}});
  const int node_axis = node_ranks > 1 && d > 1 && torus.dim(d - 1) == node_ranks ? d - 1 : -1;
  if (!params.far_first) {
    // The fastest axis first: a rank's blocks then stay one or two ranges
    // of the row-major buffer.
    for (int a = d - 1; a >= 0; --a)
      if (torus.dim(a) > 1) chain_rounds(a, torus.dim(a), k, &held, &rounds_);
  } else {
    // Bruck's axes first, then the digits by their busiest link (most
    // messages first), the node axis last (in shared memory, it is the
    // cheapest place for the most blocks): the late network rounds go the
    // fewest hops.
    struct Digit {
      int axis;
      long long place;
      int load;
    };
    std::vector<Digit> digits;
    std::vector<int> node_chain;
    for (int a = d - 1; a >= 0; --a) {
      const long long n = torus.dim(a);
      if (n < 2) continue;
      // The node axis in Bruck's order: its hops are shared memory, and an
      // interval keeps its messages in fewer pieces.
      if (!power_of(n, k) || a == node_axis) {
        if (a == node_axis)
          node_chain.push_back(a);
        else
          chain_rounds(a, n, k, &held, &rounds_);
        continue;
      }
      for (long long place = 1; place < n; place *= k) {
        std::vector<Runs> probe(static_cast<std::size_t>(d), Runs{{0, 1}});
        const Round r = digit_round(a, n, k, place, &probe);
        digits.push_back({a, place, load(r).messages});
      }
    }
    std::stable_sort(digits.begin(), digits.end(), [](const Digit& x, const Digit& y) {
      if (x.load != y.load) return x.load > y.load;
      if (x.axis != y.axis) return x.axis > y.axis;
      return x.place > y.place;
    });
    for (const Digit& g : digits) {
      rounds_.push_back(digit_round(g.axis, torus.dim(g.axis), k, g.place, &held));
      // Stop before the held runs grow further: on a ring of 2^20 the last
      // rounds would hold 2^19 runs each (0.2 s and 85 MB to refuse).
      for (const Part& p : rounds_.back().parts)
        if (const long long n = pieces_bound(torus, g.axis, p.along, rounds_.back().held); n > kMaxPieces)
          throw too_many(params, n);
    }
    for (int a : node_chain) chain_rounds(a, torus.dim(a), k, &held, &rounds_);
  }
  for (const Round& round : rounds_) {
    const Load l = load(round);
    max_link_messages_ = std::max(max_link_messages_, l.messages);
    hops_sum_ += l.hops;
    for (const Part& p : round.parts)
      max_pieces_ = std::max(max_pieces_, pieces_bound(torus, round.axis, p.along, round.held));
  }
  if (max_pieces_ > kMaxPieces) throw too_many(params, max_pieces_);
}

TorusBruckSchedule::Params TorusBruckSchedule::best(const Torus& torus, double r, double q, double round_ratio,
                                                    int node_ranks,
                                                    const std::function<double(const Schedule&)>& cost) {
  const int top = std::max(2, 2 * static_cast<int>(torus.active_axes().size()) + 1);
  Params best_p;
  double best_cost = -1;
  for (int k = 2; k <= top; ++k)
    for (bool far : {false, true}) {
      std::unique_ptr<TorusBruckSchedule> s;
      try {
        s = std::make_unique<TorusBruckSchedule>(torus, Params{k, far}, node_ranks);
      } catch (const std::invalid_argument&) {
        continue;  // too many pieces
      }
      double c = 0;
      if (cost) {
        c = cost(*s);
      } else {
        for (const Round& round : s->rounds_)
          c += r * (1 + round_ratio + q * static_cast<double>(2 * round.parts.size() - 2)) + s->load(round).blocks;
      }
      if (best_cost < 0 || c < best_cost) {
        best_cost = c;
        best_p = Params{k, far};
      }
    }
  return best_p;
}

bool TorusBruckSchedule::parse(const std::string& text, const Torus&, Params* params, std::string* why) {
  const auto comma = text.find(',');
  const std::string radix = text.substr(0, comma);
  const std::string order = comma == std::string::npos ? "" : text.substr(comma + 1);
  char* end = nullptr;
  const long k = std::strtol(radix.c_str(), &end, 10);
  if (radix.empty() || *end != '\0' || k < 2 || k > 1024) {
    *why = "the radix '" + radix + "' is not an integer from 2 to 1024";
    return false;
  }
  if (comma != std::string::npos && order != "far" && order != "near") {
    *why = "the order '" + order + "' is neither 'far' nor 'near'";
    return false;
  }
  params->radix = static_cast<int>(k);
  params->far_first = order == "far";
  return true;
}

std::string TorusBruckSchedule::to_string(const Params& p) {
  return std::to_string(p.radix) + (p.far_first ? ",far" : "");
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
    // Pointers into ranges_ and routes_ stay valid: they are sized before
    // any is taken. A ring's route serves both sides of a part.
    ranges_.assign(2 * round.parts.size(), {});
    const bool open = t.open(a);
    routes_.resize(2 * round.parts.size());
    std::size_t used = 0;
    std::vector<std::pair<Rank, Transfer>> recvs;
    for (const Part& p : round.parts) {
      Transfer send;
      send.peer = t.shift(self_, a, -p.delta);
      if (open)
        routes_[used] = s_.route_on(round, p, send.peer);
      else
        routes_[used].assign(static_cast<std::size_t>(p.hops), p.port);
      send.route = &routes_[used];
      send.port = send.route->front();
      // What the peer receives: its positions `along`.
      torus_bruck_ranges(t, send.peer, a, p.along, round.held, &ranges_[used]);
      send.ranges = &ranges_[used++];
      ops.sends.push_back(send);
      Transfer recv = send;
      recv.peer = t.shift(self_, a, p.delta);
      if (open) {
        routes_[used] = s_.route_on(round, p, self_);
        recv.route = &routes_[used];
        recv.port = recv.route->front();
      }
      torus_bruck_ranges(t, self_, a, p.along, round.held, &ranges_[used]);
      recv.ranges = &ranges_[used++];
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
  std::vector<std::vector<Port>> routes_;
};

std::unique_ptr<RankProgram> TorusBruckSchedule::program(Rank r) const { return std::make_unique<Program>(*this, r); }

}  // namespace torusgather
