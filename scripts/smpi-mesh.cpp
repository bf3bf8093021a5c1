// SPDX-License-Identifier: BSD-3-Clause
// A SimGrid platform for a torus with open axes (mesh axes), or with its node
// memory link shared (TG_SMPI_MESH_LOOPBACK_SHARING=SHARED): smpi-torus.sh's
// cluster as SimGrid's TORUS builds it (hosts, loopback, limiter, a link per
// node and axis, the same names, dimension-order routes in SimGrid's axis
// order, the shorter way round by its rule), except that an open axis has no
// link from its last node to its first and its routes go straight. Every
// route is listed (a full zone: P^2 routes, about 40 MB at 512 nodes).
// smpirun -platform loads it (load_platform); the cluster comes from
// TG_SMPI_MESH_* variables (smpi-torus.sh sets them).
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace {

std::string need(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) {
    std::fprintf(stderr, "smpi-mesh: %s must be set\n", name);
    std::exit(2);
  }
  return v;
}

/// "4mx4x3m" in row-major order: sides, and which are open.
void parse(const std::string& text, std::vector<long>* sides, std::vector<bool>* open) {
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t j = i;
    while (j < text.size() && text[j] >= '0' && text[j] <= '9') ++j;
    if (j == i) break;
    sides->push_back(std::stol(text.substr(i, j - i)));
    open->push_back(j < text.size() && text[j] == 'm');
    if (open->back()) ++j;
    if (j < text.size() && text[j] != 'x') break;
    i = j + 1;
  }
  if (sides->empty() || i < text.size()) {
    std::fprintf(stderr, "smpi-mesh: malformed TG_SMPI_MESH_DIMS '%s'\n", text.c_str());
    std::exit(2);
  }
}

}  // namespace

extern "C" void load_platform(const sg4::Engine& engine);
void load_platform(const sg4::Engine& /*engine*/) {
  std::vector<long> row_sides;
  std::vector<bool> row_open;
  parse(need("TG_SMPI_MESH_DIMS"), &row_sides, &row_open);
  // SimGrid's axis j is the row-major axis d-1-j, so that host i is node i.
  const std::size_t d = row_sides.size();
  std::vector<long> side(d), stride(d);
  std::vector<bool> open(d);
  long nodes = 1;
  for (std::size_t j = 0; j < d; ++j) {
    side[j] = row_sides[d - 1 - j];
    open[j] = row_open[d - 1 - j] && side[j] > 2;  // an open side of 2 is its one link
    stride[j] = nodes;
    nodes *= side[j];
  }
  const std::string bw = need("TG_SMPI_MESH_BW"), lat = need("TG_SMPI_MESH_LAT");
  const bool split = need("TG_SMPI_MESH_SHARING") == "SPLITDUPLEX";
  const int cores = std::atoi(need("TG_SMPI_MESH_CORES").c_str());
  const std::string loop_bw = need("TG_SMPI_MESH_LOOPBACK_BW"), loop_lat = need("TG_SMPI_MESH_LOOPBACK_LAT");
  // The node memory link: a fat pipe as SimGrid's cluster makes it (every
  // copy gets the bandwidth), or one budget the node's copies share.
  const char* loop_sharing = std::getenv("TG_SMPI_MESH_LOOPBACK_SHARING");
  const bool loop_shared = loop_sharing && std::string(loop_sharing) == "SHARED";
  const char* limiter_bw = std::getenv("TG_SMPI_MESH_LIMITER");
  const bool limited = limiter_bw && *limiter_bw;
  const bool two_links = std::string(std::getenv("TG_SMPI_MESH_PAIR_LINKS") ? std::getenv("TG_SMPI_MESH_PAIR_LINKS") : "1") == "2";

  auto* zone = sg4::create_full_zone("torus");
  std::vector<const sg4::Host*> hosts;
  std::vector<const sg4::Link*> loopback, limiter;
  for (long i = 0; i < nodes; ++i) {
    const std::string id = std::to_string(i);
    hosts.push_back(zone->create_host("node-" + id, "1Gf")->set_core_count(cores)->seal());
    loopback.push_back(zone->create_link("torus_link_" + id + "_loopback", loop_bw)
                           ->set_sharing_policy(loop_shared ? sg4::Link::SharingPolicy::SHARED
                                                            : sg4::Link::SharingPolicy::FATPIPE)
                           ->set_latency(loop_lat)
                           ->seal());
    if (limited) limiter.push_back(zone->create_link("torus_link_" + id + "_limiter", limiter_bw)->seal());
  }
  const auto coord = [&](long node, std::size_t j) { return (node / stride[j]) % side[j]; };
  // up[j][i]: the link from node i to its + neighbour on axis j (its "_UP"),
  // down[j][i] the other way; none where an open axis ends.
  std::vector<std::vector<const sg4::Link*>> up(d, std::vector<const sg4::Link*>(nodes, nullptr)), down = up;
  for (long i = 0; i < nodes; ++i)
    for (std::size_t j = 0; j < d; ++j) {
      const long c = coord(i, j);
      if (open[j] && c == side[j] - 1) continue;
      const long next = c == side[j] - 1 ? i - (side[j] - 1) * stride[j] : i + stride[j];
      const std::string name = "torus_link_from_" + std::to_string(i) + "_to_" + std::to_string(next);
      // A side of 2 with two links: SimGrid routes both ways over the link
      // from coordinate 0, which then has twice the bandwidth.
      const bool doubled = two_links && side[j] == 2 && c == 0;
      const auto make = [&](const std::string& n) {
        sg4::Link* l = zone->create_link(n, bw)->set_latency(lat);
        if (doubled) l->set_bandwidth(2 * l->get_bandwidth());
        return static_cast<const sg4::Link*>(l->seal());
      };
      up[j][i] = make(split ? name + "_UP" : name);
      down[j][i] = split ? make(name + "_DOWN") : up[j][i];
    }
  for (long src = 0; src < nodes; ++src)
    for (long dst = 0; dst < nodes; ++dst) {
      std::vector<sg4::LinkInRoute> route;
      if (src == dst) {
        route.emplace_back(loopback[src]);
      } else {
        long at = src;
        for (std::size_t j = 0; j < d; ++j) {
          const long n = side[j], from = coord(src, j), to = coord(dst, j);
          // SimGrid's torus goes + where the target is at most n/2 ahead (or
          // past the wrap from the upper half); an open axis goes straight.
          const bool plus = open[j] ? to > from
                                    : (to > from && to <= from + n / 2) || (from > n / 2 && (from + n / 2) % n >= to);
          while (coord(at, j) != to) {
            if (limited) route.emplace_back(limiter[at]);
            const long c = coord(at, j);
            long next;
            if (plus) {
              next = c == n - 1 ? at - (n - 1) * stride[j] : at + stride[j];
              route.emplace_back(up[j][at]);
            } else {
              next = c == 0 ? at + (n - 1) * stride[j] : at - stride[j];
              route.emplace_back(down[j][next]);
            }
            if (!route.back().get_link()) {
              std::fprintf(stderr, "smpi-mesh: the route from %ld to %ld crosses a missing link\n", src, dst);
              std::exit(2);
            }
            at = next;
          }
        }
        if (limited) route.emplace_back(limiter[dst]);
      }
      zone->add_route(hosts[src]->get_netpoint(), hosts[dst]->get_netpoint(), nullptr, nullptr, route, false);
    }
  zone->seal();
}
