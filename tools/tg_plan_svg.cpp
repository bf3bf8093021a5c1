// SPDX-License-Identifier: BSD-3-Clause
// tg-plan --svg: a 2D torus and the cycles of a cycle schedule, drawn.
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "schedule/cycles.hpp"
#include "schedule/hamiltonian_partial.hpp"
#include "schedule/partial_cycles.hpp"
#include "tg_plan.hpp"

namespace torusgather {
namespace tg_plan {
namespace {

/// Draws a 2D torus and the cycles of a cycle schedule, one colour per cycle
/// (as Figure 1 of Meyer & Sibeyn 1998): row i downwards, column j to the
/// right, (0,0) upper left; wrap-around links as stubs leaving the grid.
std::string xml_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '&') o += "&amp;";
    else if (c == '<') o += "&lt;";
    else if (c == '>') o += "&gt;";
    else o += c;
  }
  return o;
}

}  // namespace

bool write_svg(const Schedule& schedule, const std::string& path, std::string* why) {
  const auto* cycles = dynamic_cast<const CycleSchedule*>(&schedule);
  const auto* partial = dynamic_cast<const PartialCyclesSchedule*>(&schedule);
  const auto* partial_h = dynamic_cast<const HamiltonianPartialSchedule*>(&schedule);
  const Torus& t = schedule.torus();
  if ((!cycles && !partial && !partial_h) || t.ndims() != 2) {
    *why = "--svg draws the cycles of hamiltonian, hamiltonian-partial or partial-cycles on a 2D torus";
    return false;
  }
  // Colour of the link leaving r on port p (plus ports only), -1 if no cycle
  // uses it (partial cycles: those links feed the off-cycle ranks).
  auto link_colour = [&](Rank r, Port p) {
    if (cycles) return cycles->colour(r, p);
    if (partial_h) {
      for (int c = 0; c < 2; ++c)
        if (partial_h->positions(r, c) > 0 &&
            (partial_h->cycle_port(r, c, +1) == p || partial_h->cycle_port(r, c, -1) == p))
          return c;
      return -1;
    }
    for (int c = 0; c < 2; ++c)
      if (partial->position(r, c) >= 0 && partial->position(t.neighbor(r, p), c) >= 0 &&
          (partial->cycle_port(r, c, +1) == p || partial->cycle_port(t.neighbor(r, p), c, -1) == opposite(p)))
        return c;
    return -1;
  };
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) {
    *why = "cannot write " + path;
    return false;
  }
  const int n1 = t.dim(0), n2 = t.dim(1), cell = 40, margin = 30;
  const int width = std::max(2 * margin + (n2 - 1) * cell, 330);
  // The caption in 9 px type, about 5 px a character, wrapped at spaces to
  // the picture's width.
  std::vector<std::string> caption(1);
  {
    const std::size_t per_line = static_cast<std::size_t>((width - margin) / 5);
    std::string word;
    std::istringstream words(schedule.construction());
    while (words >> word) {
      std::string& line = caption.back();
      if (!line.empty() && line.size() + 1 + word.size() > per_line) caption.emplace_back();
      caption.back() += (caption.back().empty() ? "" : " ") + word;
    }
  }
  const char* palette[] = {"#1f5fbf", "#d62728", "#2ca02c", "#ff7f0e"};
  std::fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\">\n",
               width, 2 * margin + (n1 - 1) * cell + 11 + 11 * static_cast<int>(caption.size()));
  std::fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
  auto xy = [&](Rank r, int* x, int* y) {
    *x = margin + t.coord(r, 1) * cell;
    *y = margin + t.coord(r, 0) * cell;
  };
  for (Rank r = 0; r < t.size(); ++r) {
    for (int axis = 0; axis < 2; ++axis) {
      if (t.dim(axis) < 2) continue;
      const Port p = make_port(axis, true);
      const Rank q = t.neighbor(r, p);
      const int lc = link_colour(r, p);
      const char* colour = lc < 0 ? "#bbbbbb" : palette[lc % 4];
      int x1, y1, x2, y2;
      xy(r, &x1, &y1);
      xy(q, &x2, &y2);
      if (t.coord(q, axis) == 0) {  // wrap-around: a stub out of each side
        const int dx = axis == 1 ? cell / 2 : 0, dy = axis == 0 ? cell / 2 : 0;
        std::fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\" stroke-dasharray=\"4 3\"/>\n",
                     x1, y1, x1 + dx, y1 + dy, colour);
        std::fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\" stroke-dasharray=\"4 3\"/>\n",
                     x2 - dx, y2 - dy, x2, y2, colour);
      } else {
        std::fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"/>\n", x1, y1,
                     x2, y2, colour);
      }
    }
  }
  for (Rank r = 0; r < t.size(); ++r) {
    int x, y;
    xy(r, &x, &y);
    // Partial cycles: grey for a rank on one cycle only (fed the other's blocks).
    const bool fed = (partial && (partial->position(r, 0) < 0 || partial->position(r, 1) < 0)) ||
                     (partial_h && partial_h->off_cycle(r) >= 0);
    std::fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"6\" fill=\"%s\" stroke=\"black\"/>\n", x, y,
                 fed ? "#999999" : "white");
  }
  std::fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\">%s on %s</text>\n", margin / 2,
               2 * margin + (n1 - 1) * cell, schedule.name(), t.to_string().c_str());
  for (std::size_t k = 0; k < caption.size(); ++k)
    std::fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"9\">%s</text>\n", margin / 2,
                 2 * margin + (n1 - 1) * cell + 14 + 11 * static_cast<int>(k), xml_escape(caption[k]).c_str());
  std::fprintf(f, "</svg>\n");
  std::fclose(f);
  return true;
}

}  // namespace tg_plan
}  // namespace torusgather
