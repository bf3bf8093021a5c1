// SPDX-License-Identifier: BSD-3-Clause
#include "simulate/simulate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>

namespace torusgather {
namespace {

constexpr std::size_t kMaxErrors = 20;

void add_error(SimulationReport& rep, std::string e) {
  if (rep.errors.size() < kMaxErrors) rep.errors.push_back(std::move(e));
}

bool same_blocks(const Transfer& a, const Transfer& b) {
  if (a.ranges || b.ranges) return a.ranges && b.ranges && *a.ranges == *b.ranges;
  return a.blocks == b.blocks;
}

long long block_count(const Torus& t, const Transfer& x) {
  if (x.ranges) {
    long long n = 0;
    for (const auto& range : *x.ranges) n += range.second - range.first;
    return n;
  }
  long long n = 1;
  for (int a = 0; a < t.ndims(); ++a)
    if (x.blocks.free_axes & (1u << a)) n *= t.dim(a);
  return n;
}

std::string describe(Rank r, const Transfer& x) {
  std::string blocks;
  if (x.ranges) {
    for (const auto& range : *x.ranges)
      blocks += (blocks.empty() ? "" : ",") + std::to_string(range.first) + ".." + std::to_string(range.second - 1);
  } else {
    blocks = std::to_string(x.blocks.origin) + "/" + std::to_string(x.blocks.free_axes);
  }
  return "rank " + std::to_string(r) + (x.routed() ? " peer " + std::to_string(x.peer) : "") + " port " +
         std::to_string(x.port) + " blocks {" + blocks + "} part " + std::to_string(x.piece.colour) + "." +
         std::to_string(x.piece.half);
}

void check_claims(const Claims& c, SimulationReport& rep) {
  if (rep.rounds != c.rounds)
    add_error(rep, "rounds " + std::to_string(rep.rounds) + " differ from the construction's " + std::to_string(c.rounds));
  if (c.hops_sum >= 0 && rep.hops_sum != c.hops_sum)
    add_error(rep, "the rounds' longest routes sum to " + std::to_string(rep.hops_sum) + " hops, not the claimed " +
                       std::to_string(c.hops_sum));
  // Exact for whole blocks; parts of blocks (colours) are summed in
  // floating point, so allow for rounding there.
  if (rep.method != "structural" && c.blocks_sum >= 0 &&
      std::abs(rep.blocks_sum - c.blocks_sum) > 1e-9 * std::max(1.0, c.blocks_sum))
    add_error(rep, "the rounds' largest messages sum to " + std::to_string(rep.blocks_sum) +
                       " blocks, not the claimed " + std::to_string(c.blocks_sum));
  if (rep.max_link_messages_per_round != c.max_link_messages_per_round)
    add_error(rep, "link load " + std::to_string(rep.max_link_messages_per_round) +
                       " messages per round differs from the claimed " + std::to_string(c.max_link_messages_per_round));
  if (!rep.errors.empty()) rep.complete = false;
}

void check_claims(const Schedule& s, SimulationReport& rep) { check_claims(claims_of(s), rep); }

}  // namespace

Claims claims_of(const Schedule& s) {
  return Claims{s.rounds(), s.claimed_max_link_messages_per_round(), s.claimed_hops_sum(), s.claimed_blocks_sum()};
}

double transfer_blocks(const Torus& t, const Transfer& x, int colours) {
  // A weighted piece is its range; an equal one 1/colours of the schedule's.
  const double part = x.piece.hi ? x.piece.share() : __builtin_popcount(x.piece.unit_mask()) / (2.0 * colours);
  return static_cast<double>(block_count(t, x)) * part;
}

SimulationReport step_through(const Schedule& s) {
  SimulationReport rep;
  rep.method = "step-through";
  const Torus& t = s.torus();
  const Rank P = t.size();
  const int colours = s.colours();
  if (colours > 16) {
    add_error(rep, "the simulator tracks at most 16 colours");
    return rep;
  }
  const std::uint32_t all_units = colours == 0 ? 0u : (colours == 16 ? ~0u : (1u << (2 * colours)) - 1);
  // held[r * P + b]: which units (1/(2*colours) of a block) of block b rank r holds.
  std::vector<std::uint32_t> held(static_cast<std::size_t>(P * P), 0);
  for (Rank r = 0; r < P; ++r) held[static_cast<std::size_t>(r * P + r)] = all_units;

  std::vector<std::unique_ptr<RankProgram>> programs;
  programs.reserve(static_cast<std::size_t>(P));
  for (Rank r = 0; r < P; ++r) programs.push_back(s.program(r));

  std::vector<RoundOps> ops(static_cast<std::size_t>(P));
  const int ports = s.link_ports();
  std::vector<std::uint16_t> link_messages(static_cast<std::size_t>(P * ports));
  std::vector<double> link_blocks(static_cast<std::size_t>(P * ports));
  std::vector<double> sent_blocks(static_cast<std::size_t>(P), 0.0);
  struct Delivery {
    Rank to;
    const Transfer* what;
    std::uint32_t units;
    bool relay;
  };
  std::vector<Delivery> deliveries;

  for (long long round = 1; round <= s.rounds(); ++round) {
    for (Rank r = 0; r < P; ++r) programs[static_cast<std::size_t>(r)]->next_round(ops[static_cast<std::size_t>(r)]);
    std::fill(link_messages.begin(), link_messages.end(), 0);
    std::fill(link_blocks.begin(), link_blocks.end(), 0.0);
    deliveries.clear();
    // Every receive must be matched by exactly one send: count matches.
    std::vector<std::vector<bool>> matched(static_cast<std::size_t>(P));
    for (Rank r = 0; r < P; ++r) matched[static_cast<std::size_t>(r)].assign(ops[static_cast<std::size_t>(r)].recvs.size(), false);

    int round_hops = 0;
    double round_blocks = 0;
    for (Rank r = 0; r < P; ++r) {
      for (const Transfer& snd : ops[static_cast<std::size_t>(r)].sends) {
        // Where the call ends, and which receive there it must meet: a
        // neighbour call arrives on the opposite port; a routed call is
        // received from this sender with the sender's first port.
        const std::uint32_t units = snd.piece.unit_mask();
        const double blocks = transfer_blocks(t, snd, colours);
        // Streams: a colour moves its own part of a block, nothing else.
        if (s.independent_colours()) {
          Piece whole = snd.piece;
          whole.half = 0;
          if (!(whole == s.colour_piece(snd.piece.colour)))
            add_error(rep, "round " + std::to_string(round) + ": " + describe(r, snd) +
                               " is not its colour's part of a block (the colours run as streams)");
        }
        const Rank to = snd.routed() ? snd.peer : s.link_target(r, snd.port);
        const std::size_t hops = snd.routed() ? (snd.route ? snd.route->size() : 0) : 1;
        if (snd.routed()) {
          Rank at = r;
          if (!snd.route || snd.route->empty() || snd.route->front() != snd.port)
            add_error(rep, "round " + std::to_string(round) + ": " + describe(r, snd) + " has no route starting on its port");
          if (snd.route)
            for (Port p : *snd.route) {
              if (s.torus_network() && !t.has_link(at, p))
                add_error(rep, "round " + std::to_string(round) + ": the route of " + describe(r, snd) +
                                   " crosses the end of an open axis at rank " + std::to_string(at));
              const std::size_t link = static_cast<std::size_t>(at * ports + p);
              ++link_messages[link];
              link_blocks[link] += blocks;
              at = s.link_target(at, p);
            }
          if (at != to)
            add_error(rep, "round " + std::to_string(round) + ": the route of " + describe(r, snd) + " ends at rank " +
                               std::to_string(at));
        } else {
          if (s.torus_network() && !t.has_link(r, snd.port))
            add_error(rep, "round " + std::to_string(round) + ": " + describe(r, snd) +
                               " crosses the end of an open axis, where there is no link");
          ++link_messages[static_cast<std::size_t>(r * ports + snd.port)];
          link_blocks[static_cast<std::size_t>(r * ports + snd.port)] += blocks;
        }
        round_hops = std::max(round_hops, static_cast<int>(hops));
        round_blocks = std::max(round_blocks, blocks);
        auto& rv = ops[static_cast<std::size_t>(to)].recvs;
        bool found = false, relay = false;
        for (std::size_t k = 0; k < rv.size(); ++k) {
          // The MPI executor matches on (source, port, colour, seq): so must we.
          if (rv[k].routed() != snd.routed() || rv[k].piece.colour != snd.piece.colour || rv[k].seq != snd.seq)
            continue;
          if (snd.routed() ? (rv[k].peer != r || rv[k].port != snd.port) : rv[k].port != opposite(snd.port)) continue;
          if (matched[static_cast<std::size_t>(to)][k]) {
            add_error(rep, "round " + std::to_string(round) + ": two sends match one receive at " + describe(to, rv[k]));
            continue;
          }
          matched[static_cast<std::size_t>(to)][k] = true;
          found = true;
          relay = rv[k].relay;
          if (relay && (rv[k].ranges || rv[k].blocks.free_axes != 0))
            add_error(rep, "round " + std::to_string(round) + ": relay receive " + describe(to, rv[k]) +
                               " carries more than one block");
          // The executor reuses relay scratch round by round, one round at a time.
          if (relay && s.independent_colours())
            add_error(rep, "round " + std::to_string(round) + ": relay receive " + describe(to, rv[k]) +
                               " in a schedule whose colours run as streams");
          if (!same_blocks(rv[k], snd) || !(rv[k].piece == snd.piece))
            add_error(rep, "round " + std::to_string(round) + ": " + describe(r, snd) + " sent, but " +
                               describe(to, rv[k]) + " expected");
          break;
        }
        if (!found) add_error(rep, "round " + std::to_string(round) + ": no receive for " + describe(r, snd));
        for_each_block(t, snd, [&](Rank b) {
          if ((held[static_cast<std::size_t>(r * P + b)] & units) != units)
            add_error(rep, "round " + std::to_string(round) + ": " + describe(r, snd) + " sends block " +
                               std::to_string(b) + " it does not hold");
        });
        sent_blocks[static_cast<std::size_t>(r)] += blocks;
        deliveries.push_back({to, &snd, units, relay});
      }
    }
    for (Rank r = 0; r < P; ++r)
      for (std::size_t k = 0; k < matched[static_cast<std::size_t>(r)].size(); ++k)
        if (!matched[static_cast<std::size_t>(r)][k])
          add_error(rep, "round " + std::to_string(round) + ": nothing sent for " +
                             describe(r, ops[static_cast<std::size_t>(r)].recvs[k]));
    // Receives land after all sends of the round: nothing is forwarded in the
    // round it arrives.
    // Relay receives land last: they must bring what the rank already holds
    // or gets in this round by an ordinary receive.
    for (const bool relays : {false, true})
      for (const Delivery& d : deliveries) {
        if (d.relay != relays) continue;
        for_each_block(t, *d.what, [&](Rank b) {
          std::uint32_t& h = held[static_cast<std::size_t>(d.to * P + b)];
          if (relays && (h & d.units) != d.units)
            add_error(rep, "round " + std::to_string(round) + ": rank " + std::to_string(d.to) +
                               " relays part of block " + std::to_string(b) + " it does not hold");
          if (!relays && (h & d.units))
            add_error(rep, "round " + std::to_string(round) + ": rank " + std::to_string(d.to) +
                               " receives part of block " + std::to_string(b) + " twice");
          h |= d.units;
        });
        if (relays) rep.relayed_blocks += transfer_blocks(t, *d.what, colours);
      }
    for (std::size_t l = 0; l < link_messages.size(); ++l) {
      rep.max_link_messages_per_round = std::max<int>(rep.max_link_messages_per_round, link_messages[l]);
      rep.max_link_blocks_per_round = std::max(rep.max_link_blocks_per_round, link_blocks[l]);
    }
    // Rounds are counted up to the last one that moves data, so a schedule
    // that claims more rounds than it needs is caught by check_claims.
    if (!deliveries.empty()) rep.rounds = round;
    rep.hops_max = std::max(rep.hops_max, round_hops);
    rep.hops_sum += round_hops;
    rep.blocks_sum += round_blocks;
  }
  for (Rank r = 0; r < P; ++r)
    for (Rank b = 0; b < P; ++b)
      if (held[static_cast<std::size_t>(r * P + b)] != all_units)
        add_error(rep, "rank " + std::to_string(r) + " ends without all of block " + std::to_string(b));
  rep.volume_per_rank_blocks = *std::max_element(sent_blocks.begin(), sent_blocks.end());
  rep.complete = rep.errors.empty();
  check_claims(s, rep);
  return rep;
}

SimulationReport prove_structure(const Schedule& s) {
  SimulationReport rep;
  rep.method = "structural";
  const StructuralProof proof = s.prove();
  if (!proof.supported) {
    add_error(rep, std::string(s.name()) + " has no structural proof; only step-through verifies it");
    return rep;
  }
  rep.complete = proof.complete;
  rep.rounds = proof.rounds;
  rep.max_link_messages_per_round = proof.max_link_messages_per_round;
  rep.max_link_blocks_per_round = proof.max_link_blocks_per_round;
  rep.volume_per_rank_blocks = proof.volume_per_rank_blocks;
  // Structural proofs are of neighbour-only schedules: one hop per round.
  rep.hops_max = 1;
  rep.hops_sum = proof.rounds;
  if (!proof.complete) {
    add_error(rep, proof.detail);
    return rep;
  }
  check_claims(s, rep);
  return rep;
}

CallChecker::CallChecker(Rank ranks, int ports, Hop hop, int colours)
    : bits_(static_cast<std::size_t>(std::max(colours, 1)), HoldingBits(ranks)), ports_(ports), hop_(std::move(hop)) {
  rep_.method = "calls";
  arc_messages_.assign(static_cast<std::size_t>(ranks) * static_cast<std::size_t>(ports_), 0);
  arc_blocks_.assign(arc_messages_.size(), 0);
  sent_blocks_.assign(static_cast<std::size_t>(ranks), 0.0);
}

void CallChecker::close_round() {
  if (round_ == 0) return;
  for (std::size_t a : arcs_used_) {
    rep_.max_link_messages_per_round = std::max<int>(rep_.max_link_messages_per_round, arc_messages_[a]);
    rep_.max_link_blocks_per_round = std::max(rep_.max_link_blocks_per_round, arc_blocks_[a]);
    arc_messages_[a] = 0;
    arc_blocks_[a] = 0;
  }
  arcs_used_.clear();
  // As step_through(): rounds count up to the last one that moves data.
  if (round_moved_) rep_.rounds = round_;
  rep_.hops_max = std::max(rep_.hops_max, round_hops_);
  rep_.hops_sum += round_hops_;
  rep_.blocks_sum += round_blocks_;
  round_hops_ = 0;
  round_blocks_ = 0;
  round_moved_ = false;
  for (auto& bits : bits_) bits.land();
}

void CallChecker::check(long long round, const Call& c) {
  if (round < round_ || round < 1) {
    add_error(rep_, "a call of round " + std::to_string(round) + " comes after round " + std::to_string(round_));
    return;
  }
  // Empty rounds in between land nothing but still count their hops (0).
  while (round_ < round) {
    close_round();
    ++round_;
  }
  const std::string where = "round " + std::to_string(round) + ": the call from rank " + std::to_string(c.from) + " to rank " +
                            std::to_string(c.to);
  const Rank P = bits_.front().ranks();
  if (c.from < 0 || c.from >= P || c.to < 0 || c.to >= P) {
    add_error(rep_, where + " names a rank that does not exist");
    return;
  }
  if (c.colour >= bits_.size()) {
    add_error(rep_, where + " carries part " + std::to_string(c.colour) + " of blocks cut into " +
                        std::to_string(bits_.size()));
    return;
  }
  if (c.route.empty()) add_error(rep_, where + " has no route");
  HoldingBits& bits = bits_[c.colour];
  const double blocks = static_cast<double>(block_count(c.ranges)) / static_cast<double>(bits_.size());
  Rank at = c.from;
  for (Port p : c.route) {
    if (p < 0 || p >= ports_) {
      add_error(rep_, where + " leaves on port " + std::to_string(p) + ", which does not exist");
      return;
    }
    const std::size_t arc = static_cast<std::size_t>(at) * static_cast<std::size_t>(ports_) + static_cast<std::size_t>(p);
    if (arc_messages_[arc]++ == 0) arcs_used_.push_back(arc);
    arc_blocks_[arc] += blocks;
    at = hop_(at, p);
  }
  if (at != c.to) add_error(rep_, where + " ends at rank " + std::to_string(at));
  round_hops_ = std::max(round_hops_, static_cast<int>(c.route.size()));
  round_blocks_ = std::max(round_blocks_, blocks);
  if (blocks > 0) round_moved_ = true;
  sent_blocks_[static_cast<std::size_t>(c.from)] += blocks;
  const std::uint64_t* have = bits.held(c.from);
  const std::uint64_t* got = bits.held(c.to);
  std::uint64_t* coming = bits.incoming(c.to);
  Rank last = -1;
  for (const auto& range : c.ranges) {
    if (range.first <= last || range.second <= range.first || range.first < 0 || range.second > P) {
      add_error(rep_, where + " carries the ranges out of order, empty or outside 0.." + std::to_string(P - 1));
      return;
    }
    last = range.second;
    // The range word by word: masks of its bits in each word it touches.
    for (Rank w = range.first / 64; w <= (range.second - 1) / 64; ++w) {
      const Rank lo = std::max<Rank>(range.first, w * 64) - w * 64;
      const Rank hi = std::min<Rank>(range.second, (w + 1) * 64) - w * 64;
      const std::uint64_t bits = (hi == 64 ? ~0ull : (1ull << hi) - 1) & ~((1ull << lo) - 1);
      const std::size_t k = static_cast<std::size_t>(w);
      if (const std::uint64_t missing = bits & ~have[k])
        add_error(rep_, where + " sends block " + std::to_string(w * 64 + __builtin_ctzll(missing)) + " it does not hold");
      if (const std::uint64_t twice = bits & (got[k] | coming[k]))
        add_error(rep_, where + " brings block " + std::to_string(w * 64 + __builtin_ctzll(twice)) +
                            " that the callee holds or receives in the same round");
      coming[k] |= bits;
    }
  }
}

SimulationReport CallChecker::finish(const Claims& claims) {
  close_round();
  Rank incomplete = 0;
  const Rank P = bits_.front().ranks();
  const std::size_t words = bits_.front().words();
  for (Rank r = 0; r < P; ++r) {
    bool missing = false;
    for (std::size_t colour = 0; colour < bits_.size() && !missing; ++colour) {
      const std::uint64_t* h = bits_[colour].held(r);
      for (std::size_t w = 0; w < words; ++w) {
        const std::uint64_t want = (w + 1 < words || P % 64 == 0) ? ~0ull : (1ull << (P % 64)) - 1;
        if ((h[w] & want) != want) {
          if (incomplete == 0)
            add_error(rep_, "rank " + std::to_string(r) + " ends without block " +
                                std::to_string(static_cast<Rank>(w * 64) + __builtin_ctzll(want & ~h[w])) +
                                (bits_.size() > 1 ? " part " + std::to_string(colour) : std::string()));
          missing = true;
          break;
        }
      }
    }
    if (missing) ++incomplete;
  }
  if (incomplete > 1) add_error(rep_, std::to_string(incomplete) + " ranks end without every block");
  rep_.volume_per_rank_blocks = sent_blocks_.empty() ? 0 : *std::max_element(sent_blocks_.begin(), sent_blocks_.end());
  rep_.complete = rep_.errors.empty();
  check_claims(claims, rep_);
  return std::move(rep_);
}

SimulationReport check_calls(const ExplicitSchedule& s) {
  CallChecker checker(s.torus().size(), s.link_ports(), [&s](Rank r, Port p) { return s.link_target(r, p); },
                      s.colours());
  for (std::size_t round = 0; round < s.calls().size(); ++round)
    for (const Call& c : s.calls()[round]) checker.check(static_cast<long long>(round + 1), c);
  return checker.finish(claims_of(s));
}

SimulationReport check_calls(const Schedule& s) {
  if (const auto* e = dynamic_cast<const ExplicitSchedule*>(&s)) return check_calls(*e);
  const Rank P = s.torus().size();
  CallChecker checker(P, s.link_ports(), [&s](Rank r, Port p) { return s.link_target(r, p); }, s.colours());
  std::vector<std::unique_ptr<RankProgram>> programs;
  for (Rank r = 0; r < P; ++r) programs.push_back(s.program(r));
  RoundOps ops;
  for (long long round = 1; round <= s.rounds(); ++round)
    for (Rank r = 0; r < P; ++r) {
      programs[static_cast<std::size_t>(r)]->next_round(ops);
      for (const Transfer& x : ops.sends) {
        if (!x.routed() || !x.route || !x.ranges)
          throw std::invalid_argument(std::string(s.name()) + ": the call-by-call check needs routed calls");
        checker.check(round, Call{r, x.peer, *x.route, *x.ranges, x.piece.colour});
      }
    }
  return checker.finish(claims_of(s));
}

SimulationReport verify(const Schedule& s) {
  if (s.torus().size() <= kStepThroughLimit) return step_through(s);
  if (const auto* e = dynamic_cast<const ExplicitSchedule*>(&s)) return check_calls(*e);
  if (s.routed_calls_only()) return check_calls(s);
  return prove_structure(s);
}

}  // namespace torusgather
