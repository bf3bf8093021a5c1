// SPDX-License-Identifier: BSD-3-Clause
// tg-plan: build a schedule for a torus shape, verify it on all P virtual
// ranks, and report rounds, link loads and volume (readable or --json).
#include <algorithm>
#include <malloc.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/predictions.hpp"
#include "model/tune.hpp"
#include "schedule/registry.hpp"
#include "simulate/simulate.hpp"
#include "tg_plan.hpp"

using namespace torusgather;
using namespace torusgather::tg_plan;

namespace {

void usage(FILE* out) {
  std::fprintf(out,
               "usage: tg-plan --dims NxM[xK...] (a side with m: an open axis) --algorithm NAME [--json] [--method auto|step-through|calls|structural]\n"
               "       tg-plan --ranks N --algorithm NAME ...   (the same as --dims N)\n"
               "       tg-plan --dims D --algorithm NAME --plan-only [--rank R] [--json]\n"
               "               rank R's plan as the library builds it at run time (no verification):\n"
               "               build_seconds, walk_seconds (stepping R's rounds) and plan_bytes (heap kept)\n"
               "               [--packets P]   (circulant: at most P blocks per link per round, p-gossip)\n"
               "               [--chord c]   (chordal-ring: C(N, c) with this chord; default: fewest rounds)\n"
               "               [--node-size g]   (three-phase: nodes of g consecutive ranks; default 1;\n"
               "                                  node-*: g ranks per node on the last axis; default its side)\n"
               "               [--r R]   (bridgehead, bridgehead-coloured, cubgos: pick a, b, k for r = alpha/(s beta); torus-bruck: its radix; default %g)\n"
               "               [--params a,b,k[;a,b,k...]]   (bridgehead, bridgehead-coloured: these parameters, per axis; cubgos: one a,b,k; torus-bruck: the radix k, or k,far for the far-first order)\n"
               "               [--svg FILE]   (draws the cycles of a 2D torus)\n"
               "       tg-plan --dims D --select [--sizes 8,1k,64k,1m] [--vendor ompi|mpich|ring|...|none]\n"
               "               [--alpha S] [--bandwidth B/s] [--delta S] [--overhead S] [--injection B/s]\n"
               "               [--node-size k [--node-alpha S] [--node-bandwidth B/s]] [--json]\n"
               "               what auto chooses per block size with these machine parameters (default: the\n"
               "               cost model's, alpha 1 us, 10 GB/s, no injection limit: --injection is what a\n"
               "               node sends and receives together; the node axis's shared memory as the links\n"
               "               unless given) and decide_seconds, rank 0's time for it\n"
               "       --pair-links 2: every side of 2 among the network axes has two links to its neighbour\n"
               "               (Blue Gene/Q: a + and a - link per axis); default 1, one link both ways\n"
               "       tg-plan --list\n"
               "       tg-plan --table2 [--json]   (Meyer & Sibeyn's Table 2 from the constructed schedules)\n"
               "Builds the schedule, runs it on all P virtual ranks (step-through up to %lld ranks;\n"
               "beyond, call by call for schedules made of routed calls, else the structural proof) and\n"
               "reports rounds, link loads, route lengths and volume.\n"
               "Exit status 0 only if the schedule is complete and meets its claims.\n"
               "Algorithms: %s\n",
               kBridgeheadDefaultR, kStepThroughLimit, algorithm_names().c_str());
}

}  // namespace

namespace torusgather {
namespace tg_plan {

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    o += c;
  }
  return o;
}

}  // namespace tg_plan
}  // namespace torusgather

namespace {

void print_declined(bool json, const char* name, const Torus& torus, const std::string& why) {
  if (json)
    std::printf("{\"algorithm\": \"%s\", \"dims\": \"%s\", \"applicable\": false, \"reason\": \"%s\", \"complete\": false}\n",
                name, torus.to_string().c_str(), json_escape(why).c_str());
  else
    std::printf("%s does not apply to a %s torus: %s\n", name, torus.to_string().c_str(), why.c_str());
}

/// Prints what the check found, as text or as one JSON object. A negative
/// `build_seconds`: the calls were checked as they were made.
void print_report(bool json, const char* name, const Torus& torus, const std::string& construction, int colours,
                  const Claims& claims, const SimulationReport& rep, double build_seconds, double seconds) {
  // The structural proofs do not sum the rounds' largest messages.
  const bool summed = rep.method != "structural";
  char sum_text[64] = "null";
  if (summed) std::snprintf(sum_text, sizeof sum_text, "%.10g", rep.blocks_sum);
  const std::string blocks_sum = sum_text;
  if (json) {
    std::printf("{\"algorithm\": \"%s\", \"dims\": [", name);
    for (int a = 0; a < torus.ndims(); ++a) std::printf("%s%d", a ? ", " : "", torus.dim(a));
    std::printf("], \"construction\": \"%s\"", json_escape(construction).c_str());
    std::printf(", \"ranks\": %lld, \"applicable\": true, \"method\": \"%s\", \"rounds\": %lld, "
                "\"rounds_claimed\": %lld, \"complete\": %s, \"colours\": %d, "
                "\"max_link_messages_per_round\": %d, \"max_link_blocks_per_round\": %g, "
                "\"volume_per_rank_blocks\": %.10g, \"hops_max\": %d, \"hops_sum\": %lld, \"hops_sum_claimed\": %lld, "
                "\"blocks_sum\": %s, \"blocks_sum_claimed\": %.10g, \"build_seconds\": %.3f, \"seconds\": %.3f, \"errors\": [",
                static_cast<long long>(torus.size()), rep.method.c_str(), rep.rounds, claims.rounds,
                rep.complete ? "true" : "false", colours, rep.max_link_messages_per_round,
                rep.max_link_blocks_per_round, rep.volume_per_rank_blocks, rep.hops_max, rep.hops_sum,
                claims.hops_sum, blocks_sum.c_str(), claims.blocks_sum, build_seconds < 0 ? seconds : build_seconds, seconds);
    for (std::size_t k = 0; k < rep.errors.size(); ++k)
      std::printf("%s\"%s\"", k ? ", " : "", json_escape(rep.errors[k]).c_str());
    std::printf("]}\n");
  } else {
    std::printf("algorithm      %s\n", name);
    std::printf("torus          %s (%lld ranks)\n", torus.to_string().c_str(), static_cast<long long>(torus.size()));
    if (!construction.empty()) std::printf("construction   %s\n", construction.c_str());
    std::printf("verified by    %s\n", rep.method.c_str());
    std::printf("complete       %s\n", rep.complete ? "yes" : "NO");
    std::printf("rounds         %lld (construction claims %lld)\n", rep.rounds, claims.rounds);
    std::printf("parts/block    %d\n", colours);
    std::printf("link load      at most %d message(s), %g block(s) per directed link per round\n",
                rep.max_link_messages_per_round, rep.max_link_blocks_per_round);
    std::printf("routes         longest %d hop(s); the rounds' longest sum to %lld", rep.hops_max, rep.hops_sum);
    if (claims.hops_sum >= 0) std::printf(" (construction claims %lld)", claims.hops_sum);
    std::printf("\n");
    if (summed)
      std::printf("messages       the rounds' largest sum to %s blocks", blocks_sum.c_str());
    else
      std::printf("messages       not summed by the structural proof");
    if (claims.blocks_sum >= 0)
      std::printf(" (construction claims %.10g: time %lld r + %.10g in units of s beta)", claims.blocks_sum,
                  claims.rounds, claims.blocks_sum);
    std::printf("\n");
    std::printf("volume         %.10g blocks sent per rank (lower bound P-1 = %lld)\n", rep.volume_per_rank_blocks,
                static_cast<long long>(torus.size() - 1));
    if (build_seconds < 0)
      std::printf("time           %.3f s (making and checking the calls, interleaved)\n", seconds);
    else
      std::printf("time           %.3f s (of which building the schedule %.3f s)\n", seconds, build_seconds);
    for (const auto& e : rep.errors) std::printf("error: %s\n", e.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string dims_text, algorithm, method = "auto", svg;
  int packets = 0, chord = 0, node_size = 0, pair_links = 1;
  double r = -1;
  std::string params_text;
  bool json = false, table = false, plan_only = false, select = false;
  std::string sizes_text = "8,1k,64k,1m", vendor = "ompi";
  Machine machine;
  long long plan_rank = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "tg-plan: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--dims") dims_text = value();
    else if (a == "--ranks") dims_text = value();  // a 1D shape: the rank count
    else if (a == "--packets") packets = std::atoi(value().c_str());
    else if (a == "--chord") chord = std::atoi(value().c_str());
    else if (a == "--node-size") node_size = std::atoi(value().c_str());
    else if (a == "--pair-links") pair_links = std::atoi(value().c_str());
    else if (a == "--algorithm") algorithm = value();
    else if (a == "--r") r = std::atof(value().c_str());
    else if (a == "--params") params_text = value();
    else if (a == "--method") method = value();
    else if (a == "--json") json = true;
    else if (a == "--plan-only") plan_only = true;
    else if (a == "--rank") plan_rank = std::atoll(value().c_str());
    else if (a == "--table2") table = true;
    else if (a == "--select") select = true;
    else if (a == "--sizes") sizes_text = value();
    else if (a == "--vendor") vendor = value();
    else if (a == "--alpha") machine.alpha = std::atof(value().c_str());
    else if (a == "--bandwidth") machine.beta = 1 / std::atof(value().c_str());
    else if (a == "--delta") machine.delta = std::atof(value().c_str());
    else if (a == "--overhead") machine.overhead = std::atof(value().c_str());
    else if (a == "--injection") machine.inject_beta = 1 / std::atof(value().c_str());
    else if (a == "--node-alpha") machine.node_alpha = std::atof(value().c_str());
    else if (a == "--node-bandwidth") machine.node_beta = 1 / std::atof(value().c_str());
    else if (a == "--svg") svg = value();
    else if (a == "--list") {
      for (const auto& info : algorithms()) std::printf("%-12s %s\n", info.name, info.description);
      return 0;
    } else if (a == "--help" || a == "-h") {
      usage(stdout);
      return 0;
    } else {
      std::fprintf(stderr, "tg-plan: unknown option '%s'\n", a.c_str());
      usage(stderr);
      return 2;
    }
  }
  if (pair_links != 1 && pair_links != 2) {
    std::fprintf(stderr, "tg-plan: --pair-links is 1 or 2\n");
    return 2;
  }
  if (table) return table2(json);
  if (select) {
    if (dims_text.empty()) {
      usage(stderr);
      return 2;
    }
    std::vector<long long> sizes;
    std::stringstream list(sizes_text);
    for (std::string item; std::getline(list, item, ',');) {
      long long v = 0;
      if (!parse_bytes(item, false, &v) || v < 1) {
        std::fprintf(stderr, "tg-plan: --sizes takes sizes in bytes such as 8,1k,64k,1m, not '%s'\n", item.c_str());
        return 2;
      }
      sizes.push_back(v);
    }
    if (!(machine.alpha > 0) || !(machine.beta > 0) || machine.delta < 0 || machine.overhead < 0 ||
        !(machine.inject_beta >= 0) || std::isinf(machine.inject_beta)) {
      std::fprintf(stderr,
                   "tg-plan: --alpha, --bandwidth and --injection must be positive, --delta and --overhead not negative\n");
      return 2;
    }
    try {
      std::uint32_t open_axes = 0;
      const std::vector<int> dims = parse_dims(dims_text, &open_axes);
      const int network = static_cast<int>(dims.size()) - (node_size > 1 ? 1 : 0);
      const Torus torus(dims, pair_links == 2 ? network_axes(network) : 0, open_axes);
      if (node_size < 0 || (node_size > 1 && (torus.ndims() < 2 || torus.dim(torus.ndims() - 1) != node_size))) {
        std::fprintf(stderr, "tg-plan: --node-size with --select is the side of the torus's last axis\n");
        return 2;
      }
      return select_report(torus, sizes, machine, vendor == "none" ? "" : vendor, json, std::max(1, node_size));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "tg-plan: %s\n", e.what());
      return 2;
    }
  }
  if (dims_text.empty() || algorithm.empty()) {
    usage(stderr);
    return 2;
  }
  const AlgorithmInfo* info = find_algorithm(algorithm);
  if (!info) {
    std::fprintf(stderr, "tg-plan: unknown algorithm '%s' (known: %s)\n", algorithm.c_str(), algorithm_names().c_str());
    return 2;
  }
  if (method != "auto" && method != "step-through" && method != "calls" && method != "structural") {
    std::fprintf(stderr, "tg-plan: --method must be auto, step-through, calls or structural\n");
    return 2;
  }
  try {
    std::uint32_t open_axes = 0;
    const std::vector<int> dims = parse_dims(dims_text, &open_axes);
    const int network = static_cast<int>(dims.size()) - (info->node_aware ? 1 : 0);
    const Torus torus(dims, pair_links == 2 ? network_axes(network) : 0, open_axes);
    if (plan_only && (plan_rank < 0 || plan_rank >= torus.size())) {
      std::fprintf(stderr, "tg-plan: --rank must be in 0..%lld\n", static_cast<long long>(torus.size()) - 1);
      return 2;
    }
    std::string why;
    std::unique_ptr<Schedule> schedule;
    if ((r >= 0 || !params_text.empty()) && !info->tuned) {
      std::fprintf(stderr, "tg-plan: --r and --params are for --algorithm bridgehead, bridgehead-coloured, cubgos or torus-bruck\n");
      return 2;
    }
    if (chord != 0 && info->id != AlgorithmId::chordal_ring) {
      std::fprintf(stderr, "tg-plan: --chord is for --algorithm chordal-ring\n");
      return 2;
    }
    if (node_size != 0 && info->id != AlgorithmId::three_phase && !info->node_aware) {
      std::fprintf(stderr, "tg-plan: --node-size is for --algorithm three-phase and the node-* algorithms\n");
      return 2;
    }
    if (node_size < 0) {
      std::fprintf(stderr, "tg-plan: --node-size must be positive\n");
      return 2;
    }
    // The flags choose what the library's BuildContext carries.
    BuildContext build;
    std::vector<int> node_of;
    // node-*: the last axis is a node's ranks (its side unless --node-size says otherwise).
    if (info->node_aware) build.node_ranks = node_size > 0 ? node_size : torus.dim(torus.ndims() - 1);
    if (node_size > 0 && !info->node_aware) {
      node_of.resize(static_cast<std::size_t>(torus.size()));
      for (Rank k = 0; k < torus.size(); ++k) node_of[static_cast<std::size_t>(k)] = static_cast<int>(k / node_size);
      build.node_of = &node_of;
    }
    // What the heap holds before the build (the node map is the caller's
    // input): the plan's bytes are the growth. The heap in use counts small
    // chunks and the large ones malloc maps apart.
    const auto heap_in_use = [] {
      const struct mallinfo2 m = mallinfo2();
      return m.uordblks + m.hblkhd;
    };
    const std::size_t heap_before = heap_in_use();
    const auto start = std::chrono::steady_clock::now();
    build.chord = chord;
    build.packets = packets;
    if (r >= 0) build.r = r;
    build.params = params_text;
    if (packets > 0 && info->id != AlgorithmId::circulant) {
      std::fprintf(stderr, "tg-plan: --packets is for --algorithm circulant (p-gossip)\n");
      return 2;
    }
    if (info->tuned && !params_text.empty() && declines(*info, torus).empty()) {
      std::string params;
      if (!tuned_params(*info, torus, build, &params, &why)) {
        std::fprintf(stderr, "tg-plan: %s\n", why.c_str());
        return 2;
      }
    }
    schedule = try_build(*info, torus, &why, build);
    const double build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double walk_seconds = 0;
    if (schedule && plan_only) {
      // As the executor does at each call: rank R's program, every round
      // (the call's own per-round work, apart from the build).
      const auto walk = std::chrono::steady_clock::now();
      auto program = schedule->program(static_cast<Rank>(plan_rank));
      RoundOps ops;
      for (long long round = 0; round < schedule->rounds(); ++round) program->next_round(ops);
      walk_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - walk).count();
    }
    if (!schedule) {
      print_declined(json, info->name, torus, why);
      return 1;
    }
    if (plan_only) {
      // Every rank builds the same schedule object at run time (no
      // verification): its heap is what each rank keeps per communicator.
      const std::size_t heap_after = heap_in_use();
      const long long plan_bytes =
          heap_after > heap_before ? static_cast<long long>(heap_after - heap_before) : 0;
      if (json)
        std::printf("{\"algorithm\": \"%s\", \"dims\": \"%s\", \"ranks\": %lld, \"rank\": %lld, \"rounds\": %lld, "
                    "\"build_seconds\": %.6f, \"walk_seconds\": %.6f, \"plan_bytes\": %lld}\n",
                    info->name, torus.to_string().c_str(), static_cast<long long>(torus.size()), plan_rank,
                    schedule->rounds(), build_seconds, walk_seconds, plan_bytes);
      else
        std::printf("%s on a %s torus (%lld ranks), rank %lld's plan: %lld rounds, built in %.6f s, its rounds "
                    "walked in %.6f s, %lld bytes kept\n",
                    info->name, torus.to_string().c_str(), static_cast<long long>(torus.size()), plan_rank,
                    schedule->rounds(), build_seconds, walk_seconds, plan_bytes);
      return 0;
    }
    if (!svg.empty() && !write_svg(*schedule, svg, &why)) {
      std::fprintf(stderr, "tg-plan: %s\n", why.c_str());
      return 2;
    }
    if (method == "calls" && !schedule->routed_calls_only()) {
      std::fprintf(stderr, "tg-plan: --method calls is for schedules made of routed calls (the latency family)\n");
      return 2;
    }
    const SimulationReport rep = method == "step-through" ? step_through(*schedule)
                                 : method == "structural" ? prove_structure(*schedule)
                                 : method == "calls"      ? check_calls(*schedule)
                                                          : verify(*schedule);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    print_report(json, info->name, torus, schedule->construction(), schedule->colours(), claims_of(*schedule), rep,
                 build_seconds, seconds);
    return rep.complete ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tg-plan: %s\n", e.what());
    return 2;
  }
}

