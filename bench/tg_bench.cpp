// SPDX-License-Identifier: BSD-3-Clause
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

#include "bench_common.hpp"
#include "torusgather/torusgather.h"

namespace {

using tgbench::allocate;
using tgbench::parse_size;
using tgbench::split;
using tgbench::release;
using tgbench::run;
using tgbench::run_v;
using tgbench::start_together;

struct Options {
  std::vector<long long> sizes;  // bytes per rank
  int iters = 50;                // timed calls per repetition (a fifth above 64 KiB)
  int warmup = 3;
  int reps = 5;                  // repetitions, algorithms alternating; the median is reported
  std::vector<std::string> algorithms{"auto"};
  std::string datatype = "byte";
  bool check = false;
  bool allgatherv = false;  // time MPI_Allgatherv (equal counts) instead
  bool persistent = false;  // time TG_Start + TG_Wait of a TG_Allgather_init request instead
  long long check_max = -1;  // check only sizes up to this (-1: all when --check)
  bool vendor = true;        // time the vendor's MPI_Allgather too
  bool predict = false;      // the cost model's prediction per row (TG_Predicted_time)
  std::string csv, json;
};

struct Datatype {
  const char* name;
  MPI_Datatype type;
  int size;
};
Datatype datatype_of(const std::string& name) {
  if (name == "int") return {"int", MPI_INT, static_cast<int>(sizeof(int))};
  if (name == "double") return {"double", MPI_DOUBLE, static_cast<int>(sizeof(double))};
  if (name == "byte") return {"byte", MPI_BYTE, 1};
  return {nullptr, MPI_DATATYPE_NULL, 0};
}

[[noreturn]] void die(int rank, const std::string& msg) {
  if (rank == 0) std::fprintf(stderr, "tg-bench: %s\n", msg.c_str());
  MPI_Finalize();
  std::exit(2);
}

Options parse(int argc, char** argv, int rank) {
  Options o;
  std::string sizes = "8:4194304";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) die(rank, a + " needs a value");
      return argv[++i];
    };
    if (a == "--sizes") sizes = value();
    else if (a == "--iters") o.iters = std::atoi(value().c_str());
    else if (a == "--warmup") o.warmup = std::atoi(value().c_str());
    else if (a == "--reps") o.reps = std::atoi(value().c_str());
    else if (a == "--algorithms") o.algorithms = split(value(), ',');
    else if (a == "--datatype") o.datatype = value();
    else if (a == "--check") o.check = true;
    else if (a == "--allgatherv") o.allgatherv = true;
    else if (a == "--persistent") o.persistent = true;
    else if (a == "--check-max") {
      o.check = true;
      o.check_max = parse_size(value());
      if (o.check_max < 0) die(rank, "malformed --check-max");
    } else if (a == "--no-vendor") o.vendor = false;
    else if (a == "--predict") o.predict = true;
    else if (a == "--csv") o.csv = value();
    else if (a == "--json") o.json = value();
    else if (a == "--help" || a == "-h") {
      if (rank == 0)
        std::printf(
            "usage: mpirun -np N tg-bench [--sizes MIN:MAX | A,B,C] [--iters K] [--warmup W] [--reps R]\n"
            "                [--algorithms all | auto,hamiltonian,...] [--datatype byte|int|double]\n"
            "                [--check | --check-max BYTES] [--no-vendor] [--predict] [--allgatherv | --persistent]\n"
            "                [--csv FILE] [--json FILE]\n"
            "Times each algorithm against the vendor's MPI_Allgather (always included) for\n"
            "each block size (bytes per rank; MIN:MAX doubles; default 8:4M). Sizes take k/M\n"
            "suffixes. As OSU's osu_allgather: warm-up, a barrier before every call, each\n"
            "rank's mean time per call, then min/avg/max over ranks. Within a size the\n"
            "algorithms alternate (A B A B ...) over R repetitions (default 5) and each\n"
            "rank's median repetition counts, so that drift hits all alike. 'all' = every\n"
            "registered algorithm that applies to the torus, and auto. --check compares every\n"
            "result byte for byte; --check-max checks sizes up to BYTES only (larger ones use\n"
            "SMPI_SHARED_MALLOC under SimGrid). --no-vendor leaves out MPI_Allgather.\n"
            "--allgatherv times MPI_Allgatherv instead, every rank's count the block size\n"
            "(vendor: PMPI_Allgatherv; the others TG_Allgatherv_algorithm). --persistent times\n"
            "TG_Start + TG_Wait of one TG_Allgather_init request per algorithm and size (vendor:\n"
            "the info key torusgather_algorithm=vendor, MPI_Iallgather per start).\n"
            "--predict adds the cost model's prediction of each row (column predicted_us,\n"
            "empty or null where there is no model), from the calibrated machine as auto sees it.\n");
      MPI_Finalize();
      std::exit(0);
    } else die(rank, "unknown option '" + a + "' (try --help)");
  }
  if (o.iters < 1 || o.warmup < 0 || o.reps < 1) die(rank, "--iters and --reps must be >= 1 and --warmup >= 0");
  if (o.allgatherv && o.persistent) die(rank, "--allgatherv and --persistent exclude each other");
  if (!datatype_of(o.datatype).name) die(rank, "--datatype must be byte, int or double");
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
  return o;
}

unsigned char pattern(int rank, long long i) { return static_cast<unsigned char>(rank * 131 + i * 7 + 1); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

/// s as the contents of a JSON string (MPI version strings hold tabs).
std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

/// One algorithm's result at one size: each rank's median repetition, then
/// min/avg/max over ranks (us).
struct Result {
  double avg = 0, min = 0, max = 0;
  bool ok = true;
};

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Options opt = parse(argc, argv, rank);
  const Datatype dt = datatype_of(opt.datatype);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);

  // The vendor first, then what was asked for; and what each really runs.
  opt.algorithms = tgbench::expand(opt.algorithms, comm);
  opt.algorithms.erase(std::remove(opt.algorithms.begin(), opt.algorithms.end(), "vendor"), opt.algorithms.end());
  if (opt.vendor) opt.algorithms.insert(opt.algorithms.begin(), "vendor");
  if (opt.algorithms.empty()) die(rank, "nothing to time");
  std::vector<std::string> ran;
  for (const auto& a : opt.algorithms) {
    char chosen[64] = "vendor";
    if (a != "vendor" && TG_Algorithm_chosen(a.c_str(), comm, chosen, sizeof chosen) != MPI_SUCCESS)
      die(rank, "'" + a + "': an unknown algorithm, or torusgather could not set up this communicator (see above)");
    ran.push_back(chosen);
  }
  for (long long bytes : opt.sizes)
    if (bytes % dt.size != 0)
      die(rank, "size " + std::to_string(bytes) + " is not a multiple of the " + dt.name + " size");
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int vlen = 0;
  MPI_Get_library_version(version, &vlen);
  std::string vendor_name = version;
  vendor_name = vendor_name.substr(0, vendor_name.find_first_of(",\n"));
  const char* dims_env = std::getenv("TORUSGATHER_DIMS");
  const char* topology_env = std::getenv("TORUSGATHER_TOPOLOGY");
  const std::string torus = dims_env && *dims_env           ? dims_env
                            : topology_env && *topology_env ? std::string("from ") + topology_env
                                                            : "none known (auto runs the vendor's allgather; "
                                                              "named algorithms run on MPI_Dims_create's 2D shape)";
  const std::size_t n = opt.algorithms.size();
  if (rank == 0) {
    std::printf("# tg-bench: %s, %d ranks, torus %s, vendor: %s, datatype %s\n",
                opt.allgatherv   ? "MPI_Allgatherv (equal counts)"
                : opt.persistent ? "persistent (TG_Start + TG_Wait)"
                                 : "MPI_Allgather",
                size, torus.c_str(),
                vendor_name.c_str(), dt.name);
    std::printf("# time: per rank the mean over %d calls (%d above 64 KiB) after %d warm-up, the algorithms\n"
                "# taking turns call by call, each in every place; median of %d repetitions; Avg over ranks\n"
                "# in us (Min/Max over ranks in --csv/--json)\n",
                opt.iters, std::max(1, opt.iters / 5), opt.warmup, opt.reps);
    for (std::size_t k = 0; k < n; ++k)
      if (ran[k] != opt.algorithms[k])
        std::printf("# %s runs %s on this torus for 1-byte blocks (per size: column ran of --csv/--json)\n",
                    opt.algorithms[k].c_str(), ran[k].c_str());
    std::printf("%-12s", "# Size(B)");
    for (const auto& a : opt.algorithms) std::printf(" %14s", (a + "(us)").c_str());
    if (opt.vendor)
      for (std::size_t k = 1; k < n; ++k) std::printf(" %14s", ("vendor/" + opt.algorithms[k]).c_str());
    std::printf("\n");
  }
  FILE* csv = nullptr;
  FILE* json = nullptr;
  if (rank == 0 && !opt.csv.empty()) {
    csv = std::fopen(opt.csv.c_str(), "w");
    if (!csv) die(rank, "cannot write " + opt.csv);
    std::fprintf(csv, "ranks,bytes,datatype,algorithm,ran,avg_us,min_us,max_us,iters,reps,checked,ok,predicted_us\n");
  }
  if (rank == 0 && !opt.json.empty()) {
    json = std::fopen(opt.json.c_str(), "w");
    if (!json) die(rank, "cannot write " + opt.json);
    std::fprintf(json,
                 "{\n  \"ranks\": %d,\n  \"torus\": \"%s\",\n  \"vendor\": \"%s\",\n  \"datatype\": \"%s\",\n"
                 "  \"warmup\": %d,\n  \"reps\": %d,\n  \"results\": [",
                 size, json_escape(torus).c_str(), json_escape(vendor_name).c_str(), dt.name, opt.warmup, opt.reps);
  }

  // Under SimGrid the time is simulated and deterministic: an algorithm that
  // runs another one timed here under its own name (auto -> hamiltonian at
  // this size) repeats that one's row instead of simulating the same
  // schedule again. What runs is asked per size (auto's choice depends on it).
  std::vector<long> same_as(n, -1);
  auto resolve = [&](int count) {
    for (std::size_t k = 0; k < n; ++k) {
      char chosen[64] = "vendor";
      if (opt.algorithms[k] != "vendor")
        TG_Algorithm_for(opt.algorithms[k].c_str(), comm, count, dt.type, chosen, sizeof chosen);
      ran[k] = chosen;
      same_as[k] = -1;
#ifdef TORUSGATHER_SMPI
      for (std::size_t j = 0; j < n && ran[k] != opt.algorithms[k]; ++j)
        if (opt.algorithms[j] == ran[k]) same_as[k] = static_cast<long>(j);
      if (rank == 0 && same_as[k] >= 0)
        std::printf("# %s at %lld B: the row of %s (the same schedule; simulated time is deterministic)\n",
                    opt.algorithms[k].c_str(), static_cast<long long>(count) * dt.size, ran[k].c_str());
#endif
    }
  };
  // Every plan is built (and cached on the communicator) before any timing.
  // Under SimGrid, TG_Algorithm_chosen above has built a named algorithm's
  // plan, and building takes no simulated time: only auto, whose decisions
  // follow its calls, makes an untimed call first (a call costs a
  // simulation as much wall-clock as a timed one).
  {
    unsigned char one = 1;
    std::vector<unsigned char> all(static_cast<std::size_t>(size) * dt.size);
    std::vector<unsigned char> mine(static_cast<std::size_t>(dt.size), one);
    for (const auto& a : opt.algorithms) {
#ifdef TORUSGATHER_SMPI
      if (a != "auto") continue;
#endif
      run(a, mine.data(), 1, dt.type, all.data(), comm);
    }
  }
  int failures = 0;
  bool first_json = true;
  for (long long bytes : opt.sizes) {
    const bool check = opt.check && (opt.check_max < 0 || bytes <= opt.check_max);
    const bool shared = !check;
#ifdef TORUSGATHER_SMPI
    TG_Smpi_traffic_only(shared ? 1 : 0);  // unchecked: same traffic, no packing buffers
#endif
    const int count = static_cast<int>(bytes / dt.size);
    resolve(count);
    std::vector<double> predicted(n, -1);
    for (std::size_t k = 0; k < n && opt.predict; ++k) {
      double seconds = -1;
      if (TG_Predicted_time(opt.algorithms[k].c_str(), comm, count, dt.type, &seconds) == MPI_SUCCESS && seconds >= 0)
        predicted[k] = seconds * 1e6;
    }
    // Unchecked under SimGrid, the send buffer is shared too (4096 ranks'
    // 4 MiB blocks would take 16 GiB) and left as it is.
    auto* send = static_cast<unsigned char*>(allocate(static_cast<std::size_t>(bytes ? bytes : 1), shared));
#ifdef SMPI_SHARED_MALLOC
    const bool fill = !shared;
#else
    const bool fill = true;
#endif
    for (long long i = 0; i < bytes && fill; ++i) send[i] = pattern(rank, i);
    auto* recv = static_cast<unsigned char*>(allocate(static_cast<std::size_t>(bytes) * size, shared));
    const int iters = bytes > 65536 ? std::max(1, opt.iters / 5) : opt.iters;
    std::vector<int> counts(static_cast<std::size_t>(size), count), displs(static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r) displs[static_cast<std::size_t>(r)] = r * count;
    // --persistent: one request per algorithm, made before any timing.
    std::vector<TG_Request> requests(n, TG_REQUEST_NULL);
    for (std::size_t k = 0; k < n && opt.persistent; ++k) {
      MPI_Info info;
      MPI_Info_create(&info);
      MPI_Info_set(info, "torusgather_algorithm", opt.algorithms[k].c_str());
      if (TG_Allgather_init(send, count, dt.type, recv, count, dt.type, comm, info, &requests[k]) !=
          MPI_SUCCESS)
        die(rank, "TG_Allgather_init failed for " + opt.algorithms[k]);
      MPI_Info_free(&info);
    }
    auto call = [&](const std::string& a) {
      if (opt.persistent) {
        const auto k = static_cast<std::size_t>(
            std::find(opt.algorithms.begin(), opt.algorithms.end(), a) - opt.algorithms.begin());
        const int err = TG_Start(&requests[k]);
        return err != MPI_SUCCESS ? err : TG_Wait(&requests[k]);
      }
      return opt.allgatherv ? run_v(a, send, count, dt.type, recv, counts.data(), displs.data(), comm)
                            : run(a, send, count, dt.type, recv, comm);
    };
    // means[k][rep]: this rank's mean time per call of algorithm k in repetition rep.
    std::vector<std::vector<double>> means(n, std::vector<double>(static_cast<std::size_t>(opt.reps)));
    std::vector<int> errors(n, MPI_SUCCESS);
    std::vector<bool> ok(n, true);
    for (std::size_t k = 0; k < n; ++k)
      for (int w = 0; w < opt.warmup && errors[k] == MPI_SUCCESS && same_as[k] < 0; ++w)
        errors[k] = call(opt.algorithms[k]);
    // Call by call, in an order that turns (A B C, C B A, B C A, A C B,
    // ...): the algorithms compared share the machine's drift, and each
    // stands in every place equally often. Measured with the same allgather
    // under two names on 4 ranks of 2 cores: blocks of one algorithm's calls
    // in turn differed by 3-9 %; call by call in one fixed order, the second
    // was 2-3 % faster, and with three the middle one 3-6 % slower.
    for (int rep = 0; rep < opt.reps; ++rep) {
      std::vector<double> total(n, 0);
      for (int it = 0; it < iters; ++it)
        for (std::size_t j = 0; j < n; ++j) {
          const std::size_t first = static_cast<std::size_t>(it / 2 + rep) % n;
          const std::size_t k = it % 2 ? (first + n - 1 - j) % n : (first + j) % n;
          if (same_as[k] >= 0 || errors[k] != MPI_SUCCESS) continue;
          if (check) std::memset(recv, 0, static_cast<std::size_t>(bytes) * size);
          const double t0 = start_together(comm);
          errors[k] = call(opt.algorithms[k]);
          total[k] += MPI_Wtime() - t0;
          if (check) {
            bool good = true;
            for (int r = 0; r < size && good; ++r)
              for (long long i = 0; i < bytes && good; ++i) good = recv[r * bytes + i] == pattern(r, i);
            ok[k] = ok[k] && good;
          }
        }
      for (std::size_t k = 0; k < n; ++k) means[k][static_cast<std::size_t>(rep)] = total[k] / iters * 1e6;
    }
    // auto's first calls of a size may be trials: what it runs after them
    // is known only now (resolve() asked before them).
    for (std::size_t k = 0; k < n; ++k)
      if (opt.algorithms[k] == "auto") {
        char chosen[64] = "";
        if (TG_Algorithm_for("auto", comm, count, dt.type, chosen, sizeof chosen) == MPI_SUCCESS) ran[k] = chosen;
      }
    for (std::size_t k = 0; k < n; ++k)
      if (same_as[k] >= 0) {
        const auto j = static_cast<std::size_t>(same_as[k]);
        means[k] = means[j];
        errors[k] = errors[j];
        ok[k] = ok[j];
      }
    std::vector<Result> results(n);
    for (std::size_t k = 0; k < n; ++k) {
      int all_ok = ok[k] && errors[k] == MPI_SUCCESS ? 1 : 0;
      MPI_Allreduce(MPI_IN_PLACE, &all_ok, 1, MPI_INT, MPI_MIN, comm);
      if (!all_ok) ++failures;
      const double mine = median(means[k]);
      double sum = 0;
      Result& res = results[k];
      MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
      MPI_Reduce(&mine, &res.min, 1, MPI_DOUBLE, MPI_MIN, 0, comm);
      MPI_Reduce(&mine, &res.max, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
      res.avg = sum / size;
      res.ok = all_ok != 0;
      const char* checked = check ? "yes" : "no";
      const char* verdict = res.ok ? "ok" : "FAILED";
      if (csv)
        std::fprintf(csv, "%d,%lld,%s,%s,%s,%.3f,%.3f,%.3f,%d,%d,%s,%s,%s\n", size, bytes, dt.name,
                     opt.algorithms[k].c_str(), ran[k].c_str(), res.avg, res.min, res.max, iters, opt.reps, checked,
                     verdict, predicted[k] < 0 ? "" : std::to_string(predicted[k]).c_str());
      if (json) {
        std::fprintf(json,
                     "%s\n    {\"bytes\": %lld, \"algorithm\": \"%s\", \"ran\": \"%s\", \"avg_us\": %.3f, "
                     "\"min_us\": %.3f, \"max_us\": %.3f, \"iters\": %d, \"checked\": %s, \"ok\": %s, "
                     "\"predicted_us\": %s}",
                     first_json ? "" : ",", bytes, opt.algorithms[k].c_str(), ran[k].c_str(), res.avg, res.min,
                     res.max, iters, check ? "true" : "false", res.ok ? "true" : "false",
                     predicted[k] < 0 ? "null" : std::to_string(predicted[k]).c_str());
        first_json = false;
      }
      if (rank == 0 && !res.ok)
        std::fprintf(stderr, "tg-bench: %s FAILED at %lld bytes\n", opt.algorithms[k].c_str(), bytes);
    }
    if (csv) std::fflush(csv);  // rows survive a simulation that is killed later
    if (rank == 0) {
      std::printf("%-12lld", bytes);
      for (const auto& r : results) std::printf(" %14.2f", r.avg);
      if (opt.vendor)
        for (std::size_t k = 1; k < n; ++k)
          std::printf(" %14.2f", results[k].avg > 0 ? results[0].avg / results[k].avg : 0.0);
      std::printf("\n");
      std::fflush(stdout);
    }
    for (TG_Request& r : requests)
      if (r != TG_REQUEST_NULL) TG_Request_free(&r);
    release(recv, shared);
    release(send, shared);
  }
  if (csv) std::fclose(csv);
  if (json) {
    std::fprintf(json, "\n  ]\n}\n");
    std::fclose(json);
  }
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
