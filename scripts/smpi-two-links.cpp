// SPDX-License-Identifier: BSD-3-Clause
// A SimGrid platform that loads smpi-torus.sh's XML torus and gives the
// links it names twice their bandwidth: a side of 2 whose two nodes two
// links join (Blue Gene/Q), where SimGrid's torus routes both ways over one.
// smpirun -platform loads it (load_platform); TG_SMPI_XML is the torus,
// TG_SMPI_TWO_LINKS a file of link names, one per line.
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Link.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

extern "C" void load_platform(const simgrid::s4u::Engine& engine) {
  const char* xml = std::getenv("TG_SMPI_XML");
  const char* names = std::getenv("TG_SMPI_TWO_LINKS");
  if (!xml || !names) {
    std::fprintf(stderr, "smpi-two-links: TG_SMPI_XML and TG_SMPI_TWO_LINKS must be set\n");
    std::exit(2);
  }
  engine.load_platform(xml);
  std::ifstream in(names);
  int doubled = 0;
  for (std::string name; in >> name; ++doubled) {
    simgrid::s4u::Link* link = engine.link_by_name_or_null(name);
    if (!link) {
      std::fprintf(stderr, "smpi-two-links: the platform has no link '%s'\n", name.c_str());
      std::exit(2);
    }
    link->set_bandwidth(2 * link->get_bandwidth());
  }
  if (doubled == 0) {
    std::fprintf(stderr, "smpi-two-links: no link named in %s\n", names);
    std::exit(2);
  }
}
