// SPDX-License-Identifier: BSD-3-Clause
#include "api/calibrate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "api/tuning_file.hpp"
#include "model/route.hpp"

namespace torusgather {
namespace {

constexpr int kCalibrationTag = 32001;  // below MPI's minimum MPI_TAG_UB (32767)
constexpr int kSmallBytes = 8;
// β from two sizes above every eager limit (Open MPI's shared memory: 4 KiB;
// SimGrid: 64 KiB), so that both pay the same protocol's fixed costs: with
// SimGrid's per-message overhead smpi/os set, 8 B against 64 KiB had made β
// 23 % low.
constexpr int kLargeBytes = 1 << 17;
constexpr int kLargerBytes = 1 << 19;
constexpr int kRepetitions = 20;

/// The ranks that take part, the same on every rank: 0 measures against
/// its + neighbour on the first axis of side > 1 (α, β) and a rank two hops
/// away (δ); the overhead is measured by symmetric() on the ranks near 0.
struct Roles {
  Rank near = -1, far = -1;
  explicit Roles(const Torus& t) {
    const auto axes = t.active_axes();
    if (axes.empty()) return;
    near = t.neighbor(0, make_port(axes[0], true));
    if (t.dim(axes[0]) >= 4)
      far = t.shift(0, axes[0], 2);
    else if (axes.size() > 1)
      far = t.neighbor(near, make_port(axes[1], true));
  }
};

/// Rank 0 sends `bytes` to each of `peers` at once, each answers with the
/// same, repeatedly; returns (on rank 0) the fastest repetition's time.
double bounce(MPI_Comm comm, int rank, const std::vector<Rank>& peers, int bytes, int reps) {
  const bool mine = rank == 0 || std::find(peers.begin(), peers.end(), rank) != peers.end();
  if (!mine) return 0;
  std::vector<char> buf(static_cast<std::size_t>(bytes) * (peers.size() + 1), 1);
  double best = 1e30;
  for (int k = 0; k < reps; ++k) {
    if (rank == 0) {
      std::vector<MPI_Request> req(2 * peers.size());
      const double t0 = PMPI_Wtime();
      for (std::size_t i = 0; i < peers.size(); ++i) {
        PMPI_Irecv(buf.data() + (i + 1) * bytes, bytes, MPI_BYTE, static_cast<int>(peers[i]), kCalibrationTag, comm,
                  &req[i]);
        PMPI_Isend(buf.data(), bytes, MPI_BYTE, static_cast<int>(peers[i]), kCalibrationTag, comm,
                  &req[peers.size() + i]);
      }
      PMPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE);
      best = std::min(best, PMPI_Wtime() - t0);
    } else {
      PMPI_Recv(buf.data(), bytes, MPI_BYTE, 0, kCalibrationTag, comm, MPI_STATUS_IGNORE);
      PMPI_Send(buf.data(), bytes, MPI_BYTE, 0, kCalibrationTag, comm);
    }
  }
  return best;
}

/// The distinct neighbours of rank c (over links that are there); with
/// node_ranks > 1 only its network ones (the node axis, the last, left out).
std::vector<Rank> network_neighbours(const Torus& t, Rank c, int node_ranks) {
  std::vector<Rank> out;
  const int axes = node_ranks > 1 ? t.ndims() - 1 : t.ndims();
  for (Port p = 0; p < 2 * axes; ++p) {
    if (!t.has_link(c, p)) continue;  // the end of an open axis
    const Rank n = t.neighbor(c, p);
    if (n != c && std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  }
  return out;
}

/// Every rank of rank 0's node (ranks 0 .. node_ranks-1) swaps `bytes` with
/// each of its network neighbours at once, so that the node sends and
/// receives over all its links together; returns (on rank 0) the fastest
/// repetition's time, and in *links how many neighbours each rank has.
double exchange(MPI_Comm comm, const Torus& t, int node_ranks, int bytes, int reps, std::size_t* links) {
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  const Rank centre = rank % node_ranks;
  std::vector<Rank> peers = network_neighbours(t, centre, node_ranks);
  *links = peers.size();
  if (rank >= node_ranks) {  // a neighbour of its centre's, or idle
    if (std::find(peers.begin(), peers.end(), rank) == peers.end()) return 0;
    peers.assign(1, centre);
  }
  const std::size_t n = peers.size();
  std::vector<char> out(static_cast<std::size_t>(bytes), 1), in(static_cast<std::size_t>(bytes) * n);
  std::vector<MPI_Request> req(2 * n);
  double best = 1e30;
  for (int k = 0; k < reps; ++k) {
    const double t0 = PMPI_Wtime();
    for (std::size_t i = 0; i < n; ++i) {
      PMPI_Irecv(in.data() + i * bytes, bytes, MPI_BYTE, static_cast<int>(peers[i]), kCalibrationTag, comm, &req[i]);
      PMPI_Isend(out.data(), bytes, MPI_BYTE, static_cast<int>(peers[i]), kCalibrationTag, comm, &req[n + i]);
    }
    PMPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE);
    best = std::min(best, PMPI_Wtime() - t0);
  }
  return best;
}

/// Hops from rank 0 to r along the torus's links (the shortest route).
int hops_from_zero(const Torus& t, Rank r) {
  return route_runs(t, 0, r, [](Rank, Port, int) {});
}

/// A round as the schedules run it: every rank near rank 0 at once sends
/// `bytes` to and receives as much from `all` its distinct neighbours, or
/// else sends to its + neighbour on the first axis and receives from its -
/// one. Returns (on rank 0) the fastest repetition's time. Bouncing off
/// rank 0 alone would miss the receives that overlap its own sends. The
/// ranks up to two hops away take part, with each other only: rank 0's
/// neighbours then post the same messages in the same order as when every
/// rank does, and the other ranks send nothing (O(d^2) ranks, not P).
double symmetric(MPI_Comm comm, const Torus& t, bool all, int bytes, int reps) {
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  constexpr int kRadius = 2;
  if (hops_from_zero(t, rank) > kRadius) return 0;
  const auto axes = t.active_axes();
  std::vector<Rank> to, from;
  if (all) {
    to = from = network_neighbours(t, static_cast<Rank>(rank), 1);  // every axis's; the relation is symmetric
  } else {
    const Port plus = make_port(axes[0], true), minus = make_port(axes[0], false);
    if (t.has_link(rank, plus)) to.push_back(t.neighbor(rank, plus));
    if (t.has_link(rank, minus)) from.push_back(t.neighbor(rank, minus));
  }
  const auto outside = [&](Rank r) { return hops_from_zero(t, r) > kRadius; };
  to.erase(std::remove_if(to.begin(), to.end(), outside), to.end());
  from.erase(std::remove_if(from.begin(), from.end(), outside), from.end());
  std::vector<char> out(static_cast<std::size_t>(bytes), 1), in(static_cast<std::size_t>(bytes) * from.size());
  std::vector<MPI_Request> req(to.size() + from.size());
  double best = 1e30;
  for (int k = 0; k < reps; ++k) {
    const double t0 = PMPI_Wtime();
    for (std::size_t i = 0; i < from.size(); ++i)
      PMPI_Irecv(in.data() + i * bytes, bytes, MPI_BYTE, static_cast<int>(from[i]), kCalibrationTag, comm, &req[i]);
    for (std::size_t i = 0; i < to.size(); ++i)
      PMPI_Isend(out.data(), bytes, MPI_BYTE, static_cast<int>(to[i]), kCalibrationTag, comm,
                 &req[from.size() + i]);
    PMPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE);
    best = std::min(best, PMPI_Wtime() - t0);
  }
  return best;
}

/// Rank 0's memory-copy rate (bytes per second): the fastest of a few
/// copies of 2 MiB (beyond a core's L2, as a 512 KiB message's copies are;
/// 8 MiB took 14 ms with its page faults). No network moves data faster
/// than twice that.
double copy_rate() {
  constexpr std::size_t kBytes = 2u << 20;
  std::vector<char> from(kBytes, 1), to(kBytes, 0);
  double best = 1e30;
  for (int k = 0; k < 3; ++k) {
    const double t0 = PMPI_Wtime();
    std::memcpy(to.data(), from.data(), kBytes);
    best = std::min(best, PMPI_Wtime() - t0);
    from[static_cast<std::size_t>(k)] = to[kBytes - 1 - static_cast<std::size_t>(k)];  // keeps the copies
  }
  return best > 0 ? static_cast<double>(kBytes) / best : 0;
}

/// Why values measured on rank 0 cannot be the machine's, or "".
/// raw_beta: the slope before its floor; rate: copy_rate() (0: unknown).
std::string implausible(const Machine& m, double raw_beta, double rate) {
  char text[160] = "";
  // A test hook: TORUSGATHER_TEST_FAULT=calibration plays a loaded machine.
  if (const char* f = std::getenv("TORUSGATHER_TEST_FAULT"); f && std::strcmp(f, "calibration") == 0)
    std::snprintf(text, sizeof text, "TORUSGATHER_TEST_FAULT=calibration");
  else if (m.alpha > 1e-3)
    std::snprintf(text, sizeof text, "alpha %.3g us is above 1 ms", m.alpha * 1e6);
  else if (m.node_alpha > 1e-3)
    std::snprintf(text, sizeof text, "the node axis's alpha %.3g us is above 1 ms", m.node_alpha * 1e6);
  else if (raw_beta <= 0)
    std::snprintf(text, sizeof text, "512 KiB messages were no slower than 128 KiB ones");
  else if (rate > 0 && 1 / raw_beta > 2 * rate)
    std::snprintf(text, sizeof text, "bandwidth %.3g GB/s is above twice the memory-copy rate (%.3g GB/s)",
                  1e-9 / raw_beta, rate * 1e-9);
  return text;
}

Machine measure(MPI_Comm comm, const Torus& t, int node_ranks, bool shared, double* raw_beta) {
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  const Roles roles(t);
  Machine m;
  if (roles.near < 0) return m;
  if (node_ranks > 1) {
    // The node axis: rank 0 and rank 1 share a node (the last axis).
    const double small = bounce(comm, rank, {1}, kSmallBytes, kRepetitions) / 2;
    const double large = bounce(comm, rank, {1}, kLargeBytes, kRepetitions / 2) / 2;
    const double larger = bounce(comm, rank, {1}, kLargerBytes, kRepetitions / 2) / 2;
    m.node_beta = std::max(1e-13, (larger - large) / (kLargerBytes - kLargeBytes));
    m.node_alpha = std::max(1e-9, small - kSmallBytes * m.node_beta);
  }
  // Half round trips between neighbours: t(m) = α + mβ.
  const double small = bounce(comm, rank, {roles.near}, kSmallBytes, kRepetitions) / 2;
  const double large = bounce(comm, rank, {roles.near}, kLargeBytes, kRepetitions / 2) / 2;
  const double larger = bounce(comm, rank, {roles.near}, kLargerBytes, kRepetitions / 2) / 2;
  const double far = roles.far >= 0 ? bounce(comm, rank, {roles.far}, kSmallBytes, kRepetitions) / 2 : small;
  // All neighbours at once against one: the extra messages' cost each.
  const double one = symmetric(comm, t, false, kSmallBytes, kRepetitions);
  const double all = symmetric(comm, t, true, kSmallBytes, kRepetitions);
  *raw_beta = (larger - large) / (kLargerBytes - kLargeBytes);
  m.beta = std::max(1e-13, *raw_beta);
  if (!shared) {
    // The injection limit: the ranks of rank 0's node swap large messages
    // with all their network neighbours at once. Each link then carries the
    // node's k ranks' messages: where the time per byte grows faster than k
    // times one link's, the node cannot drive all its links both ways at
    // full rate.
    std::size_t links = 0;
    const double a = exchange(comm, t, node_ranks, kLargeBytes, kRepetitions / 4, &links);
    const double b = exchange(comm, t, node_ranks, kLargerBytes, kRepetitions / 4, &links);
    const double slope = (b - a) / (kLargerBytes - kLargeBytes);
    // Bytes through the node per byte of one message: in and out, k ranks.
    const auto through = static_cast<double>(2 * links * static_cast<std::size_t>(node_ranks));
    if (links > 1 && slope > 1.05 * node_ranks * m.beta) m.inject_beta = slope / through;
  }
  m.alpha = std::max(1e-9, small - kSmallBytes * m.beta);
  m.delta = std::max(0.0, far - small);
  const std::size_t extra = 2 * (network_neighbours(t, 0, 1).size() - 1);
  m.overhead = extra ? std::max(0.0, (all - one) / static_cast<double>(extra)) : 0.0;
  return m;
}

/// Rank 0's last accepted measurement of each shape in this process, and when.
std::mutex g_last_mutex;
std::map<std::string, RecordedMachine> g_last;

/// Two measurements of one machine that cannot both be right: α or β three
/// times apart or more (a busy machine moved one of them).
bool disagree(const Machine& a, const Machine& b) {
  auto apart = [](double x, double y) { return x > 0 && y > 0 && (x >= 3 * y || y >= 3 * x); };
  return apart(a.alpha, b.alpha) || apart(a.beta, b.beta);
}

/// Every parameter's median of three measurements.
Machine median_of(const Machine (&m)[3]) {
  auto mid = [](double a, double b, double c) { return std::max(std::min(a, b), std::min(std::max(a, b), c)); };
  Machine out = m[0];
  out.alpha = mid(m[0].alpha, m[1].alpha, m[2].alpha);
  out.beta = mid(m[0].beta, m[1].beta, m[2].beta);
  out.delta = mid(m[0].delta, m[1].delta, m[2].delta);
  out.overhead = mid(m[0].overhead, m[1].overhead, m[2].overhead);
  out.node_alpha = mid(m[0].node_alpha, m[1].node_alpha, m[2].node_alpha);
  out.node_beta = mid(m[0].node_beta, m[1].node_beta, m[2].node_beta);
  out.inject_beta = mid(m[0].inject_beta, m[1].inject_beta, m[2].inject_beta);
  return out;
}

/// Rank 0: the last measurement of this shape, from this process or else
/// from the tuning file.
bool last_measurement(const std::string& key, RecordedMachine* out) {
  {
    std::lock_guard<std::mutex> lock(g_last_mutex);
    if (auto it = g_last.find(key); it != g_last.end()) {
      *out = it->second;
      return true;
    }
  }
  return last_recorded_calibration(key, out);
}

std::string shape_key(const Torus& t, bool shared) {
  return std::to_string(t.size()) + " " + t.to_string() + " " + (shared ? "shared" : "network");
}

bool read_cache(const char* path, const std::string& key, Machine* m) {
  FILE* f = std::fopen(path, "r");
  if (!f) return false;
  char line[512];
  bool found = false;
  while (std::fgets(line, sizeof line, f)) {
    char p[32], dims[128], kind[32];
    // Optional: the node axis's α and β (0 0 without one), the injection limit.
    double a, b, d, o, na = 0, nb = 0, inj = 0;
    const int n = std::sscanf(line, "%31s %127s %31s %lg %lg %lg %lg %lg %lg %lg", p, dims, kind, &a, &b, &d, &o, &na,
                              &nb, &inj);
    if ((n == 7 || ((n == 9 || n == 10) && na >= 0 && na <= 1e-3 && nb >= 0 && inj >= 0)) &&
        key == std::string(p) + " " + dims + " " + kind && a > 0 && a <= 1e-3 && b > 0 && d >= 0 && o >= 0) {
      m->alpha = a;
      m->beta = b;
      m->delta = d;
      m->overhead = o;
      m->node_alpha = na;
      m->node_beta = nb;
      m->inject_beta = inj;
      found = true;  // the last matching line wins
    }
  }
  std::fclose(f);
  return found;
}

void write_cache(const char* path, const std::string& key, const Machine& m) {
  if (FILE* f = std::fopen(path, "a")) {
    std::fprintf(f, "%s %.6e %.6e %.6e %.6e", key.c_str(), m.alpha, m.beta, m.delta, m.overhead);
    if (m.node_alpha > 0 || m.inject_beta > 0)
      std::fprintf(f, " %.6e %.6e %.6e", m.node_alpha, m.node_beta, m.inject_beta);
    std::fprintf(f, "\n");
    std::fclose(f);
  }
}

}  // namespace

bool env_number(const char* name, bool zero_ok, double* out) {
  const char* text = std::getenv(name);
  if (!text || !*text) return false;
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (end == text || *end != '\0' || !std::isfinite(v) || v < 0 || (v == 0 && !zero_ok)) return false;
  *out = v;
  return true;
}

std::string now_utc() {
  char when[32] = "";
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return when;
}

int calibrate(MPI_Comm comm, const Torus& torus, int node_ranks, Calibration* out) {
  int rank = 0, size = 0;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  // One node: the ranks share memory, and what a rank receives, not a
  // torus link, is the bottleneck.
  bool shared = false;
  MPI_Comm node = MPI_COMM_NULL;
  if (PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS &&
      node != MPI_COMM_NULL) {
    int node_size = 0;
    PMPI_Comm_size(node, &node_size);
    shared = node_size == size;
    PMPI_Comm_free(&node);
  }
  Machine m;
  bool all_given = true;
  for (const char* name : {"TORUSGATHER_ALPHA", "TORUSGATHER_BANDWIDTH", "TORUSGATHER_DELTA", "TORUSGATHER_OVERHEAD"})
    all_given = all_given && std::getenv(name) && *std::getenv(name);
  const char* cache = std::getenv("TORUSGATHER_CALIBRATION_FILE");
  if (cache && !*cache) cache = nullptr;
  const std::string key = shape_key(torus, shared);
  // 0: measure; 1: rank 0 read it from the cache file; 2: all four given.
  int cached = all_given ? 2 : 0;
  if (rank == 0 && cache && !all_given) cached = read_cache(cache, key, &m) ? 1 : 0;
  int err = PMPI_Bcast(&cached, 1, MPI_INT, 0, comm);
  if (err != MPI_SUCCESS) return err;
  out->source = "defaults";
  out->shape = key;
  out->measured = cached == 0;
  if (cached == 0) {
#ifdef TORUSGATHER_SMPI
    const double rate = 0;  // the simulated network is not bound by this host's memory
#else
    const double rate = rank == 0 ? copy_rate() : 0;
#endif
    std::string why;
    for (int attempt = 0; attempt < 3; ++attempt) {
      double raw_beta = 0;
      m = measure(comm, torus, node_ranks, shared, &raw_beta);
      int bad = 0;
      if (rank == 0) {
        why = implausible(m, raw_beta, rate);
        bad = !why.empty();
      }
      if ((err = PMPI_Bcast(&bad, 1, MPI_INT, 0, comm)) != MPI_SUCCESS) return err;
      if (!bad) break;
      if (attempt == 2) out->rejected = true;
    }
    out->source = out->rejected ? "rejected: " + why + "; the defaults" : "measured";
    // A measurement that disagrees with the last one of this shape is made
    // twice more, and each parameter is the median of the three.
    int again = 0;
    RecordedMachine last;
    if (rank == 0 && !out->rejected && last_measurement(key, &last)) again = disagree(m, last.machine) ? 1 : 0;
    if ((err = PMPI_Bcast(&again, 1, MPI_INT, 0, comm)) != MPI_SUCCESS) return err;
    if (again) {
      Machine runs[3] = {m, {}, {}};
      for (int k = 1; k < 3; ++k) {
        double raw_beta = 0;
        runs[k] = measure(comm, torus, node_ranks, shared, &raw_beta);
      }
      m = median_of(runs);
      out->source = "measured 3 times, the median (the first disagreed with the one of " + last.when + ")";
    }
    if (rank == 0 && !out->rejected) {
      std::lock_guard<std::mutex> lock(g_last_mutex);
      g_last[key] = RecordedMachine{m, now_utc()};
    }
    if (out->rejected) {
      if (rank == 0)
        std::fprintf(stderr,
                     "torusgather: calibration on %d ranks rejected three times (%s): a loaded machine? Not "
                     "cached; the cost model takes its defaults and auto times its candidates' calls\n",
                     size, why.c_str());
      m = Machine{};
    } else if (rank == 0 && cache) {
      write_cache(cache, key, m);
    }
  } else if (cached == 1) {
    out->source = std::string("cache file ") + cache;
  }
  // Rank 0 applies the overrides too, so that every rank models the same
  // machine whatever its own environment says.
  if (rank == 0) {
    double v = 0;
    if (env_number("TORUSGATHER_ALPHA", false, &v)) m.alpha = v, out->source += ", TORUSGATHER_ALPHA";
    if (env_number("TORUSGATHER_BANDWIDTH", false, &v)) m.beta = 1 / v, out->source += ", TORUSGATHER_BANDWIDTH";
    if (env_number("TORUSGATHER_DELTA", true, &v)) m.delta = v, out->source += ", TORUSGATHER_DELTA";
    if (env_number("TORUSGATHER_OVERHEAD", true, &v)) m.overhead = v, out->source += ", TORUSGATHER_OVERHEAD";
    if (env_number("TORUSGATHER_INJECTION", true, &v))
      m.inject_beta = v > 0 ? 1 / v : 0, out->source += ", TORUSGATHER_INJECTION";
    if (node_ranks > 1) {
      if (env_number("TORUSGATHER_NODE_ALPHA", false, &v)) m.node_alpha = v, out->source += ", TORUSGATHER_NODE_ALPHA";
      if (env_number("TORUSGATHER_NODE_BANDWIDTH", false, &v))
        m.node_beta = 1 / v, out->source += ", TORUSGATHER_NODE_BANDWIDTH";
    }
  }
  double values[7] = {m.alpha, m.beta, m.delta, m.overhead, m.node_alpha, m.node_beta, m.inject_beta};
  if ((err = PMPI_Bcast(values, 7, MPI_DOUBLE, 0, comm)) != MPI_SUCCESS) return err;
  m.alpha = values[0];
  m.beta = values[1];
  m.delta = values[2];
  m.overhead = values[3];
  m.node_alpha = values[4];
  m.node_beta = values[5];
  m.inject_beta = values[6];
  m.shared_memory = shared;
  out->machine = m;

  return MPI_SUCCESS;
}

}  // namespace torusgather
