// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/dim_rings.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>

namespace torusgather {
namespace {

/// Where colour c is in global round t (1-based): its phase and step in it.
struct Position {
  int phase;
  long long step;  ///< 1-based step within the phase
};

Position locate(const DimRingsSchedule& s, int colour, long long round) {
  long long before = 0;
  for (int f = 0; f < s.phases(); ++f) {
    const long long len = s.phase_ring(colour, f).steps(s.torus());
    if (round <= before + len) return {f, round - before};
    before += len;
  }
  return {-1, 0};
}

class DimRingsProgram final : public RankProgram {
 public:
  DimRingsProgram(const DimRingsSchedule& s, Rank self) : s_(s), self_(self) {}

  void next_round(RoundOps& ops) override {
    ops.clear();
    ++round_;
    const Torus& t = s_.torus();
    for (int c = 0; c < s_.colours(); ++c) {
      const Position at = locate(s_, c, round_);
      if (at.phase < 0) continue;
      const Ring ring = s_.phase_ring(c, at.phase);
      const int axis = ring.axis;
      std::uint32_t done = 0;  // axes this colour has already gathered
      for (int f = 0; f < at.phase; ++f) {
        const Ring& before = s_.phase_ring(c, f);
        done |= 1u << before.axis;
        if (before.pair >= 0) done |= 1u << before.pair;
      }
      const int n = ring.length(t);
      if (ring.open(t)) {
        // A line: what came from - goes on towards +, and back; a group
        // travels until it reaches an end.
        const long long k = at.step;
        const LineStep does = line_step(n, k, t.coord(self_, axis));
        const Piece p = s_.piece(c);
        const auto group = [&](long long delta) { return BlockSet{t.clear_axes(t.shift(self_, axis, delta), done), done}; };
        if (does.from_minus) ops.recvs.push_back({make_port(axis, false), group(-k), p});
        if (does.to_plus) ops.sends.push_back({make_port(axis, true), group(-(k - 1)), p});
        if (does.from_plus) ops.recvs.push_back({make_port(axis, true), group(k), p});
        if (does.to_minus) ops.sends.push_back({make_port(axis, false), group(k - 1), p});
        continue;
      }
      // On an even ring the last step brings the opposite group from both
      // sides: the one travelling towards +axis carries the first half, or
      // all of it (whole_antipode) while nothing travels towards -axis.
      const bool antipode = n % 2 == 0 && at.step == n / 2;
      const bool halves = antipode && !s_.whole_antipode();
      const auto piece = [&](bool towards_plus) {
        Piece p = s_.piece(c);
        p.half = static_cast<std::uint8_t>(halves ? (towards_plus ? 1 : 2) : 0);
        return p;
      };
      const auto group = [&](long long delta) {
        const Rank from = ring.pair < 0 ? t.shift(self_, axis, delta) : lane_shift(t, ring, self_, delta);
        return BlockSet{t.clear_axes(from, done), done};
      };
      // Ports towards the ring's next and previous rank: +axis and -axis on a line.
      const auto [next, prev] =
          ring.pair < 0 ? std::pair<Port, Port>{make_port(axis, true), make_port(axis, false)} : lane_ports(t, ring, self_);
      // Travelling forwards: received from the previous rank, from step ago.
      ops.recvs.push_back({prev, group(-at.step), piece(true)});
      ops.sends.push_back({next, group(-(at.step - 1)), piece(true)});
      if (antipode && !halves) continue;
      ops.recvs.push_back({next, group(at.step), piece(false)});
      ops.sends.push_back({prev, group(at.step - 1), piece(false)});
    }
  }

 private:
  const DimRingsSchedule& s_;
  Rank self_;
  long long round_ = 0;
};

/// What balanced colours rotate over: every side > 1 as a line, except that
/// a side of 2 with two links is paired, where it can be, with an even
/// closed side without a shared link (a longer one first) into a plane, run
/// as a lane, and with `snakes` two open axes, or an open axis and a side
/// of 2 of one link, are one snake.
std::vector<Ring> units_of(const Torus& t, bool snakes) {
  const std::vector<int> axes = t.active_axes();
  std::vector<int> pair_of(static_cast<std::size_t>(t.ndims()), -1);
  std::vector<bool> used(static_cast<std::size_t>(t.ndims()), false);
  for (int e : axes) {
    if (t.dim(e) != 2 || t.shared_link(e) || used[static_cast<std::size_t>(e)]) continue;
    for (const bool longer : {true, false}) {
      for (int a : axes)
        if (a != e && !used[static_cast<std::size_t>(a)] && t.dim(a) % 2 == 0 && !t.shared_link(a) && !t.open(a) &&
            (t.dim(a) > 2) == longer) {
          pair_of[static_cast<std::size_t>(a)] = e;
          used[static_cast<std::size_t>(a)] = used[static_cast<std::size_t>(e)] = true;
          break;
        }
      if (used[static_cast<std::size_t>(e)]) break;
    }
  }
  // A snake of m·n takes m·n/2 rounds against its lines' m + n − 2: only
  // where that is at most 4 times as many (14×14 is, 16×16 is not; n × 2
  // always), so that the rounds stay near the lines' and the weights'
  // search near theirs.
  const auto short_enough = [&](int a, int b) {
    return static_cast<long long>(t.dim(a)) * t.dim(b) / 2 <= 4 * (Ring(a).steps(t) + Ring(b).steps(t));
  };
  // Open axes two by two (the longer first), the even side along the snake's rows.
  std::vector<int> open;
  for (int a : axes)
    if (t.open(a) && !used[static_cast<std::size_t>(a)]) open.push_back(a);
  std::stable_sort(open.begin(), open.end(), [&](int x, int y) { return t.dim(x) > t.dim(y); });
  for (std::size_t i = 0; snakes && i + 1 < open.size(); ++i) {
    int a = open[i], b = open[i + 1];
    if (t.dim(a) % 2 != 0) std::swap(a, b);
    if (t.dim(a) % 2 != 0 || used[static_cast<std::size_t>(b)] || !short_enough(a, b)) continue;
    pair_of[static_cast<std::size_t>(a)] = b;
    used[static_cast<std::size_t>(a)] = used[static_cast<std::size_t>(b)] = true;
    ++i;
  }
  // A lone open axis with a side of 2 of one link (the even side along the rows).
  for (int a : open) {
    if (!snakes || used[static_cast<std::size_t>(a)]) continue;
    for (int e : axes)
      if (!used[static_cast<std::size_t>(e)] && t.dim(e) == 2 && t.shared_link(e) && short_enough(a, e)) {
        const bool rows = t.dim(a) % 2 == 0;
        pair_of[static_cast<std::size_t>(rows ? a : e)] = rows ? e : a;
        used[static_cast<std::size_t>(a)] = used[static_cast<std::size_t>(e)] = true;
        break;
      }
  }
  std::vector<Ring> units;
  for (int a : axes) {
    const int e = pair_of[static_cast<std::size_t>(a)];
    if (e >= 0) units.emplace_back(a, e, 0);
    else if (!used[static_cast<std::size_t>(a)]) units.emplace_back(a);
  }
  return units;
}

}  // namespace

DimRingsSchedule::DimRingsSchedule(const Torus& torus, DimRingsParams params)
    : Schedule(torus), axes_(torus.active_axes()), whole_(params.whole_antipode) {
  std::vector<int> shorts, longs;
  for (int a : axes_) (torus.shared_link(a) ? shorts : longs).push_back(a);
  short_first_ = params.short_first && !shorts.empty() && !longs.empty();
  if (short_first_) {
    shorts_ = shorts;
    rotated_ = longs;
  } else {
    rotated_ = axes_;
  }
  const int all = std::max<int>(1, static_cast<int>(rotated_.size()));
  colours_ = params.colours <= 0 ? all : std::min(params.colours, all);
  in_step_ = params.in_step && !params.balanced && colours_ > 1;
  for (int c = 0; c < colours_; ++c) {
    AxisOrder order(shorts_.begin(), shorts_.end());
    for (std::size_t f = 0; f < rotated_.size(); ++f)
      order.push_back(rotated_[(static_cast<std::size_t>(c) + f) % rotated_.size()]);
    orders_.push_back(order);
  }
  // Balanced: every rotation of the units (lines and planes) and its
  // reverse, each on both lanes where there are planes (at most 16 colours:
  // the simulator's), the weights from the fluid model, the colours without
  // weight left out.
  balanced_ = params.balanced && axes_.size() > 1;
  snakes_ = balanced_ && params.snakes;
  if (balanced_) {
    short_first_ = whole_ = false;
    shorts_.clear();
    rotated_ = axes_;
    std::vector<Ring> units = units_of(torus, params.snakes);
    bool planes = std::any_of(units.begin(), units.end(), [&](const Ring& u) { return u.pair >= 0 && !u.snake(torus); });
    if (planes && 2 * units.size() > 16) {  // both lanes of every order would not fit: lines
      units.assign(axes_.begin(), axes_.end());
      planes = false;
    }
    std::vector<AxisOrder> orders;
    const std::size_t d = units.size(), lanes = planes ? 2 : 1;
    for (int reverse = 0; reverse < (2 * d * lanes <= 16 ? 2 : 1); ++reverse)
      for (std::size_t c = 0; c < d; ++c)
        for (int lane = 0; lane < static_cast<int>(lanes); ++lane) {
          AxisOrder order;
          for (std::size_t f = 0; f < d; ++f) {
            Ring u = units[(c + f) % d];
            if (u.pair >= 0 && !u.snake(torus)) u.lane = lane;
            order.push_back(u);
          }
          if (reverse) std::reverse(order.begin(), order.end());
          if (std::find(orders.begin(), orders.end(), order) == orders.end()) orders.push_back(order);
        }
    const std::vector<long long> weight_units = balanced_weights(torus, orders, Piece::kUnits);
    orders_.clear();
    long long first = 0;
    std::vector<double> weights;
    for (std::size_t c = 0; c < orders.size(); ++c) {
      if (weight_units[c] == 0) continue;
      orders_.push_back(orders[c]);
      units_.push_back(weight_units[c]);
      first_.push_back(first);
      weights.push_back(static_cast<double>(weight_units[c]) / Piece::kUnits);
      first += weight_units[c];
    }
    colours_ = static_cast<int>(orders_.size());
    fluid_blocks_ = fluid_time(torus, orders_, weights);
  } else if (colours_ > 1 && !in_step_) {
    // Streams of equal pieces drift apart where their phases differ in
    // length: their links' time is the fluid model's, not the rounds' sum.
    fluid_blocks_ = fluid_time(torus, orders_, std::vector<double>(orders_.size(), 1.0 / colours_), whole_);
  }
  // Every colour's rings cover the same sides (and planes) in another order.
  for (const Ring& ring : orders_.front()) rounds_ += ring.steps(torus);
  // Colours start on different axes but phases of unequal length (or fewer
  // colours than axes) leave some ports idle in a round: count the worst
  // port of each round, messages and blocks, towards +axis and -axis.
  std::vector<int> messages[2];
  std::vector<double> blocks[2];
  for_each_run([&](long long, const std::vector<ColourStep>& steps, const std::vector<double> (&)[2]) {
    for (int dir = 0; dir < 2; ++dir) {
      messages[dir].assign(static_cast<std::size_t>(torus.ndims()), 0);
      blocks[dir].assign(static_cast<std::size_t>(torus.ndims()), 0.0);
    }
    for (const ColourStep& step : steps) {
      const auto a = static_cast<std::size_t>(step.axis);
      // A lane's two messages leave on two ports of its own: counted as one.
      const int first = step.lane == 1 ? 0 : 1;
      ++messages[first][a];
      blocks[first][a] += step.blocks;
      if (step.messages == 2 && step.lane < 0) {
        ++messages[0][a];
        blocks[0][a] += step.blocks;
      }
    }
    for (int dir = 0; dir < 2; ++dir) {
      max_link_messages_ = std::max(max_link_messages_, *std::max_element(messages[dir].begin(), messages[dir].end()));
      max_link_blocks_ = std::max(max_link_blocks_, *std::max_element(blocks[dir].begin(), blocks[dir].end()));
    }
  });
}

void DimRingsSchedule::for_each_run(
    const std::function<void(long long, const std::vector<ColourStep>&, const std::vector<double> (&)[2])>& f) const {
  // Per colour: its phase, the rounds before it, and its group (the blocks
  // of the sides gathered so far) before the colour cut.
  const int phases = this->phases();
  std::vector<int> phase(static_cast<std::size_t>(colours_), 0);
  std::vector<long long> start(static_cast<std::size_t>(colours_), 0);
  std::vector<double> group(static_cast<std::size_t>(colours_), 1.0);
  std::vector<ColourStep> steps;
  std::vector<double> dir[2];
  for (long long round = 1; round <= rounds_;) {
    long long last = rounds_;  // the run's last round
    steps.clear();
    for (int c = 0; c < colours_; ++c) {
      const auto i = static_cast<std::size_t>(c);
      while (phase[i] < phases && round > start[i] + phase_ring(c, phase[i]).steps(torus())) {
        start[i] += phase_ring(c, phase[i]).steps(torus());
        group[i] *= phase_ring(c, phase[i]).length(torus());
        ++phase[i];
      }
      if (phase[i] >= phases) continue;
      const Ring& ring = phase_ring(c, phase[i]);
      const int n = ring.length(torus());
      const bool open = ring.open(torus());
      const long long end = start[i] + ring.steps(torus()), antipode_round = start[i] + n / 2;
      const bool antipode = !open && n % 2 == 0 && round == antipode_round;
      ColourStep step{ring.axis, group[i] * weight(c), 2, ring.pair >= 0 ? ring.lane : -1};
      if (open) {
        step.line = n;
        step.step = round - start[i];
      }
      if (antipode && whole_) step.messages = 1;
      if (antipode && !whole_) step.blocks /= 2;
      steps.push_back(step);
      // A ring's rounds are alike up to its phase's end, an even ring's up
      // to its antipode; a line's step differs every round.
      if (open)
        last = round;
      else if (n % 2 == 0 && round < antipode_round)
        last = std::min(last, std::min(end, antipode_round - 1));
      else
        last = std::min(last, end);
    }
    if (!steps.empty()) {
      for (auto& d : dir) d.assign(static_cast<std::size_t>(torus().ndims()), 0.0);
      for (const ColourStep& step : steps) step.add_load(dir);
      f(last - round + 1, steps, dir);
    }
    round = last + 1;
  }
}

DimRingsSchedule::RankMost DimRingsSchedule::most_per_rank(const std::vector<ColourStep>& round) {
  RankMost most;
  std::uint32_t lines_done = 0;  // axes (at most 16) whose lines are counted
  for (const ColourStep& s : round) {
    if (s.line == 0) {  // a ring: the same on every rank
      most.sends += s.messages;
      most.recvs += s.messages;
      most.recv_blocks += s.messages * s.blocks;
      most.moved_blocks += 2 * s.messages * s.blocks;
      continue;
    }
    if (lines_done >> s.axis & 1u) continue;
    lines_done |= 1u << s.axis;
    // The lines of this axis: each count is a sum of intervals of the
    // rank's place x, so its maximum lies where an interval starts or ends.
    const long long n = s.line;
    int sends = 0, recvs = 0;
    double blocks = 0, moved = 0;
    const auto place = [&](long long x) {
      if (x < 0 || x > n - 1) return;
      int out = 0, in = 0;
      double got = 0, sent = 0;
      for (const ColourStep& o : round) {
        if (o.line == 0 || o.axis != s.axis) continue;
        const LineStep does = line_step(n, o.step, x);
        const int there = (does.to_plus ? 1 : 0) + (does.to_minus ? 1 : 0);
        out += there;
        sent += there * o.blocks;
        const int here = (does.from_minus ? 1 : 0) + (does.from_plus ? 1 : 0);
        in += here;
        got += here * o.blocks;
      }
      sends = std::max(sends, out);
      recvs = std::max(recvs, in);
      blocks = std::max(blocks, got);
      moved = std::max(moved, got + sent);
    };
    for (const long long x : {0LL, 1LL, n - 2, n - 1}) place(x);
    for (const ColourStep& o : round)
      if (o.line > 0 && o.axis == s.axis)
        for (const long long x : {o.step - 1, o.step, n - o.step, n - 1 - o.step}) place(x);
    most.sends += sends;
    most.recvs += recvs;
    most.recv_blocks += blocks;
    most.moved_blocks += moved;
  }
  return most;
}

Piece DimRingsSchedule::piece(int colour) const {
  Piece p{static_cast<std::uint16_t>(colour), static_cast<std::uint16_t>(colours_), 0};
  if (!units_.empty()) {
    const auto c = static_cast<std::size_t>(colour);
    p.lo = static_cast<std::uint16_t>(first_[c]);
    p.hi = static_cast<std::uint16_t>(first_[c] + units_[c]);
  }
  return p;
}

std::string DimRingsSchedule::to_string(const DimRingsParams& p) {
  if (p.balanced) return p.snakes ? "balanced,snake" : "balanced";
  return std::to_string(p.colours) + (p.whole_antipode ? ",whole" : ",halves") + (p.short_first ? ",short" : "") +
         (p.in_step && p.colours > 1 ? ",step" : "");
}

bool DimRingsSchedule::parse(const std::string& text, const Torus& torus, DimRingsParams* out, std::string* why) {
  const std::vector<int> axes = torus.active_axes();
  const int most = std::max<int>(1, static_cast<int>(axes.size()));
  int longs = 0;
  for (int a : axes) longs += torus.dim(a) > 2 ? 1 : 0;
  if (text == "balanced" || text == "balanced,snake") {
    *out = DimRingsParams{0, false, false, true, text != "balanced"};
    return true;
  }
  const auto comma = text.find(',');
  const std::string count = text.substr(0, comma);
  std::string how = comma == std::string::npos ? "" : text.substr(comma + 1);
  const bool in_step = how.size() > 5 && how.compare(how.size() - 5, 5, ",step") == 0;
  if (in_step) how.resize(how.size() - 5);
  const bool short_first = how.size() > 6 && how.compare(how.size() - 6, 6, ",short") == 0;
  if (short_first) how.resize(how.size() - 6);
  // Short-first rotates the colours over the sides > 2 (all sides where
  // there are none of 2, or none longer).
  const int limit = short_first && longs > 0 && longs < static_cast<int>(axes.size()) ? longs : most;
  char* end = nullptr;
  const long c = std::strtol(count.c_str(), &end, 10);
  if (count.empty() || *end != '\0' || c < 1 || c > limit || (how != "halves" && how != "whole")) {
    *why = "dim-rings parameters '" + text + "' are not 'C,halves' or 'C,whole', optionally with ',short' and then " +
           "',step', with " +
           "1 <= C <= " + std::to_string(most) + " (the sides > 1; with ',short' the sides > 2), 'balanced' or " +
           "'balanced,snake'";
    return false;
  }
  *out = DimRingsParams{static_cast<int>(c), how == "whole", short_first, false, false, in_step};
  return true;
}

double DimRingsSchedule::fluid_blocks(double inject) const {
  if (!(fluid_blocks_ > 0) || !(inject > 0)) return fluid_blocks_;
  std::vector<double> weights;
  for (int c = 0; c < colours_; ++c) weights.push_back(weight(c));
  return fluid_time_limited(torus(), orders_, weights, whole_, inject);
}

bool DimRingsSchedule::has_snake(const Torus& torus) {
  const std::vector<Ring> units = units_of(torus, true);
  return std::any_of(units.begin(), units.end(), [&](const Ring& u) { return u.snake(torus); });
}

DimRingsParams DimRingsSchedule::streams_variant(const Torus& torus, double r, double q, double inject) {
  const DimRingsParams lines{0, false, false, true}, snakes{0, false, false, true, true};
  // Without an injection limit lines take fewer rounds and no more link time.
  if (!(inject > 0) || !has_snake(torus)) return lines;
  // The snakes' cost is at least their rounds' start-up and (P − 1) blocks
  // over the corner's links, or 2 (P − 1) over the limit: where the lines
  // cost no more, their weights need no search.
  long long rounds = 0;
  for (const Ring& u : units_of(torus, true)) rounds += u.steps(torus);
  const double blocks = static_cast<double>(torus.size() - 1);
  const double floor = static_cast<double>(rounds) * r +
                       std::max(blocks / torus.incoming_links(), 2 * blocks / inject);
  const double by_lines = model_cost(torus, lines, r, q, inject);
  return floor < by_lines && model_cost(torus, snakes, r, q, inject) < by_lines ? snakes : lines;
}

std::unique_ptr<RankProgram> DimRingsSchedule::program(Rank r) const {
  return std::make_unique<DimRingsProgram>(*this, r);
}

StructuralProof DimRingsSchedule::prove() const {
  StructuralProof proof;
  proof.supported = true;
  // One ring of n: after floor(n/2) bidirectional steps a rank has received
  // the blocks at distances 1..ceil(n/2)-1 from both sides, and, if n is even,
  // both halves of the one at distance n/2. Count that for every side used.
  for (const Ring& ring : orders_.front()) {
    const int n = ring.length(torus());
    // A line: the rank at x gets x blocks from - and n − 1 − x from +.
    if (ring.open(torus())) {
      if (ring.steps(torus()) != n - 1) {
        proof.detail = "line of " + std::to_string(n) + " does not deliver every block";
        return proof;
      }
      continue;
    }
    const long long from_both = 2 * (ring.steps(torus()) - (n % 2 == 0 ? 1 : 0));
    const long long antipode = n % 2 == 0 ? 1 : 0;
    if (from_both + antipode != n - 1) {
      proof.detail = "ring of " + std::to_string(n) + " does not deliver every block";
      return proof;
    }
  }
  proof.complete = true;
  proof.rounds = rounds_;
  proof.max_link_messages_per_round = max_link_messages_;
  proof.max_link_blocks_per_round = max_link_blocks_;
  // Phase f sends prod(previous sides) * (n_f - 1) parts (telescoping to
  // P - 1), n_f + 1 on an open line's inner ranks (its groups pass both ways).
  if (!torus().open_axes()) {
    proof.volume_per_rank_blocks = static_cast<double>(torus().size() - 1);
  } else {
    for (int c = 0; c < colours_; ++c) {
      double group = weight(c);
      for (int f = 0; f < phases(); ++f) {
        const int n = phase_ring(c, f).length(torus());
        proof.volume_per_rank_blocks += group * (phase_ring(c, f).open(torus()) ? n + 1 : n - 1);
        group *= n;
      }
    }
  }
  proof.detail = "bidirectional rings along " + std::to_string(axes_.size()) + " axes in " +
                 std::to_string(colours_) + " colours" + (whole_ ? ", antipodes whole" : "") +
                 (short_first_ ? ", sides of 2 first" : "") + (balanced_ ? ", weighted" : "") +
                 (colours_ > 1 && independent_colours() ? ", as streams" : "");
  return proof;
}

}  // namespace torusgather
