// SPDX-License-Identifier: BSD-3-Clause
// The layered decomposition G x C_c (decomposition.hpp): a decomposition of
// the torus without one axis, lifted to the whole torus by one 2D rule and
// c - 1 square switches per cycle of G beyond the first.
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <utility>

#include "schedule/decomposition.hpp"
#include "schedule/hamiltonian.hpp"

namespace torusgather {
namespace {

/// G, the torus without the layer axis, and its decomposition: made once
/// per shape of G and shared by every try that lifts it.
struct Base {
  std::unique_ptr<Torus> torus;
  std::unique_ptr<LinkColouring> cycles;  ///< nullptr: G has none by rule
  /// A 2D G's other rules' cycles, tried where the first's lift does not fit.
  std::vector<std::unique_ptr<LinkColouring>> others;
};

/// The G already decomposed in one lift, by shape: nested lifts meet the
/// same G through different orders of removed axes (2^d shapes, not d!).
using Bases = std::map<std::vector<int>, std::shared_ptr<const Base>>;

std::unique_ptr<LinkColouring> lift(const Torus& t, Bases& bases);

/// H_0 x C_c, an N x c torus, decomposed into K_0 + K_1 by the 2D rule
/// tried first or the next that applies (0: square; s >= 1: gcd from shift
/// s on; -1: Meyer & Sibeyn §3.1; -2: gap switches), with each K_i's
/// positions. It depends on N, c and the rule only, so one layer's tries
/// (every decomposition of G, every H_0) share it.
struct Product {
  std::unique_ptr<Torus> torus;
  std::unique_ptr<LinkColouring> cycles;  ///< nullptr: no rule from there on applies
  int next_rule = 0;                      ///< the rule to try after this one
  std::vector<Rank> positions[2];
  Product(Rank n, int c, int rule) : torus(std::make_unique<Torus>(std::vector<int>{static_cast<int>(n), c})) {
    if (rule == 0) {
      cycles = square_decomposition(*torus);
      rule = 1;
    }
    if (!cycles && rule >= 1) {
      int taken = 0;
      cycles = gcd_decomposition(*torus, rule, &taken);
      rule = cycles ? taken + 1 : -1;
    }
    if (!cycles && rule == -1) {
      cycles = section31_decomposition(*torus);
      rule = -2;
    }
    if (!cycles && rule == -2) {
      cycles = gap_switch_decomposition(*torus);
      rule = -3;
    }
    next_rule = rule;
    if (!cycles) return;
    cycles = tabulate(*cycles);  // every try of the layer looks its colours up
    positions[0] = cycle_positions(*cycles, 0), positions[1] = cycle_positions(*cycles, 1);
  }
};
/// One layer's products, by the rule tried first.
using Products = std::map<int, std::shared_ptr<const Product>>;

/// G's decomposition: a 2D G may search (|G| is P^(1/2) to P^(2/3)); a
/// larger one only by rule, lifted again through `bases`.
std::shared_ptr<const Base> base_of(std::vector<int> dims, Bases& bases) {
  if (const auto it = bases.find(dims); it != bases.end()) return it->second;
  auto base = std::make_shared<Base>();
  base->torus = std::make_unique<Torus>(dims);
  const Torus& g = *base->torus;
  base->cycles = dims.size() == 2
                     ? hamiltonian_decomposition(g)
                     : decomposition_by_rule(g, [&bases](const Torus& x) { return lift(x, bases); });
  if (dims.size() == 2 && base->cycles)
    for (auto* rule : {section31_decomposition, gap_switch_decomposition})
      if (auto other = rule(g); other && other->construction() != base->cycles->construction())
        base->others.push_back(std::move(other));
  bases.emplace(std::move(dims), base);
  return base;
}

/// A switch on a cycle K of length L: it removes K's links low -> low + 1
/// and high -> high + 1 (positions round K) and joins low to high and
/// low + 1 to high + 1, or, `crossed`, low to high + 1 and low + 1 to high.
struct Switch {
  Rank low, high;
  bool crossed;
};

/// The switches made on one cycle K, with its removed links kept in order
/// round K. K falls into 2m paths between its m switches' removed links,
/// which the new links join into cycles: after each switch they are walked
/// once (O(m)), each path labelled with its cycle and the way that cycle
/// runs it, so that what one more switch would make is known in O(log m).
class SwitchedCycle {
 public:
  const std::vector<Switch>& switches() const { return switches_; }
  void add(const Switch& s) {
    const int at = static_cast<int>(switches_.size());
    for (const auto& link : {std::make_pair(s.low, 4 * at), std::make_pair(s.high, 4 * at + 2)})
      removed_.insert(std::upper_bound(removed_.begin(), removed_.end(), link), link);
    switches_.push_back(s);
    label();
  }
  /// How many cycles K falls into with its switches.
  int cycles() const { return cycles_; }
  /// How many with `extra` as well: its two links on two cycles join them;
  /// on one cycle, it keeps that one when the cycle runs the two links the
  /// same way and the switch is not crossed, or the other way and crossed,
  /// and splits it otherwise.
  int cycles_with(const Switch& extra) const {
    const std::size_t a = path_of(extra.low), b = path_of(extra.high);
    if (cycle_[a] != cycle_[b]) return cycles_ - 1;
    return (forward_[a] == forward_[b]) != extra.crossed ? cycles_ : cycles_ + 1;
  }

 private:
  /// The path whose inside holds K's link x -> x + 1 (not a removed one).
  std::size_t path_of(Rank x) const {
    if (removed_.empty()) return 0;
    const auto it = std::lower_bound(removed_.begin(), removed_.end(), std::make_pair(x, -1));
    return it == removed_.end() ? 0 : static_cast<std::size_t>(it - removed_.begin());
  }

  /// Path k runs from the upper end of removed link k - 1 to the lower end
  /// of removed link k. End ids: 4s (switch s's low), 4s + 1 (low + 1),
  /// 4s + 2 (high), 4s + 3 (high + 1); a link is kept with its lower end's.
  void label() {
    const int m2 = static_cast<int>(removed_.size());
    index_of_.resize(static_cast<std::size_t>(m2));  // end id / 2 -> index in removed_
    for (int k = 0; k < m2; ++k) index_of_[static_cast<std::size_t>(removed_[static_cast<std::size_t>(k)].second / 2)] = k;
    const auto partner = [&](int e) {
      const int base = e - e % 4, end = e % 4;
      return switches_[static_cast<std::size_t>(e / 4)].crossed ? base + 3 - end : base + (end ^ 2);
    };
    cycle_.assign(static_cast<std::size_t>(m2), -1);
    forward_.assign(static_cast<std::size_t>(m2), 0);
    cycles_ = 0;
    for (int first = 0; first < m2; ++first) {
      if (cycle_[static_cast<std::size_t>(first)] >= 0) continue;
      // Enter path `first` at its start; leave by its other end, cross the new link.
      int path = first;
      bool forward = true;
      while (cycle_[static_cast<std::size_t>(path)] < 0) {
        cycle_[static_cast<std::size_t>(path)] = cycles_;
        forward_[static_cast<std::size_t>(path)] = forward;
        const int leave = forward ? removed_[static_cast<std::size_t>(path)].second
                                  : removed_[static_cast<std::size_t>((path + m2 - 1) % m2)].second + 1;
        const int e = partner(leave);
        const int idx = index_of_[static_cast<std::size_t>(e / 2)];
        forward = e % 2 == 1;  // an upper end starts path idx + 1; a lower end ends path idx
        path = forward ? (idx + 1) % m2 : idx;
      }
      ++cycles_;
    }
  }

  std::vector<Switch> switches_;
  std::vector<std::pair<Rank, int>> removed_;  ///< (position round K, end id of its lower end), in order
  int cycles_ = 1;                             ///< K alone is one cycle
  std::vector<int> cycle_ = {0};               ///< path -> its cycle (K itself before any switch)
  std::vector<char> forward_ = {1};            ///< path -> whether its cycle runs it the way K does
  std::vector<int> index_of_;                  ///< label()'s, kept to reuse its memory
};

/// Repair switches, which join the cycles a lift leaves split. While a
/// colour X is in several cycles: the switch of a unit square (any two
/// axes) whose two links of X lie on two of X's cycles, so that it joins
/// them, and whose other two are of a colour Y: on two of Y's cycles (it
/// joins those too), else on one that runs them the same way (Y stays as it
/// is), else on one that runs them opposite ways (Y splits, for a later
/// switch to join), never a square switched before. Needed where every side
/// is even: there each lift switch changes the cycle counts of H_j and of
/// K_i by one each, so the lift alone keeps the parity of their sum and
/// cannot go from c + 2 cycles to 3 (c even).
class Repair {
 public:
  explicit Repair(TableColouring& table) : table_(table) {}

  /// At most kRepairs switches, each O(P · d^2); whether the table is then
  /// a decomposition. The table's construction counts them.
  bool run() {
    constexpr int kRepairs = 16;
    for (int step = 0; step <= kRepairs; ++step) {
      std::vector<CyclePlaces> on;
      int x = -1;
      for (int y = 0; y < table_.count(); ++y) {
        on.push_back(cycle_places(table_, y));
        if (x < 0 && on.back().length.size() > 1) x = y;
      }
      if (x < 0) {
        if (step > 0) table_.describe(table_.construction() + ", " + std::to_string(step) + " more to join cycles");
        return is_hamiltonian_decomposition(table_);
      }
      if (step == kRepairs || !join(x, on)) return false;
    }
    return false;
  }

 private:
  /// The best switch joining two of X's cycles, as the class comment ranks them.
  bool join(int x, const std::vector<CyclePlaces>& on) {
    const Torus& t = table_.torus();
    const Rank P = t.size();
    const int D = table_.count();
    const CyclePlaces& ox = on[static_cast<std::size_t>(x)];
    struct Square {
      Rank r = -1, r1 = 0, r2 = 0;
      int k1 = 0, k2 = 0, y = 0;
    } best[3];  // Y joined, kept, split
    // A square is its corner r and its two axes, either way round.
    const auto id_of = [&](Rank r, int k1, int k2) { return (r * D + std::min(k1, k2)) * D + std::max(k1, k2); };
    for (Rank r = 0; r < P && best[0].r < 0; ++r)
      for (int k1 = 0; k1 < D; ++k1)
        for (int k2 = 0; k2 < D; ++k2) {
          const int a1 = table_.axes()[static_cast<std::size_t>(k1)], a2 = table_.axes()[static_cast<std::size_t>(k2)];
          if (k1 == k2 || t.dim(a1) < 3 || t.dim(a2) < 3) continue;
          // The square r, r + e1, r + e2, r + e1 + e2: X's links along
          // e1 (from r and r + e2), Y's along e2 (from r and r + e1).
          const Rank r1 = t.shift(r, a1, 1), r2 = t.shift(r, a2, 1);
          if (table_.colour(r, k1) != x || table_.colour(r2, k1) != x ||
              ox.cycle[static_cast<std::size_t>(r)] == ox.cycle[static_cast<std::size_t>(r2)])
            continue;
          const int y = table_.colour(r, k2);
          if (y == x || table_.colour(r1, k2) != y) continue;
          if (std::find(done_.begin(), done_.end(), id_of(r, k1, k2)) != done_.end()) continue;
          const CyclePlaces& oy = on[static_cast<std::size_t>(y)];
          const Rank r12 = t.shift(r1, a2, 1);
          const int kind = oy.cycle[static_cast<std::size_t>(r)] != oy.cycle[static_cast<std::size_t>(r1)] ? 0
                           : oy.runs_up(r, r2) == oy.runs_up(r1, r12)                                ? 1
                                                                                                     : 2;
          if (best[kind].r < 0) best[kind] = Square{r, r1, r2, k1, k2, y};
        }
    for (const Square& q : best) {
      if (q.r < 0) continue;
      done_.push_back(id_of(q.r, q.k1, q.k2));
      table_.set(q.r, q.k1, q.y);
      table_.set(q.r2, q.k1, q.y);
      table_.set(q.r, q.k2, x);
      table_.set(q.r1, q.k2, x);
      return true;
    }
    return false;
  }

  TableColouring& table_;
  std::vector<long long> done_;  ///< the squares switched, by id_of
};

class LayeredColouring final : public LinkColouring {
 public:
  /// Tries each axis as the layer axis, the last first.
  static std::unique_ptr<LinkColouring> make(const Torus& t, Bases& bases) {
    const std::vector<int> axes = t.active_axes();
    if (axes.size() < 3 || t.open_axes() != 0) return nullptr;
    // Then each decomposition of G, each of its cycles as H_0, then the
    // first kRules 2D rules that give H_0 x C_c (each try costs O(P)).
    constexpr int kRules = 3;
    const int d = static_cast<int>(axes.size());
    // Nested switches first; where none fits, any that leaves K_i one cycle
    // in the end, then any that repair switches can join. The exact fit counts
    // K_i's cycles for every candidate, O(c^2) for one H_j on a layer axis
    // of c, and each repair switch is O(P · d^2): up to 65536 ranks only.
    constexpr Rank kExactFitLimit = 65536;
    // By layer, where both fits try the same products; above the limit a
    // layer's are dropped after it (O(P) each, and no exact fit follows).
    std::map<int, Products> products_of;
    for (const Fit fit : {Fit::nested, Fit::exact, Fit::repaired})
    for (int layer = d - 1; layer >= 0 && (fit == Fit::nested || t.size() <= kExactFitLimit); --layer) {
      std::vector<int> dims;
      for (int k = 0; k < d; ++k)
        if (k != layer) dims.push_back(t.dim(axes[static_cast<std::size_t>(k)]));
      const auto base = base_of(std::move(dims), bases);
      if (!base->cycles || base->cycles->count() != d - 1) continue;
      Products& products = products_of[layer];
      std::vector<const LinkColouring*> gs = {base->cycles.get()};
      for (const auto& other : base->others) gs.push_back(other.get());
      for (const LinkColouring* g : gs) {
        for (int h0 = 0; h0 < d - 1; ++h0)
          for (int rule = 0, tried = 0; tried < kRules; ++tried) {
            auto c = std::unique_ptr<LayeredColouring>(new LayeredColouring(t, layer, h0, base, g));
            const Outcome made = c->build(&rule, products, fit);
            if (made == Outcome::made) {
              auto table = tabulate(*c);
              if (fit == Fit::repaired ? Repair(*table).run() : is_hamiltonian_decomposition(*table)) return table;
            }
            if (made == Outcome::no_product) break;
          }
      }
      if (t.size() > kExactFitLimit) products_of.erase(layer);
    }
    return nullptr;
  }

  int colour(Rank r, int k) const override {
    const long long id = r * count() + k;
    const auto it = std::lower_bound(switched_.begin(), switched_.end(), std::make_pair(id, -1));
    if (it != switched_.end() && it->first == id) return it->second;
    const Rank v = base_rank(r);
    const int z = torus().coord(r, layer_axis_);
    if (k == layer_k_) return product_->cycles->colour(prod_rank(pos_[static_cast<std::size_t>(v)], z), 1);
    const int kb = base_k_[static_cast<std::size_t>(k)];
    const int bc = base_->colour(v, kb);
    if (bc != h0_) return bc < h0_ ? bc + 2 : bc + 1;
    // A link of H_0 joins neighbours on it: in H_0 x C_c it runs along axis 0.
    const Rank p = pos_[static_cast<std::size_t>(v)];
    const Rank pw = pos_[static_cast<std::size_t>(base_torus_->shift(v, kb, 1))];
    return product_->cycles->colour(prod_rank(pw == (p + 1) % n_ ? p : pw, z), 0);
  }

  std::string construction() const override {
    return "layered: (" + base_->construction() + ") x C_" + std::to_string(c_) + ", H_0 x C_" + std::to_string(c_) +
           " by (" + product_->cycles->construction() + "), " + std::to_string(switched_.size() / 4) + " switches";
  }

 private:
  enum class Outcome { made, no_switches, no_product };
  /// Which switches on K_i are taken: `nested`, two layer links K_i runs the
  /// same way, whose pair does not interleave the pairs taken before (K_i
  /// stays one cycle by construction); `exact`, any, K_i's cycles counted
  /// after each (SwitchedCycle): it may stay split in two while switches are
  /// left to join it, the split fewest first; `repaired`, as exact, but K_i
  /// may end in up to three cycles, which Repair then joins.
  enum class Fit { nested, exact, repaired };
  /// The cycles beyond one that a switch may leave K_i in (own_allowance),
  /// and K_0 and K_1 together once no switches are left (allowance), for
  /// the repair switches to join.
  static int own_allowance(Fit fit) { return fit == Fit::repaired ? 2 : 1; }
  static int allowance(Fit fit) { return fit == Fit::repaired ? 4 : 0; }

  LayeredColouring(const Torus& t, int layer_k, int h0, std::shared_ptr<const Base> base, const LinkColouring* g)
      : LinkColouring(t), layer_k_(layer_k), layer_axis_(axes()[static_cast<std::size_t>(layer_k)]),
        c_(t.dim(layer_axis_)), h0_(h0), owned_(std::move(base)), base_torus_(owned_->torus.get()),
        base_(g), n_(base_torus_->size()) {
    for (int k = 0; k < count(); ++k) {
      base_k_.push_back(k == layer_k_ ? -1 : static_cast<int>(full_k_.size()));
      if (k != layer_k_) full_k_.push_back(k);
    }
  }

  Rank base_rank(Rank r) const {
    Rank v = 0;
    for (std::size_t kb = 0; kb < full_k_.size(); ++kb)
      v += torus().coord(r, axes()[static_cast<std::size_t>(full_k_[kb])]) * base_torus_->stride(static_cast<int>(kb));
    return v;
  }
  Rank full_rank(Rank v, int z) const {
    Rank r = static_cast<Rank>(z) * torus().stride(layer_axis_);
    for (std::size_t kb = 0; kb < full_k_.size(); ++kb)
      r += base_torus_->coord(v, static_cast<int>(kb)) * torus().stride(axes()[static_cast<std::size_t>(full_k_[kb])]);
    return r;
  }
  Rank prod_rank(Rank p, int z) const { return p * product_->torus->stride(0) + z * product_->torus->stride(1); }

  /// Takes H_0 x C_c's decomposition by the rule *rule or the next that
  /// applies (Product, made once per layer in `products`), moves *rule past
  /// it, then joins each H_j's layer copies.
  Outcome build(int* rule, Products& products, Fit fit) {
    pos_ = cycle_positions(*base_, h0_);
    auto& product = products[*rule];
    if (!product) product = std::make_shared<const Product>(n_, c_, *rule);
    product_ = product;
    *rule = product_->next_rule;
    if (!product_->cycles) return Outcome::no_product;
    const LinkColouring& prod = *product_->cycles;
    const Rank L = product_->torus->size();
    // The switches' pairs of layer links round K_i, by position.
    SwitchedCycle chords[2];
    std::vector<char> used(static_cast<std::size_t>(L), 0);  // a layer link (p, z) -> (p, z + 1) switched
    struct Candidate {
      Switch sw;  ///< on K_i
      Rank v;
      int kb, i;
    };
    std::vector<Candidate> candidates;
    int split[2] = {0, 0};  // K_i's cycles beyond one (Fit::exact)
    int switches_left = (base_->count() - 1) * (c_ - 1);
    for (int j = 0; j < base_->count(); ++j) {
      if (j == h0_) continue;
      long long previous = -1;  // the link of H_j the last switch took out of layer z
      for (int z = 0; z + 1 < c_; ++z) {
        candidates.clear();
        for (Rank v = 0; v < n_; ++v)
          for (int kb = 0; kb < base_->count(); ++kb) {
            if (base_->colour(v, kb) != j || v * base_->count() + kb == previous) continue;
            const Rank x[2] = {prod_rank(pos_[static_cast<std::size_t>(v)], z),
                               prod_rank(pos_[static_cast<std::size_t>(base_torus_->shift(v, kb, 1))], z)};
            const int i = prod.colour(x[0], 1);
            if (prod.colour(x[1], 1) != i || used[static_cast<std::size_t>(x[0])] || used[static_cast<std::size_t>(x[1])])
              continue;
            const Switch sw = on_k(i, x[0], x[1]);
            if (sw.crossed && fit == Fit::nested) continue;
            candidates.push_back({sw, v, kb, i});
          }
        std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
          const Rank la = a.sw.high - a.sw.low, lb = b.sw.high - b.sw.low;
          return la != lb ? la < lb : a.sw.low < b.sw.low;
        });
        const auto nests = [&](const Candidate& c) {
          const Switch& n = c.sw;
          for (const Switch& o : chords[c.i].switches())
            if (!(o.high < n.low || n.high < o.low || (o.low < n.low && n.high < o.high) ||
                  (n.low < o.low && o.high < n.high)))
              return false;
          return true;
        };
        // Exact: the candidate that leaves K_0 and K_1 in the fewest cycles,
        // where K_i may stay split in two while switches remain to join it.
        const auto split_after = [&](const Candidate& c) {
          const int own = chords[c.i].cycles_with(c.sw) - 1;
          return own > own_allowance(fit) ? switches_left + allowance(fit) + 1 : own + split[1 - c.i];
        };
        auto chosen = candidates.end();
        if (fit == Fit::nested) {
          chosen = std::find_if(candidates.begin(), candidates.end(), nests);
        } else {
          // At most switches_left - 1 extra cycles, for the switches after
          // it (and the repair switches').
          int best = switches_left + allowance(fit);
          for (auto it = candidates.begin(); it != candidates.end() && best > 0; ++it)
            if (const int extra = split_after(*it); extra < best) chosen = it, best = extra;
        }
        if (chosen == candidates.end()) return Outcome::no_switches;
        // The square (v, z), (w, z), (w, z + 1), (v, z + 1): its layer links
        // join H_j, its two links of H_j join K_i.
        const Rank w = base_torus_->shift(chosen->v, chosen->kb, 1);
        const int k = full_k_[static_cast<std::size_t>(chosen->kb)];
        const int joined = j < h0_ ? j + 2 : j + 1;
        switched_.emplace_back(full_rank(chosen->v, z) * count() + layer_k_, joined);
        switched_.emplace_back(full_rank(w, z) * count() + layer_k_, joined);
        switched_.emplace_back(full_rank(chosen->v, z) * count() + k, chosen->i);
        switched_.emplace_back(full_rank(chosen->v, z + 1) * count() + k, chosen->i);
        chords[chosen->i].add(chosen->sw);
        split[chosen->i] = chords[chosen->i].cycles() - 1;
        --switches_left;
        used[static_cast<std::size_t>(prod_rank(pos_[static_cast<std::size_t>(chosen->v)], z))] = 1;
        used[static_cast<std::size_t>(prod_rank(pos_[static_cast<std::size_t>(w)], z))] = 1;
        previous = chosen->v * base_->count() + chosen->kb;
      }
    }
    std::sort(switched_.begin(), switched_.end());
    return Outcome::made;
  }

  /// The switch on K_i taking the layer links at product ranks x0 and x1
  /// (rows of one layer z): their places round K_i and whether K_i runs them
  /// the same way.
  Switch on_k(int i, Rank x0, Rank x1) const {
    const Torus& prod_torus = *product_->torus;
    const std::vector<Rank>& kpos = product_->positions[i];
    const Rank L = prod_torus.size();
    Rank at[2];
    bool up[2];
    const Rank x[2] = {x0, x1};
    for (int e = 0; e < 2; ++e) {
      const Rank from = kpos[static_cast<std::size_t>(x[e])];
      const Rank to = kpos[static_cast<std::size_t>(prod_torus.shift(x[e], 1, 1))];
      up[e] = to == (from + 1) % L;
      at[e] = up[e] ? from : to;
    }
    return {std::min(at[0], at[1]), std::max(at[0], at[1]), up[0] != up[1]};
  }

  int layer_k_, layer_axis_, c_;
  int h0_;                   ///< the cycle of G that is H_0; G's others keep their order after it
  std::vector<int> base_k_;  ///< the torus's active-axis index -> G's axis (-1: the layer axis)
  std::vector<int> full_k_;  ///< G's axis -> the torus's active-axis index
  std::shared_ptr<const Base> owned_;
  const Torus* base_torus_;
  const LinkColouring* base_;
  Rank n_;                                            ///< |G|
  std::shared_ptr<const Product> product_;  ///< H_0 x C_c decomposed
  std::vector<Rank> pos_;                             ///< G's rank -> its position on H_0
  std::vector<std::pair<long long, int>> switched_;  ///< link id r * count() + k -> colour, sorted
};

std::unique_ptr<LinkColouring> lift(const Torus& t, Bases& bases) { return LayeredColouring::make(t, bases); }

}  // namespace

std::unique_ptr<LinkColouring> layered_decomposition(const Torus& t) {
  Bases bases;
  return lift(t, bases);
}

}  // namespace torusgather
