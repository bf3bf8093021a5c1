// SPDX-License-Identifier: BSD-3-Clause
// The vendors' allgather algorithms in closed form (ring, Bruck, recursive
// doubling, neighbour exchange, linear, the shift), on the torus the ranks
// are laid on.
#include "model/closed_form.hpp"
#include "model/cost.hpp"

#include <algorithm>
#include <array>
#include <limits>

namespace torusgather {
namespace {

/// Hops of a displacement x (0..n-1) along a ring of n, the shorter way,
/// and whether it goes the + way (ties go +, as routed_message does).
int ring_hops(long long x, int n) { return static_cast<int>(std::min<long long>(x, n - x)); }

/// The round in which every rank r (of `parity` if >= 0) sends `blocks` to
/// r + i (mod P), each message on its dimension-order route (axis 0 first).
///
/// Row-major ranks add i digit by digit from the last axis, so the move on
/// axis a is (i_a + c) mod n_a with c the carry out of the axes after a. A
/// message crosses axis a while its coordinates after a are still its
/// source's, so every axis-a link sees one carry c, and the messages that
/// cross it come from the h positions before it on its ring, one source
/// each: the link carries exactly h(i_a + c) messages in the direction of
/// that move. Carry 1 into axis a occurs iff i's digits after a are not all
/// zero; carry 0 always. A subset of the ranks (a parity) can only lower a
/// link's load; the one caller that uses it (neighbour exchange, i = +-1)
/// has at most one message per link either way (cost.hpp).
///
/// node_ranks k > 1: the last axis is each node's k ranks (shared memory,
/// node_blocks) and a node's k ranks share its network links. An axis-a
/// node link then carries the k links of sources that differ only in j,
/// whose suffixes after a are k consecutive values v: carry 1 iff v >= S -
/// i_suf (S the product of the sides after a, i_suf = i mod S). The worst
/// node has the most such j (the top k values, min(k, i_suf)) or the
/// fewest (the bottom k, max(0, k - S + i_suf)), whichever carry moves
/// further; moves that go opposite ways load different directed links.
RoundCost shift_round(const Torus& t, Rank i, double blocks, int parity = -1, int node_ranks = 1) {
  RoundCost c;
  const Rank P = t.size();
  i = ((i % P) + P) % P;
  if (i == 0) return c;
  const int d = t.ndims();
  int messages = 0;
  long long node_messages = 0;
  bool suffix_nonzero = false;  // i's digits after axis a
  for (int a = d - 1; a >= 0; --a) {
    const int n = t.dim(a);
    const int digit = t.coord(i, a);
    if (node_ranks > 1) {
      const long long k = node_ranks;
      const long long h0 = ring_hops(digit % n, n), h1 = ring_hops((digit + 1) % n, n);
      if (a == d - 1) {
        node_messages = h0;  // nothing carries into the last axis
      } else {
        const long long S = t.stride(a), suffix = i % S;
        long long load = k * h0;  // no carry into a
        if (suffix > 0) {
          // The two moves share a directed link only if they go the same way.
          const int x0 = digit % n, x1 = (digit + 1) % n;
          const bool same_way = x0 == 0 || x1 == 0 || (x0 <= n - x0) == (x1 <= n - x1);
          load = 0;
          for (long long ones : {std::min(k, suffix), std::max(0LL, k - S + suffix)})
            load = std::max(load, same_way ? ones * h1 + (k - ones) * h0 : std::max(ones * h1, (k - ones) * h0));
        }
        messages = static_cast<int>(std::max<long long>(messages, load));
      }
    } else {
      messages = std::max(messages, ring_hops(digit % n, n));
      if (suffix_nonzero) messages = std::max(messages, ring_hops((digit + 1) % n, n));
    }
    suffix_nonzero = suffix_nonzero || digit != 0;
  }
  if (parity >= 0) {
    messages = std::min(messages, 1);
    node_messages = std::min<long long>(node_messages, 1);
    if (node_ranks > 1 && node_ranks % 2 == 0 && (i == 1 || i == P - 1)) {
      // An even k: rank parity is j's. Only j = k-1 (i = 1) or j = 0
      // (i = -1) leaves the node; the other j move inside it.
      const int out_j = i == 1 ? node_ranks - 1 : 0;
      if (out_j % 2 != parity) messages = 0;
      // The one leaving also takes a node-axis link: the wrap from k-1 to 0.
      bool inside = out_j % 2 == parity;
      for (int j = i == 1 ? 0 : 1; j <= (i == 1 ? node_ranks - 2 : node_ranks - 1); ++j) inside = inside || j % 2 == parity;
      if (!inside) node_messages = 0;
    }
  }
  // The longest route: a DP over the axes from the last, the state being the
  // carry into the axis and the parity of the source's coordinates so far.
  constexpr int kNone = std::numeric_limits<int>::min();
  std::array<std::array<int, 2>, 2> best{};  // [carry][parity]
  for (auto& row : best) row.fill(kNone);
  best[0][0] = 0;
  for (int a = d - 1; a >= 0; --a) {
    const int n = t.dim(a);
    const int digit = t.coord(i, a);
    const int odd_stride = static_cast<int>(t.stride(a) & 1);
    std::array<std::array<int, 2>, 2> next{};
    for (auto& row : next) row.fill(kNone);
    for (int carry = 0; carry < 2; ++carry)
      for (int par = 0; par < 2; ++par) {
        if (best[carry][par] == kNone) continue;
        const int h = best[carry][par] + ring_hops((digit + carry) % n, n);
        // The source's coordinate x on this axis decides the carry out and
        // its parity; x and x + 2 behave alike except near the wrap, so the
        // four (carry, parity) outcomes are all found among a few x.
        for (int x : {0, 1, n - 2, n - 1, n - 1 - digit - carry, n - digit - carry}) {
          if (x < 0 || x >= n) continue;
          const int out = x + digit + carry >= n ? 1 : 0;
          const int p = par ^ (x & odd_stride);
          next[out][p] = std::max(next[out][p], h);
        }
      }
    best = next;
  }
  int hops = 0;
  for (int carry = 0; carry < 2; ++carry)
    for (int par = 0; par < 2; ++par)
      if (parity < 0 || par == parity) hops = std::max(hops, best[carry][par]);
  c.link_blocks = messages * blocks;
  c.node_blocks = static_cast<double>(node_messages) * blocks;
  c.recv_blocks = blocks;
  c.sends = c.recvs = 1;
  c.hops = hops;
  return c;
}

}  // namespace

CostProfile vendor_profile(const Torus& t, VendorAlgorithm a, int node_ranks) {
  const Rank P = t.size();
  CostProfile out;
  if (P < 2) return out;
  // The shifts' counts assume every axis wraps: on open axes the routes are
  // stepped through, as far as that is cheap; beyond it the wrapped torus's
  // counts stand in (they undercount the vendor's hops and loads).
  if (t.open_axes() && P <= kSteppedProfileLimit) return vendor_profile_stepped(t, a, node_ranks);
  const int k = node_ranks > 1 && t.ndims() >= 2 && t.dim(t.ndims() - 1) == node_ranks ? node_ranks : 1;
  switch (a) {
    case VendorAlgorithm::kTwoProc:
    case VendorAlgorithm::kRing:
      out.add(shift_round(t, 1, 1, -1, k), P - 1);
      return out;
    case VendorAlgorithm::kShift:
      for (Rank i = 1; i < P; ++i) out.add(shift_round(t, i, 1, -1, k));
      return out;
    case VendorAlgorithm::kBruck:
      for (Rank d = 1; d < P; d <<= 1)
        out.add(shift_round(t, P - d, static_cast<double>(std::min(d, P - d)), -1, k));
      return out;
    case VendorAlgorithm::kRecursiveDoubling: {
      if (P & (P - 1)) return vendor_profile(t, VendorAlgorithm::kBruck, k);  // Open MPI's fallback
      // P = 2^m, so every side is a power of two and bit b of a rank is a
      // bit j of one coordinate: r ^ 2^b moves 2^j along that axis, + from
      // ranks with the bit clear, - from the others (+ for both on a tie).
      // 2^j consecutive sources share the bit, so a link carries 2^j messages.
      for (Rank bit = 1; bit < P; bit <<= 1) {
        int axis = t.ndims() - 1;
        while (t.stride(axis) * t.dim(axis) <= bit) --axis;
        const auto move = static_cast<int>(bit / t.stride(axis));
        RoundCost c;
        // With a node axis (k | P: a power of two) the bits below k stay in
        // the node; above, the node's k ranks cross its links alike.
        if (k > 1 && axis == t.ndims() - 1)
          c.node_blocks = static_cast<double>(move) * static_cast<double>(bit);
        else
          c.link_blocks = static_cast<double>(k) * static_cast<double>(move) * static_cast<double>(bit);
        c.recv_blocks = static_cast<double>(bit);
        c.sends = c.recvs = 1;
        c.hops = move;
        out.add(c);
      }
      return out;
    }
    case VendorAlgorithm::kNeighborExchange: {
      if (P % 2) return vendor_profile(t, VendorAlgorithm::kRing, k);  // Open MPI's fallback for odd P
      // Even ranks send +1 and odd ones -1, then the two alternate: one
      // message per link (a + and a - message meeting on a link would come
      // from ranks two apart, which have the same parity).
      auto round = [&t, k](int plus_parity, double blocks) {
        RoundCost c = shift_round(t, 1, blocks, plus_parity, k), m = shift_round(t, -1, blocks, 1 - plus_parity, k);
        c.hops = std::max(c.hops, m.hops);
        if (k > 1) {
          // On a side of 2 before the node axis the -1 move ties and goes +
          // too, out of the same node: with k even its j = 0 and j = k-1
          // have the parities of both moves or of neither, with k odd one.
          const bool shared = t.dim(t.ndims() - 2) == 2 && k % 2 == 0;
          c.link_blocks = shared ? c.link_blocks + m.link_blocks : std::max(c.link_blocks, m.link_blocks);
          c.node_blocks = std::max(c.node_blocks, m.node_blocks);
        }
        return c;
      };
      out.add(round(0, 1));
      const long long steps = P / 2 - 1;
      out.add(round(1, 2), (steps + 1) / 2);
      out.add(round(0, 2), steps / 2);
      return out;
    }
    case VendorAlgorithm::kLinear: {
      // Every pair: the union of all translations of the torus, each of
      // which puts h(x) messages on every link its move x takes.
      // A node axis: its links are shared memory; the k links of a node
      // on every other axis carry alike.
      RoundCost c;
      for (int a = 0; a < t.ndims(); ++a) {
        const int n = t.dim(a);
        long long per_link = 0;
        for (int x = 1; x < n; ++x)
          if (x <= n - x) per_link += x;
        if (k > 1 && a == t.ndims() - 1)
          c.node_blocks = static_cast<double>(P / n * per_link);
        else
          c.link_blocks = std::max(c.link_blocks, static_cast<double>(k * (P / n) * per_link));
        c.hops += n / 2;
      }
      c.sends = c.recvs = static_cast<int>(std::min<Rank>(P - 1, std::numeric_limits<int>::max()));
      c.recv_blocks = static_cast<double>(P - 1);
      out.add(c);
      return out;
    }
    case VendorAlgorithm::kRecursiveDoublingTree:
      if ((P & (P - 1)) == 0) return vendor_profile(t, VendorAlgorithm::kRecursiveDoubling, k);
      // MPICH's fix-up rounds on other P are charged by stepping through
      // them: O(P log P * diameter). Only SimGrid's model uses it.
      return vendor_profile_stepped(t, a, k);
  }
  return out;
}

}  // namespace torusgather
