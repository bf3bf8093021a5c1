// SPDX-License-Identifier: BSD-3-Clause
#include "model/cost.hpp"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "model/closed_form.hpp"
#include "model/round_load.hpp"
#include "model/route.hpp"
#include "schedule/node_sliced.hpp"
#include "simulate/simulate.hpp"

namespace torusgather {
namespace {

constexpr int kFieldsPerRun = 8;

/// A message between ranks of the torus along the dimension-order route.
void routed_message(const Torus& t, RoundLoad& load, Rank from, Rank to, double blocks) {
  const int hops = walk_route(t, from, to, [&](Rank at, Port p) { load.link(at, p, blocks); });
  load.message(from, to, blocks, hops);
}

}  // namespace

void CostProfile::add(const RoundCost& c, long long times) {
  if (times <= 0) return;
  if (!runs.empty() && runs.back().second == c)
    runs.back().first += times;
  else
    runs.emplace_back(times, c);
}

long long CostProfile::rounds() const {
  long long n = 0;
  for (const auto& run : runs) n += run.first;
  return n;
}

std::vector<double> CostProfile::serialize() const {
  std::vector<double> out;
  for (const auto& [times, c] : runs)
    out.insert(out.end(), {static_cast<double>(times), c.link_blocks, c.recv_blocks, static_cast<double>(c.sends),
                           static_cast<double>(c.recvs), static_cast<double>(c.hops), c.node_blocks,
                           c.streams ? 1.0 : 0.0});
  return out;
}

CostProfile CostProfile::deserialize(const std::vector<double>& flat) {
  CostProfile p;
  for (std::size_t i = 0; i + kFieldsPerRun <= flat.size(); i += kFieldsPerRun) {
    RoundCost c;
    c.link_blocks = flat[i + 1];
    c.recv_blocks = flat[i + 2];
    c.sends = static_cast<int>(flat[i + 3]);
    c.recvs = static_cast<int>(flat[i + 4]);
    c.hops = static_cast<int>(flat[i + 5]);
    c.node_blocks = flat[i + 6];
    c.streams = flat[i + 7] != 0;
    p.add(c, static_cast<long long>(flat[i]));
  }
  return p;
}

double predict(const CostProfile& profile, const Machine& m, double block_bytes) {
  double t = 0;
  for (const auto& [times, c] : profile.runs) {
    if (c.sends == 0 && c.recvs == 0) continue;  // a round in which this schedule moves nothing
    const double bytes = (m.shared_memory ? c.recv_blocks : c.link_blocks) * block_bytes;
    // LogP/LogGP (Culler et al. 1993; Alexandrov et al. 1995): a rank spends o
    // on each message it sends, then o on each it receives, while earlier
    // messages are on the wire. A round with α = 2o + L for one message each
    // way ends at the latest of: its CPU time (all its overheads), the
    // busiest link's transfer, and its last-sent message's arrival, plus
    // receives arriving together (q per sender's slot) that queue.
    const int sends = std::max(1, c.sends), recvs = std::max(1, c.recvs);
    const double o = m.overhead, queued = o * ((recvs + sends - 1) / sends - 1);
    const double message = c.recv_blocks / recvs * block_bytes;  // no more than a link carries
    auto extra = [&](double alpha, double beta, double link_bytes, double limit) {
      const double wire = std::max(0.0, alpha - 2 * o);
      return std::max({o * (sends + recvs - 2) - wire, beta * link_bytes, limit,
                       o * (sends - 1) + queued + beta * std::min(message, link_bytes)});
    };
    double round = 0;
    if (c.link_blocks > 0 || c.node_blocks == 0) {
      // What a node's ranks send and receive must pass its injection limit.
      const double injected = 2.0 * std::max(1, m.node_ranks) * c.recv_blocks * block_bytes;
      const double hops = m.delta * std::max(0, c.hops - 1);
      if (c.streams) {
        // Streams: while one colour waits for its transfers, another's
        // overheads run; only part of the smaller of the two shows.
        const double net = std::max(m.beta * bytes, m.inject_beta * injected);
        round = streams_round(std::max(0.0, m.alpha - 2 * o) + hops, o * (sends + recvs), net);
      } else {
        round = m.alpha + hops + extra(m.alpha, m.beta, bytes, m.inject_beta * injected);
      }
    }
    if (c.node_blocks > 0) {
      // The node's shared memory, at the same time as the network (whose
      // round already holds the messages' overhead).
      const double alpha = m.node_alpha > 0 ? m.node_alpha : m.alpha;
      const double beta = m.node_beta > 0 ? m.node_beta : m.beta;
      const double node_bytes = c.node_blocks * block_bytes;
      const double node = alpha + (c.link_blocks > 0 ? beta * node_bytes : extra(alpha, beta, node_bytes, 0));
      round = std::max(round, node);
    }
    t += static_cast<double>(times) * round;
  }
  return t;
}

void spread_streams(CostProfile* p, double fluid_blocks, double share) {
  if (!(fluid_blocks > 0)) return;
  double received = 0;
  for (const auto& [times, r] : p->runs) received += static_cast<double>(times) * r.recv_blocks;
  for (auto& [times, r] : p->runs) {
    r.link_blocks = received > 0 ? share * fluid_blocks * r.recv_blocks / received : 0;
    r.node_blocks = 0;
  }
}

namespace {

/// A node-sliced schedule: its inner schedule's rounds with each link
/// carrying the k slices, then floor(k/2) steps of the node ring, each
/// moving one slice (N blocks) per direction, halves on an even ring's last.
/// Overlapped, every round adds the node ring's share (node_rounds()): its
/// messages to the rank's, its blocks to the node axis, which runs beside
/// the network (predict()); the node's injection limit sees the network's.
CostProfile node_sliced_profile(const NodeSlicedSchedule& s, long long step_limit) {
  const int k = s.node_ranks();
  CostProfile out;
  CostProfile inner;
  // The inner schedule as built (its variant).
  if (!closed_form_profile(s.inner(), &inner)) inner = profile(s.inner(), step_limit);
  if (s.overlap()) {
    const auto& node = s.node_rounds();
    std::size_t r = 0;
    const auto add = [&](RoundCost c) {
      const auto& n = node[r++];
      c.node_blocks = n.blocks;
      c.sends += n.sends;
      c.recvs += n.recvs;
      if (c.link_blocks == 0) {  // the node ring alone
        c.recv_blocks = n.recv_blocks;
        c.hops = 1;
      }
      out.add(c);
    };
    for (auto [times, c] : inner.runs) {
      c.link_blocks *= k;
      for (long long i = 0; i < times; ++i) add(c);
    }
    while (r < node.size()) add(RoundCost{});
    return out;
  }
  for (auto [times, c] : inner.runs) {
    c.link_blocks *= k;
    out.add(c, times);
  }
  const auto N = static_cast<double>(s.nodes());
  for (int step = 1; step <= k / 2; ++step) {
    // Halves on an even ring's last step; with k = 2 both go to the one
    // neighbour, over one link as every side of 2 here.
    const double slice = k % 2 == 0 && step == k / 2 && k > 2 ? N / 2 : N;
    RoundCost c;
    c.node_blocks = slice;
    c.recv_blocks = k == 2 ? N : 2 * slice;
    c.sends = c.recvs = 2 * s.colours();
    c.hops = 1;
    out.add(c);
  }
  return out;
}

}  // namespace

CostProfile profile(const Schedule& s, long long step_limit, const Torus* physical, int node_ranks) {
  if (const auto* sliced = dynamic_cast<const NodeSlicedSchedule*>(&s)) return node_sliced_profile(*sliced, step_limit);
  CostProfile out;
  const Torus& t = s.torus();
  const Rank P = t.size();
  // Calls of a torus schedule take its ports; all others cross `net`.
  const Torus& net = physical && physical->size() == P && !s.torus_network() ? *physical : t;
  if (node_ranks > 1 && (net.ndims() < 2 || net.dim(net.ndims() - 1) != node_ranks)) node_ranks = 1;
  if (P > step_limit) {
    const StructuralProof proof = s.prove();
    if (proof.supported) {
      // Every round charged the proven maxima: each of the 2d ports busy.
      RoundCost c;
      // A node's k ranks may all use one of its links at once.
      c.link_blocks = proof.max_link_blocks_per_round * node_ranks;
      c.recv_blocks = proof.max_link_blocks_per_round * s.link_ports();
      c.sends = c.recvs = proof.max_link_messages_per_round * s.link_ports();
      c.hops = 1;
      c.streams = s.independent_colours();
      out.add(c, proof.rounds);
      return out;
    }
  }
  std::vector<std::unique_ptr<RankProgram>> programs;
  programs.reserve(static_cast<std::size_t>(P));
  for (Rank r = 0; r < P; ++r) programs.push_back(s.program(r));
  // Loads on the physical torus: a neighbour call of a torus schedule
  // takes its port; every other call (routed calls, and the links of a
  // circulant or chordal ring) is one MPI message from sender to receiver,
  // which the network routes in dimension order, whatever path the paper
  // drew for it.
  RoundLoad load(P, net.ports(), node_ranks, net.ndims() - 1);
  RoundOps ops;
  for (long long round = 1; round <= s.rounds(); ++round) {
    for (Rank r = 0; r < P; ++r) {
      programs[static_cast<std::size_t>(r)]->next_round(ops);
      for (const Transfer& x : ops.sends) {
        const double blocks = transfer_blocks(t, x, s.colours());
        // On a side of 2 with one link both ports lead to the same
        // neighbour, and the network routes every message to it one way
        // (SimGrid: 4x2 at 1 MiB takes twice the two-link time): charged as routed.
        if (!x.routed() && s.torus_network() && !t.shared_link(port_axis(x.port))) {
          load.link(r, x.port, blocks);
          load.message(r, t.neighbor(r, x.port), blocks, 1);
        } else {
          routed_message(net, load, r, x.routed() ? x.peer : s.link_target(r, x.port), blocks);
        }
      }
    }
    RoundCost c = load.finish();
    c.streams = s.independent_colours();
    out.add(c);
  }
  spread_streams(&out, s.streams_link_blocks(), node_ranks);
  return out;
}

const char* to_string(VendorAlgorithm a) {
  switch (a) {
    case VendorAlgorithm::kRing: return "ring";
    case VendorAlgorithm::kNeighborExchange: return "neighbor-exchange";
    case VendorAlgorithm::kRecursiveDoubling: return "recursive-doubling";
    case VendorAlgorithm::kBruck: return "bruck";
    case VendorAlgorithm::kTwoProc: return "two-proc";
    case VendorAlgorithm::kLinear: return "linear";
    case VendorAlgorithm::kShift: return "shift";
    case VendorAlgorithm::kRecursiveDoublingTree: return "recursive-doubling-tree";
  }
  return "?";
}

CostProfile vendor_profile_stepped(const Torus& t, VendorAlgorithm a, int node_ranks) {
  const Rank P = t.size();
  CostProfile out;
  if (P < 2) return out;
  if (node_ranks > 1 && (t.ndims() < 2 || t.dim(t.ndims() - 1) != node_ranks)) node_ranks = 1;
  RoundLoad load(P, t.ports(), node_ranks, t.ndims() - 1);
  auto wrap = [P](Rank r) { return ((r % P) + P) % P; };
  switch (a) {
    case VendorAlgorithm::kTwoProc:
    case VendorAlgorithm::kRing:
      // P-1 identical steps: r sends one block to r+1.
      for (Rank r = 0; r < P; ++r) routed_message(t, load, r, wrap(r + 1), 1);
      out.add(load.finish(), P - 1);
      return out;
    case VendorAlgorithm::kNeighborExchange: {
      if (P % 2) return vendor_profile_stepped(t, VendorAlgorithm::kRing, node_ranks);  // Open MPI's fallback for odd P
      // Step 0: pairs (2i, 2i+1) swap their blocks; then P/2-1 steps in
      // which the pairs alternate between left and right neighbours and
      // swap the two blocks received last.
      for (Rank r = 0; r < P; ++r) routed_message(t, load, r, r % 2 ? r - 1 : r + 1, 1);
      out.add(load.finish());
      for (int parity = 0; parity < 2; ++parity) {
        for (Rank r = 0; r < P; ++r) {
          const bool right = (r % 2 == 0) == (parity == 1);
          routed_message(t, load, r, wrap(right ? r + 1 : r - 1), 2);
        }
        const long long steps = P / 2 - 1;
        out.add(load.finish(), parity == 0 ? (steps + 1) / 2 : steps / 2);
      }
      return out;
    }
    case VendorAlgorithm::kRecursiveDoubling:
      if (P & (P - 1)) return vendor_profile_stepped(t, VendorAlgorithm::kBruck, node_ranks);  // Open MPI's fallback
      for (Rank d = 1; d < P; d <<= 1) {
        for (Rank r = 0; r < P; ++r) routed_message(t, load, r, r ^ d, static_cast<double>(d));
        out.add(load.finish());
      }
      return out;
    case VendorAlgorithm::kBruck:
      // ceil(log2 P) steps: r sends what it has, min(d, P-d) blocks, to r-d.
      for (Rank d = 1; d < P; d <<= 1) {
        for (Rank r = 0; r < P; ++r) routed_message(t, load, r, wrap(r - d), static_cast<double>(std::min(d, P - d)));
        out.add(load.finish());
      }
      return out;
    case VendorAlgorithm::kShift:
      // Step i: r sends its block to r+i and receives r-i's.
      for (Rank i = 1; i < P; ++i) {
        for (Rank r = 0; r < P; ++r) routed_message(t, load, r, wrap(r + i), 1);
        out.add(load.finish());
      }
      return out;
    case VendorAlgorithm::kRecursiveDoublingTree: {
      // Per step (mask = 2^i) a round of exchanges with rank ^ mask, each
      // rank sending all it has; then, where the partner subtree is cut
      // short by P, rounds tmp_mask = mask/2 .. 1 in which ranks that had a
      // partner send what they received to rank ^ tmp_mask that had none.
      // Charged as rounds all ranks take together.
      std::vector<double> have(static_cast<std::size_t>(P), 1), last(static_cast<std::size_t>(P), 0);
      auto at = [](std::vector<double>& v, Rank r) -> double& { return v[static_cast<std::size_t>(r)]; };
      int i = 0;
      for (Rank mask = 1; mask < P; mask <<= 1, ++i) {
        std::vector<double> sent(static_cast<std::size_t>(P), 0);
        for (Rank r = 0; r < P; ++r)
          if (const Rank dst = r ^ mask; dst < P) {
            routed_message(t, load, r, dst, at(have, r));
            at(sent, dst) = at(have, r);
          }
        for (Rank r = 0; r < P; ++r)
          if ((r ^ mask) < P) at(last, r) = at(sent, r), at(have, r) += at(sent, r);
        out.add(load.finish());
        // The fixup, per subtree whose partner subtree ends at P.
        for (Rank tmp = mask >> 1, k = i - 1; tmp > 0; tmp >>= 1, --k) {
          std::vector<std::pair<Rank, Rank>> sends;
          for (Rank r = 0; r < P; ++r) {
            const Rank my_root = (r >> i) << i, dst_root = ((r ^ mask) >> i) << i;
            if (dst_root + mask <= P) continue;
            const Rank completed = P - my_root - mask, root = (r >> k) << k, dst = r ^ tmp;
            if (dst > r && r < root + completed && dst >= root + completed && dst < P) sends.emplace_back(r, dst);
          }
          for (const auto& [from, to] : sends) routed_message(t, load, from, to, at(last, from));
          for (const auto& [from, to] : sends) at(last, to) = at(last, from), at(have, to) += at(last, from);
          if (!sends.empty()) out.add(load.finish());
        }
      }
      return out;
    }
    case VendorAlgorithm::kLinear:
      // One round: every rank sends its block to every other rank at once.
      for (Rank r = 0; r < P; ++r)
        for (Rank q = 0; q < P; ++q)
          if (q != r) routed_message(t, load, r, q, 1);
      out.add(load.finish());
      return out;
  }
  return out;
}

namespace {

/// Open MPI 4.1 coll/tuned's fixed allgather decision (the table of
/// ompi_coll_tuned_allgather_intra_dec_fixed, as SimGrid 3.32's
/// smpi/allgather:ompi also has it): per communicator-size class, the
/// algorithm for blocks below each size. Our own encoding of the published
/// table; R = recursive doubling, B = Bruck, N = neighbour exchange, G = ring.
struct SizeRule {
  long long below;  ///< block bytes below which `algorithm` applies
  char algorithm;
};
struct CommClass {
  long long ranks_below;
  std::vector<SizeRule> rules;  ///< the last rule has below = -1 (everything else)
};
const std::vector<CommClass>& ompi_table() {
  static const std::vector<CommClass> table = {
      {32, {{-1, 'R'}}},
      {64, {{1024, 'R'}, {65536, 'N'}, {-1, 'G'}}},
      {128, {{512, 'R'}, {65536, 'N'}, {-1, 'G'}}},
      {256, {{512, 'R'}, {131072, 'N'}, {524288, 'G'}, {1048576, 'N'}, {-1, 'G'}}},
      {512, {{32, 'R'}, {128, 'B'}, {1024, 'R'}, {131072, 'N'}, {524288, 'G'}, {1048576, 'N'}, {-1, 'G'}}},
      {1024, {{64, 'R'}, {256, 'B'}, {2048, 'R'}, {-1, 'N'}}},
      {2048, {{4, 'R'}, {8, 'B'}, {16, 'R'}, {32, 'B'}, {256, 'R'}, {512, 'B'}, {4096, 'R'}, {-1, 'N'}}},
      {4096, {{32, 'B'}, {128, 'R'}, {512, 'B'}, {4096, 'R'}, {-1, 'N'}}},
      {-1, {{2, 'R'}, {8, 'B'}, {16, 'R'}, {512, 'B'}, {4096, 'R'}, {-1, 'N'}}},
  };
  return table;
}

VendorAlgorithm from_letter(char c) {
  switch (c) {
    case 'R': return VendorAlgorithm::kRecursiveDoubling;
    case 'B': return VendorAlgorithm::kBruck;
    case 'N': return VendorAlgorithm::kNeighborExchange;
    default: return VendorAlgorithm::kRing;
  }
}

}  // namespace

bool vendor_choice(const std::string& vendor, long long P, long long block_bytes, VendorAlgorithm* out) {
  if (vendor == "ompi") {
    if (P == 2) {
      *out = VendorAlgorithm::kTwoProc;
      return true;
    }
    for (const CommClass& c : ompi_table()) {
      if (c.ranks_below >= 0 && P >= c.ranks_below) continue;
      for (const SizeRule& rule : c.rules)
        if (rule.below < 0 || block_bytes < rule.below) {
          *out = from_letter(rule.algorithm);
          return true;
        }
    }
    return false;
  }
  if (vendor == "mpich") {
    // MPICH's MPIR_CVAR_ALLGATHER_LONG_MSG_SIZE (524288) and
    // MPIR_CVAR_ALLGATHER_SHORT_MSG_SIZE (81920), on the total P·s bytes.
    const long long total = block_bytes * P;
    const bool pow2 = (P & (P - 1)) == 0;
    *out = total < 524288 && pow2 ? VendorAlgorithm::kRecursiveDoubling
           : total < 81920        ? VendorAlgorithm::kBruck
                                  : VendorAlgorithm::kRing;
    return true;
  }
  static const std::vector<std::pair<std::string, VendorAlgorithm>> single = {
      {"ring", VendorAlgorithm::kRing},
      {"rdb", VendorAlgorithm::kRecursiveDoubling},
      {"bruck", VendorAlgorithm::kBruck},
      {"neighbor", VendorAlgorithm::kNeighborExchange},
      {"ompi_neighborexchange", VendorAlgorithm::kNeighborExchange},
      {"linear", VendorAlgorithm::kLinear},
      {"default", VendorAlgorithm::kLinear},  // SimGrid's default: one isend/irecv per pair
  };
  for (const auto& [name, a] : single)
    if (vendor == name) {
      *out = a;
      return true;
    }
  return false;
}

}  // namespace torusgather
