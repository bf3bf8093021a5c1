// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/dim_rings_weights.hpp"

#include <algorithm>
#include <cmath>
#include <climits>
#include <cstdint>
#include <memory>
#include <numeric>
#include <tuple>
#include <utility>

#include "schedule/process_memo.hpp"

namespace torusgather {
namespace {

/// One message of a colour's round into a node: its link, and its blocks
/// per unit of the colour's weight (twice the round's part of the group on
/// a side of 2 with one link, which takes both directions' messages).
struct Message {
  int link;
  double blocks;
};

/// The fluid model of one node's links for fixed axis orders, evaluated for
/// many weights: each colour's rounds made once, the flows' buffers reused.
/// A ring of n takes floor(n/2) rounds of its group each way, halves at an
/// even ring's antipode, an open line n − 1 rounds (its busiest links carry
/// the group each way in every round); a shared link is link 2a, any other side has two
/// (2a towards +, 2a + 1 towards -); lane l of a plane takes 2a + l and
/// 2·pair + l (a node's links on the plane, two per lane).
class Fluid {
 public:
  Fluid(const Torus& torus, const std::vector<AxisOrder>& orders, bool whole_antipode)
      : colours_(orders.size()), links_(static_cast<std::size_t>(2 * torus.ndims())) {
    // Without lanes (or whole antipodes, sent towards + only) every round
    // sends the same towards + and -, so link 2a + 1 repeats link 2a's
    // flows exactly: only the + side is simulated.
    const bool lanes = whole_antipode || std::any_of(orders.begin(), orders.end(), [](const AxisOrder& order) {
                         return std::any_of(order.begin(), order.end(), [](const Ring& ring) { return ring.pair >= 0; });
                       });
    load_.assign(links_.size(), {});
    // What a simulated link's flows put through the node, out and in alike:
    // twice over where the - side repeats the + side.
    mirror_.assign(links_.size(), 1);
    for (int a = 0; a < torus.ndims() && !lanes; ++a)
      if (!torus.shared_link(a)) mirror_[static_cast<std::size_t>(2 * a)] = 2;
    for (const AxisOrder& order : orders) {
      rounds_.emplace_back();
      for (auto& per_colour : load_) per_colour.push_back(0);
      // A message's blocks per unit of the colour's weight: its group, grown
      // by each phase's ring, halved at an even ring's antipode.
      double group = 1;
      for (const Ring& ring : order) {
        const int a = ring.axis, n = ring.length(torus);
        // `times` alike rounds of this ring, at its antipode or not.
        const auto add = [&](bool antipode, long long times) {
          if (times <= 0) return;
          const bool whole = antipode && whole_antipode && ring.pair < 0;
          const double b = antipode && !whole ? group / 2 : group;
          Round r;
          // (push_back: GCC 12 warns, wrongly, of a null memmove on a list assigned here)
          if (whole) {
            r.messages.push_back({2 * a, b});  // one message, towards +, on a shared link too
          } else if (ring.pair >= 0) {
            r.messages.push_back({2 * a + ring.lane, b});
            r.messages.push_back({2 * ring.pair + ring.lane, b});
          } else if (torus.shared_link(a)) {
            r.messages.push_back({2 * a, 2 * b});
          } else {
            r.messages.push_back({2 * a, b});
            if (lanes) r.messages.push_back({2 * a + 1, b});
          }
          auto& rounds = rounds_.back();
          for (const Message& m : r.messages)
            load_[static_cast<std::size_t>(m.link)].back() += static_cast<double>(times) * m.blocks;
          // Rounds of one message on the same link in a row keep that link
          // busy without a gap: one flow of their blocks takes the same time.
          if (r.messages.size() == 1) {
            const double blocks = static_cast<double>(times) * r.messages[0].blocks;
            if (!rounds.empty() && rounds.back().messages.size() == 1 &&
                rounds.back().messages[0].link == r.messages[0].link) {
              rounds.back().messages[0].blocks += blocks;
            } else {
              r.messages[0].blocks = blocks;
              rounds.push_back(r);
            }
          } else {
            r.times = times;
            rounds.push_back(r);
          }
        };
        // An even ring's antipode, step n/2, differs from its other steps.
        const long long steps = ring.steps(torus);
        const long long antipode = !ring.open(torus) && n % 2 == 0 && n / 2 <= steps ? n / 2 : 0;
        if (antipode > 0) {
          add(false, antipode - 1);
          add(true, 1);
          add(false, steps - antipode);
        } else {
          add(false, steps);
        }
        group *= n;
      }
    }
  }

  /// The time with these weights where the node also sends and receives
  /// at most `inject` links' worth together: every message shares its link
  /// and the node's limit, max-min fair (each gets an equal rate until its
  /// link or the limit is full).
  double time_limited(const std::vector<double>& weights, double inject, bool skip_repeats = true) {
    struct Open {
      std::size_t colour, link;
      double left, rate = 0;
    };
    std::vector<Open> open;
    std::vector<Cursor> at(colours_);
    std::vector<int> pending(colours_, 0);
    const auto start_next = [&](std::size_t c) {
      if (!(weights[c] > 0)) return;
      next_round(c, at[c], [&](const Message& m) {
        const double blocks = weights[c] * m.blocks;
        if (!(blocks > 0)) return false;
        open.push_back({c, static_cast<std::size_t>(m.link), blocks});
        ++pending[c];
        return true;
      });
    };
    for (std::size_t c = 0; c < colours_; ++c) start_next(c);
    double t = 0;
    Snapshot was, now;
    was.ref = colours_;
    std::vector<double> less;
    std::vector<double> used(links_.size());
    std::vector<int> unfrozen(links_.size());
    while (!open.empty()) {
      // Progressive filling: raise every unfrozen message's rate together
      // until a link or the limit is full; freeze those, repeat.
      std::fill(used.begin(), used.end(), 0.0);
      std::vector<bool> frozen(open.size(), false);
      double through = 0;  // the node's in and out, in links
      for (Open& o : open) o.rate = 0;
      for (std::size_t left = open.size(); left > 0;) {
        std::fill(unfrozen.begin(), unfrozen.end(), 0);
        double weight = 0;
        for (std::size_t i = 0; i < open.size(); ++i)
          if (!frozen[i]) {
            ++unfrozen[open[i].link];
            weight += 2.0 * mirror_[open[i].link];
          }
        double step = INFINITY;
        for (std::size_t l = 0; l < links_.size(); ++l)
          if (unfrozen[l] > 0) step = std::min(step, (1 - used[l]) / unfrozen[l]);
        const bool limit = inject > 0 && (inject - through) / weight <= step;
        if (limit) step = (inject - through) / weight;
        step = std::max(0.0, step);
        for (std::size_t i = 0; i < open.size(); ++i)
          if (!frozen[i]) {
            open[i].rate += step;
            used[open[i].link] += step;
            through += step * 2.0 * mirror_[open[i].link];
          }
        for (std::size_t i = 0; i < open.size(); ++i)
          if (!frozen[i] && (limit || used[open[i].link] >= 1 - 1e-12)) {
            frozen[i] = true;
            --left;
          }
      }
      double dt = INFINITY;
      for (const Open& o : open) dt = std::min(dt, o.left / o.rate);
      t += dt;
      std::vector<std::size_t> arrived;
      std::size_t kept = 0;
      for (const Open& o : open) {
        if (o.left - dt * o.rate > 1e-12 * std::max(1.0, o.left)) {
          open[kept] = o;
          open[kept++].left -= dt * o.rate;
        } else if (--pending[o.colour] == 0) {
          arrived.push_back(o.colour);
        }
      }
      open.resize(kept);
      for (std::size_t c : arrived) start_next(c);
      // Repeats carried forward whole periods, as in time().
      std::size_t ref;
      if (!skip_repeats || !snapshot_due(pending, arrived, at, &was, &ref)) continue;
      now.ref = ref;
      now.t = t;
      now.at = at;
      now.flows.clear();
      for (const Open& o : open) now.flows.emplace_back(o.link, o.colour, o.left);
      std::sort(now.flows.begin(), now.flows.end());
      const long long k = periods(was, now, &less);
      if (k > 0) {
        const double kd = static_cast<double>(k);
        for (std::size_t i = 0; i < now.flows.size(); ++i)
          for (Open& o : open)
            if (less[i] > 0 && o.link == std::get<0>(now.flows[i]) && o.colour == std::get<1>(now.flows[i]))
              o.left -= kd * less[i];
        carry(was, now, k, &at, &t);
        now.ref = colours_;
      }
      std::swap(now, was);
    }
    return t;
  }

  /// The time, in one block's time over one link, with these weights; or
  /// infinity once a link's work still to come shows it will pass `limit`.
  double time(const std::vector<double>& weights, double limit = INFINITY) {
    weights_ = &weights;
    // A link serves at most one block per unit of time: t plus the busiest
    // link's remaining blocks is a lower bound on the end.
    const double cut = limit * (1 + 1e-9);
    left_.assign(links_.size(), 0);
    double most = 0;
    for (std::size_t l = 0; l < links_.size(); ++l) {
      for (std::size_t c = 0; c < colours_; ++c) left_[l] += weights[c] * load_[l][c];
      most = std::max(most, left_[l]);
    }
    if (most > cut) return INFINITY;
    at_.assign(colours_, Cursor{});
    open_.assign(colours_, 0);
    for (Link& l : links_) {
      l.flows.clear();
      l.served = 0;
      l.first = INFINITY;
      l.share = 0;
    }
    active_ = 0;
    last_.ref = colours_;
    for (std::size_t c = 0; c < colours_; ++c) start(c);
    double t = 0;
    while (active_ > 0) {
      // The flows on a link share it equally: each gets 1/n of a block per
      // unit of time, so a link's flows end in the order of their targets.
      double dt = INFINITY;
      for (const Link& l : links_)
        if (!l.flows.empty()) dt = std::min(dt, (l.first - l.served) * static_cast<double>(l.flows.size()));
      t += dt;
      const double eps = 1e-12 * std::max(1.0, t);
      arrived_.clear();
      most = 0;
      for (std::size_t i = 0; i < links_.size(); ++i) {
        Link& l = links_[i];
        if (l.flows.empty()) {
          most = std::max(most, left_[i]);
          continue;
        }
        left_[i] -= dt;
        most = std::max(most, left_[i]);
        l.served += dt * l.share;
        if (l.first - l.served > eps) continue;
        // The first to finish leave.
        std::size_t kept = 0;
        l.first = INFINITY;
        for (const Flow& f : l.flows) {
          if (f.target - l.served > eps) {
            l.flows[kept++] = f;
            l.first = std::min(l.first, f.target);
          } else {
            --active_;
            if (--open_[f.colour] == 0) arrived_.push_back(f.colour);
          }
        }
        l.flows.resize(kept);
        l.share = kept ? 1.0 / static_cast<double>(kept) : 0;
      }
      if (t + most > cut) return INFINITY;
      // A colour whose round has arrived starts its next one.
      for (std::size_t c : arrived_) start(c);
      skip_periods(&t);
    }
    return t;
  }

 private:
  struct Round {
    std::vector<Message> messages;
    long long times = 1;  ///< alike rounds in a row
  };
  /// Where a colour is in its rounds: the run, and its rounds started.
  struct Cursor {
    std::size_t run = 0;
    long long done = 0;
  };
  /// Starts colour c's rounds from `at` until one sends something:
  /// send(message) says whether it did.
  template <class Send>
  void next_round(std::size_t c, Cursor& at, Send send) const {
    const auto& rounds = rounds_[c];
    for (bool sent = false; !sent && at.run < rounds.size();) {
      for (const Message& m : rounds[at.run].messages) sent = send(m) || sent;
      if (++at.done == rounds[at.run].times) at = Cursor{at.run + 1, 0};
    }
  }
  struct Flow {
    std::size_t colour;
    double target;  ///< the link's `served` at which it has arrived
  };
  /// A link's flows, and what each flow on it has been served so far.
  struct Link {
    std::vector<Flow> flows;
    double served = 0;
    double first = INFINITY;  ///< the least target among its flows
    double share = 0;         ///< 1 / its flows: what each gets per unit of time
  };
  /// Rounds repeat within runs, so the links often come back to the same
  /// flows with every colour further on in the same run. Each time the
  /// first unfinished colour starts a round, the state is compared with the
  /// last such start; a repeat is carried forward for as many whole periods
  /// as every run still has, one to spare. A colour with no round ending in
  /// the period has the same flows, each a fixed amount shorter, and bounds
  /// the periods too. O(runs) events instead of O(rounds) on long rings.
  struct Snapshot {
    std::size_t ref = SIZE_MAX;  ///< the colour whose round start it was taken at
    double t = 0;
    std::vector<Cursor> at;
    std::vector<double> left;  ///< time(): per link, blocks still to serve
    std::vector<std::tuple<std::size_t, std::size_t, double>> flows;  ///< link, colour, blocks left; sorted
  };
  /// Whether to take a snapshot now (`open`: flows per colour), and of
  /// which colour's round start; where that colour started a round but no
  /// run has rounds left to skip, `was` is dropped.
  bool snapshot_due(const std::vector<int>& open, const std::vector<std::size_t>& arrived, const std::vector<Cursor>& at,
                    Snapshot* was, std::size_t* ref) const {
    *ref = colours_;
    for (std::size_t c = 0; c < colours_ && *ref == colours_; ++c)
      if (open[c] > 0) *ref = c;
    if (*ref == colours_ || std::find(arrived.begin(), arrived.end(), *ref) == arrived.end()) return false;
    for (std::size_t c = 0; c < colours_; ++c)
      if (at[c].run < rounds_[c].size() && rounds_[c][at[c].run].times - at[c].done >= 2) return true;
    was->ref = colours_;
    return false;
  }
  /// Moves the colours' cursors and the time k periods on.
  void carry(const Snapshot& was, const Snapshot& now, long long k, std::vector<Cursor>* at, double* t) const {
    for (std::size_t c = 0; c < colours_; ++c) (*at)[c].done += k * (now.at[c].done - was.at[c].done);
    *t += static_cast<double>(k) * (now.t - was.t);
  }
  /// The whole periods from `was` to `now` that can be carried forward
  /// (0: none), and per flow of `now` what one period takes off it.
  long long periods(const Snapshot& was, const Snapshot& now, std::vector<double>* less) const {
    if (was.ref != now.ref || !(was.t < now.t) || was.flows.size() != now.flows.size()) return 0;
    const auto close = [](double x, double y) {
      return std::abs(x - y) <= 1e-9 * std::max({1.0, std::abs(x), std::abs(y)});
    };
    long long periods = LLONG_MAX;
    bool advanced = false;
    for (std::size_t c = 0; c < colours_; ++c) {
      const long long step = now.at[c].done - was.at[c].done;
      if (now.at[c].run != was.at[c].run || step < 0) return 0;
      if (step == 0) continue;
      advanced = true;
      periods = std::min(periods, (rounds_[c][now.at[c].run].times - now.at[c].done) / step - 1);
    }
    less->assign(now.flows.size(), 0.0);
    for (std::size_t i = 0; i < now.flows.size(); ++i) {
      const auto [link, c, left] = now.flows[i];
      if (std::get<0>(was.flows[i]) != link || std::get<1>(was.flows[i]) != c) return 0;
      const double before = std::get<2>(was.flows[i]);
      if (now.at[c].done > was.at[c].done) {
        if (!close(left, before)) return 0;
        continue;
      }
      // A round in flight all period: one flow per colour and link, shorter.
      if (!(before > left) || (i > 0 && std::get<0>(now.flows[i - 1]) == link && std::get<1>(now.flows[i - 1]) == c))
        return 0;
      (*less)[i] = before - left;
      periods = std::min(periods, static_cast<long long>(std::min(std::floor(left / (before - left)), 1e18)) - 1);
    }
    return advanced && periods > 0 ? periods : 0;
  }
  /// time()'s state as a snapshot.
  void take(Snapshot* now, std::size_t ref, double t) const {
    now->ref = ref;
    now->t = t;
    now->at = at_;
    now->left = left_;
    now->flows.clear();
    for (std::size_t l = 0; l < links_.size(); ++l)
      for (const Flow& f : links_[l].flows) now->flows.emplace_back(l, f.colour, f.target - links_[l].served);
    std::sort(now->flows.begin(), now->flows.end());
  }
  void skip_periods(double* t) {
    std::size_t ref;
    Snapshot& now = spare_;
    if (!snapshot_due(open_, arrived_, at_, &last_, &ref)) return;
    take(&now, ref, *t);
    const long long k = periods(last_, now, &less_);
    if (k > 0) {
      const double kd = static_cast<double>(k);
      for (std::size_t l = 0; l < links_.size(); ++l) left_[l] -= kd * (last_.left[l] - now.left[l]);
      for (std::size_t i = 0; i < now.flows.size(); ++i) {
        if (!(less_[i] > 0)) continue;
        Link& link = links_[std::get<0>(now.flows[i])];
        for (Flow& f : link.flows)
          if (f.colour == std::get<1>(now.flows[i])) f.target -= kd * less_[i];
        link.first = INFINITY;
        for (const Flow& f : link.flows) link.first = std::min(link.first, f.target);
      }
      carry(last_, now, k, &at_, t);
      now.ref = colours_;  // compare afresh from here
    }
    std::swap(now, last_);
  }
  Snapshot last_, spare_;
  std::vector<double> less_;
  /// Starts colour c's next round that moves anything.
  void start(std::size_t c) {
    const double weight = (*weights_)[c];
    if (!(weight > 0)) return;  // no rounds
    next_round(c, at_[c], [&](const Message& m) {
      const double blocks = weight * m.blocks;
      if (!(blocks > 0)) return false;
      Link& l = links_[static_cast<std::size_t>(m.link)];
      l.flows.push_back({c, l.served + blocks});
      l.share = 1.0 / static_cast<double>(l.flows.size());
      l.first = std::min(l.first, l.served + blocks);
      ++open_[c];
      ++active_;
      return true;
    });
  }
  std::size_t colours_;
  std::vector<std::vector<Round>> rounds_;
  std::vector<std::vector<double>> load_;  ///< [link][colour]: blocks per unit of weight
  std::vector<int> mirror_;                ///< per link: 2 where the - side repeats it
  std::vector<double> left_;               ///< per link: blocks still to serve
  const std::vector<double>* weights_ = nullptr;
  std::vector<Cursor> at_;
  std::vector<int> open_;
  std::vector<Link> links_;
  std::size_t active_ = 0;  ///< flows on all links
  std::vector<std::size_t> arrived_;
};

}  // namespace

double fluid_time(const Torus& torus, const std::vector<AxisOrder>& orders, const std::vector<double>& weights,
                  bool whole_antipode) {
  return Fluid(torus, orders, whole_antipode).time(weights);
}

double fluid_time_limited(const Torus& torus, const std::vector<AxisOrder>& orders, const std::vector<double>& weights,
                          bool whole_antipode, double inject, bool skip_repeats) {
  return Fluid(torus, orders, whole_antipode).time_limited(weights, inject, skip_repeats);
}

namespace {

std::vector<long long> search_weights(const Torus& torus, const std::vector<AxisOrder>& orders, long long units) {
  const std::size_t n = orders.size();
  Fluid fluid(torus, orders, false);
  std::vector<double> w(n, 1.0 / static_cast<double>(n));
  const auto normalised = [](std::vector<double> v) {
    const double sum = std::accumulate(v.begin(), v.end(), 0.0);
    for (double& x : v) x /= sum;
    return v;
  };
  double best = fluid.time(w);
  // Coordinate search: scale one weight up or down, keep what helps.
  for (double step : {0.5, 0.25, 0.125, 0.0625, 0.03125})
    for (int sweep = 0; sweep < 4; ++sweep) {
      bool improved = false;
      for (std::size_t i = 0; i < n; ++i)
        for (double sign : {1.0, -1.0}) {
          std::vector<double> v = w;
          v[i] *= 1 + sign * step;
          v = normalised(v);
          const double x = fluid.time(v, best);
          if (x < best * (1 - 1e-9)) {
            best = x;
            w = v;
            improved = true;
          }
        }
      if (!improved) break;
    }
  // Up to 8 colours, moves of weight from one colour to another, which a
  // search one weight at a time cannot make, kept where they gain 1 % or
  // more; with more colours the pairs make it too slow for a decision.
  if (n <= 8) {
    std::vector<double> moved = w;
    double after = best;
    for (double step : {0.5, 0.25, 0.125, 0.0625, 0.03125})
      for (int sweep = 0; sweep < 4; ++sweep) {
        bool improved = false;
        for (std::size_t from = 0; from < n; ++from)
          for (std::size_t to = 0; to < n; ++to) {
            if (from == to || !(moved[from] > 0)) continue;
            std::vector<double> v = moved;
            v[to] += v[from] * step;
            v[from] -= v[from] * step;
            // A move that costs nothing is taken too: from equal weights
            // every single move ties (another link stays the busiest), and
            // the next ones gain.
            const double x = fluid.time(v, after);
            if (x <= after * (1 + 1e-12)) {
              improved = improved || x < after * (1 - 1e-9);
              after = std::min(after, x);
              moved = v;
            }
          }
        if (!improved) break;
      }
    if (after < best * 0.99) w = moved;
  }
  // Whole units, the remainder to the largest fractions (ties: lower colour).
  std::vector<long long> out(n);
  std::vector<std::pair<double, std::size_t>> rest;
  long long given = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double exact = w[i] * static_cast<double>(units);
    out[i] = static_cast<long long>(std::floor(exact));
    given += out[i];
    rest.push_back({-(exact - static_cast<double>(out[i])), i});
  }
  std::sort(rest.begin(), rest.end());
  for (std::size_t k = 0; given < units; ++k, ++given) ++out[rest[k % n].second];
  return out;
}

}  // namespace

std::vector<long long> balanced_weights(const Torus& torus, const std::vector<AxisOrder>& orders, long long units) {
  // The search takes milliseconds: once per shape, links, orders and units in the process.
  using Key = std::tuple<std::vector<int>, std::uint32_t, std::uint32_t, std::vector<AxisOrder>, long long>;
  static ProcessMemo<Key, std::vector<long long>> known;
  std::vector<int> dims;
  for (int a = 0; a < torus.ndims(); ++a) dims.push_back(torus.dim(a));
  return *known.get({dims, torus.two_link_axes(), torus.open_axes(), orders, units},
                    [&] { return std::make_shared<std::vector<long long>>(search_weights(torus, orders, units)); });
}

}  // namespace torusgather
