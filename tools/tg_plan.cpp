// tg-plan: build a schedule for a torus shape, verify it on all P virtual
// ranks, and report rounds, link loads and volume (readable or --json).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "schedule/registry.hpp"
#include "simulate/simulate.hpp"

using namespace torusgather;

namespace {

void usage(FILE* out) {
  std::fprintf(out,
               "usage: tg-plan --dims NxM[xK...] --algorithm NAME [--json] [--method auto|step-through|structural]\n"
               "       tg-plan --list\n"
               "Builds the schedule, runs it on all P virtual ranks (step-through up to %lld ranks,\n"
               "structural proof beyond) and reports rounds, link loads and volume.\n"
               "Exit status 0 only if the schedule is complete and meets its claims.\n"
               "Algorithms: %s\n",
               kStepThroughLimit, algorithm_names().c_str());
}

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    o += c;
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dims_text, algorithm, method = "auto";
  bool json = false;
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
    else if (a == "--algorithm") algorithm = value();
    else if (a == "--method") method = value();
    else if (a == "--json") json = true;
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
  if (dims_text.empty() || algorithm.empty()) {
    usage(stderr);
    return 2;
  }
  const AlgorithmInfo* info = find_algorithm(algorithm);
  if (!info) {
    std::fprintf(stderr, "tg-plan: unknown algorithm '%s' (known: %s)\n", algorithm.c_str(), algorithm_names().c_str());
    return 2;
  }
  if (method != "auto" && method != "step-through" && method != "structural") {
    std::fprintf(stderr, "tg-plan: --method must be auto, step-through or structural\n");
    return 2;
  }
  try {
    const Torus torus(parse_dims(dims_text));
    const auto start = std::chrono::steady_clock::now();
    std::string why;
    const auto schedule = try_build(*info, torus, &why);
    const double build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!schedule) {
      if (json)
        std::printf("{\"algorithm\": \"%s\", \"dims\": \"%s\", \"applicable\": false, \"reason\": \"%s\", \"complete\": false}\n",
                    info->name, torus.to_string().c_str(), json_escape(why).c_str());
      else
        std::printf("%s does not apply to a %s torus: %s\n", info->name, torus.to_string().c_str(), why.c_str());
      return 1;
    }
    const SimulationReport rep = method == "step-through" ? step_through(*schedule)
                                 : method == "structural" ? prove_structure(*schedule)
                                                          : verify(*schedule);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (json) {
      std::printf("{\"algorithm\": \"%s\", \"dims\": [", info->name);
      for (int a = 0; a < torus.ndims(); ++a) std::printf("%s%d", a ? ", " : "", torus.dim(a));
      std::printf("], \"construction\": \"%s\"", json_escape(schedule->construction()).c_str());
      std::printf(", \"ranks\": %lld, \"applicable\": true, \"method\": \"%s\", \"rounds\": %lld, "
                  "\"rounds_claimed\": %lld, \"complete\": %s, \"colours\": %d, "
                  "\"max_link_messages_per_round\": %d, \"max_link_blocks_per_round\": %g, "
                  "\"volume_per_rank_blocks\": %g, \"build_seconds\": %.3f, \"seconds\": %.3f, \"errors\": [",
                  static_cast<long long>(torus.size()), rep.method.c_str(), rep.rounds, schedule->rounds(),
                  rep.complete ? "true" : "false", schedule->colours(), rep.max_link_messages_per_round,
                  rep.max_link_blocks_per_round, rep.volume_per_rank_blocks, build_seconds, seconds);
      for (std::size_t k = 0; k < rep.errors.size(); ++k)
        std::printf("%s\"%s\"", k ? ", " : "", json_escape(rep.errors[k]).c_str());
      std::printf("]}\n");
    } else {
      std::printf("algorithm      %s\n", info->name);
      std::printf("torus          %s (%lld ranks)\n", torus.to_string().c_str(), static_cast<long long>(torus.size()));
      if (!schedule->construction().empty()) std::printf("construction   %s\n", schedule->construction().c_str());
      std::printf("verified by    %s\n", rep.method.c_str());
      std::printf("complete       %s\n", rep.complete ? "yes" : "NO");
      std::printf("rounds         %lld (construction claims %lld)\n", rep.rounds, schedule->rounds());
      std::printf("parts/block    %d\n", schedule->colours());
      std::printf("link load      at most %d message(s), %g block(s) per directed link per round\n",
                  rep.max_link_messages_per_round, rep.max_link_blocks_per_round);
      std::printf("volume         %g blocks sent per rank (lower bound P-1 = %lld)\n", rep.volume_per_rank_blocks,
                  static_cast<long long>(torus.size() - 1));
      std::printf("time           %.3f s (of which building the schedule %.3f s)\n", seconds, build_seconds);
      for (const auto& e : rep.errors) std::printf("error: %s\n", e.c_str());
    }
    return rep.complete ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tg-plan: %s\n", e.what());
    return 2;
  }
}
