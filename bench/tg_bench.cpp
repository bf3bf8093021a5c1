// tg-bench: torusgather against the vendor's MPI_Allgather, in the style of
// OSU's osu_allgather. The same source builds with mpicxx (real MPI) and with
// smpicxx (SimGrid SMPI, simulated torus; times are then simulated seconds).
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "torusgather/torusgather.h"

namespace {

struct Options {
  std::vector<long long> sizes;  // bytes per rank
  int iters = 50;
  int warmup = 3;
  std::vector<std::string> algorithms{"auto"};
  bool check = false;
  std::string csv;
};

[[noreturn]] void die(int rank, const std::string& msg) {
  if (rank == 0) std::fprintf(stderr, "tg-bench: %s\n", msg.c_str());
  MPI_Finalize();
  std::exit(2);
}

long long parse_size(const std::string& s) {
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (end == s.c_str()) return -1;
  const std::string unit = end;
  if (unit == "k" || unit == "K" || unit == "KiB") v <<= 10;
  else if (unit == "m" || unit == "M" || unit == "MiB") v <<= 20;
  else if (!unit.empty()) return -1;
  return v;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i <= s.size()) {
    const std::size_t j = s.find(sep, i);
    out.push_back(s.substr(i, j == std::string::npos ? std::string::npos : j - i));
    if (j == std::string::npos) break;
    i = j + 1;
  }
  return out;
}

Options parse(int argc, char** argv, int rank) {
  Options o;
  std::string sizes = "8:1048576";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) die(rank, a + " needs a value");
      return argv[++i];
    };
    if (a == "--sizes") sizes = value();
    else if (a == "--iters") o.iters = std::atoi(value().c_str());
    else if (a == "--warmup") o.warmup = std::atoi(value().c_str());
    else if (a == "--algorithms") o.algorithms = split(value(), ',');
    else if (a == "--check") o.check = true;
    else if (a == "--csv") o.csv = value();
    else if (a == "--help" || a == "-h") {
      if (rank == 0)
        std::printf(
            "usage: mpirun -np N tg-bench [--sizes MIN:MAX | A,B,C] [--iters K] [--warmup W]\n"
            "                [--algorithms auto,hamiltonian,dim-rings] [--check] [--csv FILE]\n"
            "Times each algorithm against the vendor's MPI_Allgather (always included) for\n"
            "each block size (bytes per rank; MIN:MAX doubles). Sizes take k/M suffixes.\n"
            "Reports the average over ranks of the per-rank mean time per call, in us.\n");
      MPI_Finalize();
      std::exit(0);
    } else die(rank, "unknown option '" + a + "' (try --help)");
  }
  if (o.iters < 1 || o.warmup < 0) die(rank, "--iters must be >= 1 and --warmup >= 0");
  if (sizes.find(':') != std::string::npos) {
    const auto ends = split(sizes, ':');
    const long long lo = parse_size(ends[0]), hi = ends.size() == 2 ? parse_size(ends[1]) : -1;
    if (lo < 1 || hi < lo) die(rank, "malformed --sizes '" + sizes + "'");
    for (long long s = lo; s <= hi; s *= 2) o.sizes.push_back(s);
  } else {
    for (const auto& s : split(sizes, ',')) {
      const long long v = parse_size(s);
      if (v < 0) die(rank, "malformed --sizes '" + sizes + "'");
      o.sizes.push_back(v);
    }
  }
  o.algorithms.erase(std::remove(o.algorithms.begin(), o.algorithms.end(), "vendor"), o.algorithms.end());
  o.algorithms.insert(o.algorithms.begin(), "vendor");
  return o;
}

unsigned char pattern(int rank, long long i) { return static_cast<unsigned char>(rank * 131 + i * 7 + 1); }

void* allocate(std::size_t bytes, bool shared) {
#ifdef SMPI_SHARED_MALLOC
  // Under SimGrid, big unchecked buffers share memory across simulated ranks.
  if (shared) return SMPI_SHARED_MALLOC(bytes);
#else
  (void)shared;
#endif
  return std::malloc(bytes ? bytes : 1);
}

void release(void* p, bool shared) {
#ifdef SMPI_SHARED_FREE
  if (shared) {
    SMPI_SHARED_FREE(p);
    return;
  }
#else
  (void)shared;
#endif
  std::free(p);
}

int run(const std::string& algorithm, const void* send, long long bytes, void* recv, MPI_Comm comm) {
  if (algorithm == "vendor")
    return PMPI_Allgather(send, static_cast<int>(bytes), MPI_BYTE, recv, static_cast<int>(bytes), MPI_BYTE, comm);
  return TG_Allgather_algorithm(algorithm.c_str(), send, static_cast<int>(bytes), MPI_BYTE, recv,
                                static_cast<int>(bytes), MPI_BYTE, comm);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const Options opt = parse(argc, argv, rank);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);

  // What each requested algorithm really runs on this communicator.
  std::vector<std::string> ran;
  for (const auto& a : opt.algorithms) {
    char chosen[64] = "vendor";
    if (a != "vendor" && TG_Algorithm_chosen(a.c_str(), comm, chosen, sizeof chosen) != MPI_SUCCESS)
      die(rank, "unknown algorithm '" + a + "'");
    ran.push_back(chosen);
  }
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int vlen = 0;
  MPI_Get_library_version(version, &vlen);
  std::string vendor_name = version;
  vendor_name = vendor_name.substr(0, vendor_name.find_first_of(",\n"));
  const char* dims_env = std::getenv("TORUSGATHER_DIMS");
  if (rank == 0) {
    std::printf("# tg-bench: MPI_Allgather, %d ranks, torus %s, vendor: %s\n", size,
                dims_env ? dims_env : "(MPI_Dims_create, d=2)", vendor_name.c_str());
    std::printf("# time: average over ranks of the mean time per call (us); %d iterations (%d above 64 KiB), %d warm-up\n",
                opt.iters, std::max(1, opt.iters / 5), opt.warmup);
    for (std::size_t k = 1; k < opt.algorithms.size(); ++k)
      if (ran[k] != opt.algorithms[k])
        std::printf("# %s runs %s on this torus\n", opt.algorithms[k].c_str(), ran[k].c_str());
    std::printf("%-12s", "# Size(B)");
    for (const auto& a : opt.algorithms) std::printf(" %14s", (a + "(us)").c_str());
    for (std::size_t k = 1; k < opt.algorithms.size(); ++k)
      std::printf(" %14s", ("vendor/" + opt.algorithms[k]).c_str());
    std::printf("\n");
  }
  FILE* csv = nullptr;
  if (rank == 0 && !opt.csv.empty()) {
    csv = std::fopen(opt.csv.c_str(), "w");
    if (!csv) die(rank, "cannot write " + opt.csv);
    std::fprintf(csv, "ranks,bytes,algorithm,ran,avg_us,min_us,max_us,iters,checked,ok\n");
  }

  int failures = 0;
  for (long long bytes : opt.sizes) {
    const bool shared = !opt.check;
    std::vector<unsigned char> send(static_cast<std::size_t>(bytes ? bytes : 1));
    for (long long i = 0; i < bytes; ++i) send[static_cast<std::size_t>(i)] = pattern(rank, i);
    auto* recv = static_cast<unsigned char*>(allocate(static_cast<std::size_t>(bytes) * size, shared));
    const int iters = bytes > 65536 ? std::max(1, opt.iters / 5) : opt.iters;
    std::vector<double> avg(opt.algorithms.size());
    for (std::size_t k = 0; k < opt.algorithms.size(); ++k) {
      int err = MPI_SUCCESS;
      for (int w = 0; w < opt.warmup && err == MPI_SUCCESS; ++w) err = run(opt.algorithms[k], send.data(), bytes, recv, comm);
      double total = 0;
      bool ok = true;
      for (int it = 0; it < iters && err == MPI_SUCCESS; ++it) {
        if (opt.check) std::memset(recv, 0, static_cast<std::size_t>(bytes) * size);
        MPI_Barrier(comm);
        const double t0 = MPI_Wtime();
        err = run(opt.algorithms[k], send.data(), bytes, recv, comm);
        total += MPI_Wtime() - t0;
        if (opt.check)
          for (int r = 0; r < size && ok; ++r)
            for (long long i = 0; i < bytes && ok; ++i) ok = recv[r * bytes + i] == pattern(r, i);
      }
      ok = ok && err == MPI_SUCCESS;
      int all_ok = ok ? 1 : 0;
      MPI_Allreduce(MPI_IN_PLACE, &all_ok, 1, MPI_INT, MPI_MIN, comm);
      if (!all_ok) ++failures;
      const double mine = total / iters * 1e6;
      double sum = 0, lo = 0, hi = 0;
      MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
      MPI_Reduce(&mine, &lo, 1, MPI_DOUBLE, MPI_MIN, 0, comm);
      MPI_Reduce(&mine, &hi, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
      avg[k] = sum / size;
      if (csv)
        std::fprintf(csv, "%d,%lld,%s,%s,%.3f,%.3f,%.3f,%d,%s,%s\n", size, bytes, opt.algorithms[k].c_str(),
                     ran[k].c_str(), avg[k], lo, hi, iters, opt.check ? "yes" : "no", all_ok ? "ok" : "FAILED");
      if (rank == 0 && !all_ok) std::fprintf(stderr, "tg-bench: %s FAILED at %lld bytes\n", opt.algorithms[k].c_str(), bytes);
    }
    if (rank == 0) {
      std::printf("%-12lld", bytes);
      for (double t : avg) std::printf(" %14.2f", t);
      for (std::size_t k = 1; k < avg.size(); ++k) std::printf(" %14.2f", avg[k] > 0 ? avg[0] / avg[k] : 0.0);
      std::printf("\n");
      std::fflush(stdout);
    }
    release(recv, shared);
  }
  if (csv) std::fclose(csv);
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
