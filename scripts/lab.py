#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The benchmark lab: torusgather against SimGrid SMPI's allgathers
on simulated tori, and against the vendor on this machine, with the physical
bound; appends to build/lab/results.csv and writes the full report of that
history to build/lab/report/performance.md. --publish adds the rows of the
preset platforms to docs/data/lab-DATE.csv and regenerates docs/performance.md
from docs/data/ (scripts/performance_report.py).

Run through scripts/lab.sh, which installs what is missing and builds first.

  lab.sh                      the default scenarios (8x8, 4x4x4, 8x8x8, 7x7x7, 16x16)
  lab.sh --quick              4x4x4, sizes 8, 1K, 64K, 1M
  lab.sh --dims 6x6x6 --sizes 8,65536 --algorithms hamiltonian,smpi-ompi
  lab.sh --report-only        regenerate build/lab/report/performance.md from results.csv
  lab.sh --preset bgq --publish   and commit the rows: docs/data/, docs/performance.md

Every simulated run goes through scripts/smpi-torus.sh (platform generator,
rank mapping) and tg-bench-smpi (each rank starts at the same simulated
instant; time = the latest rank's completion; results checked byte for byte
up to P^2*s = 1 GiB, larger sizes in SMPI_SHARED_MALLOC buffers).
"""

import argparse
import concurrent.futures
import csv
import datetime
import json
import math
import os
import platform as pyplatform
import re
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_DIMS = ["8x8", "4x4x4", "8x8x8", "7x7x7", "16x16"]
# 8 B to 4 MiB in steps of 4 (8 B ... 2 MiB) plus 4 MiB: eleven sizes keep
# the default set inside its time budget on two cores.
DEFAULT_SIZES = [8 * 4**i for i in range(10)] + [4 << 20]
QUICK_DIMS = ["4x4x4"]
QUICK_SIZES = [8, 1024, 65536, 1 << 20]
SMPI_ALGORITHMS = ["ompi", "mpich", "ring", "rdb", "bruck", "pair", "2dmesh", "3dmesh"]
HEADER = ["platform", "ranks", "algorithm", "bytes", "time_us", "bound_us", "checked", "ok", "predicted_us", "ran"]
CHECK_LIMIT = 1 << 30  # check results while P^2 * s (all private receive buffers) stays below this
BRUCK_LIMIT = 8 << 30  # SMPI's bruck keeps a P*s buffer per rank: skip sizes with P^2*s above this
# SMPI's allgathers (SimGrid 3.32) crash where the receive buffer P*s passes 2 GiB: every one
# ran at 512 x 4 MiB and failed (segmentation fault or abort) at 768 x 4 MiB.
SMPI_RECV_LIMIT = 2 << 30


def parse_bandwidth(text):
    """SimGrid bandwidth ("10GBps", "100Gbps", "1.5GiBps") in bytes per second."""
    m = re.fullmatch(r"([0-9.]+)\s*([kKMGT]?)(i?)(B|b)ps", text)
    if not m:
        raise ValueError(f"bandwidth '{text}' (expected e.g. 10GBps or 100Gbps)")
    value, prefix, binary, unit = float(m.group(1)), m.group(2).upper(), m.group(3), m.group(4)
    scale = (1024 if binary else 1000) ** " KMGT".index(prefix or " ")
    return value * scale / (8 if unit == "b" else 1)


def parse_latency(text):
    m = re.fullmatch(r"([0-9.]+)\s*(s|ms|us|ns)", text)
    if not m:
        raise ValueError(f"latency '{text}' (expected e.g. 1us)")
    return float(m.group(1)) * {"s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}[m.group(2)]


def dims_of(name):
    return [int(n.rstrip("m")) for n in name.split("x")]


def open_of(name):
    """Which axes are open ('8m': a mesh axis, no wraparound link)."""
    return [n.endswith("m") for n in name.split("x")]


def bound_us(dims, size, bw, lat, overhead=0.0, per_node=1, limiter=0.0, pair_links=1, open_axes=None):
    """max(network, latency): every node must take in the (P-k)s bytes of the
    other nodes' k ranks each (once, then shared in memory) over its 2d
    links (pair_links per side of 2). With an injection limit L on all a node sends
    and receives together: the nodes send in all what they receive in all,
    at least N(P-k)s, so some node moves at least 2(P-k)s through its
    limit. The block of the farthest node crosses at
    least the diameter D = sum(floor(n_i/2)) links (SimGrid adds the latency
    of every link of a route) in at least one message (a send and a receive
    overhead). One rank per node and no limit: (P-1)s/(2dB). An open axis
    (open_axes[i]) gives its end nodes one link and a diameter of n - 1:
    the bound is the corner node's."""
    nodes = math.prod(dims)
    p = nodes * per_node
    open_axes = open_axes or [False] * len(dims)
    diameter = sum(n - 1 if o else n // 2 for n, o in zip(dims, open_axes))
    # A side of 2 has one link (both ports lead to the same neighbour, and
    # SimGrid routes every message to it one way) unless the machine has two.
    links = sum(1 if o else 2 if n > 2 else pair_links for n, o in zip(dims, open_axes) if n > 1)
    network = (p - per_node) * size / (links * bw) if nodes > 1 else 0.0
    if limiter:
        network = max(network, 2 * (p - per_node) * size / limiter)
    return max(network, diameter * lat + 2 * overhead) * 1e6


def platform_name(dims_text, args):
    if args.preset:  # the preset's own figures; only what differs from them is named
        extra = [args.preset]
        if args.per_node != 1:
            extra.append(f"{args.per_node}pernode")
        if args.vendor != "ompi":
            extra.append("vendor" + args.vendor)
        return "-".join([dims_text] + extra)
    extra = []
    if args.bw != "10GBps":
        extra.append("bw" + args.bw)
    if args.lat != "1us":
        extra.append("lat" + args.lat)
    if args.sharing != "SPLITDUPLEX":
        extra.append(args.sharing.lower())
    if args.limiter:
        extra.append("limiter" + args.limiter)
    if args.overhead:
        extra.append("overhead" + args.overhead)
    if args.vendor != "ompi":
        extra.append("vendor" + args.vendor)
    return "-".join([dims_text] + extra)


def mesh_factors(p, power):
    """Whether SMPI's 2dmesh (power 1) or 3dmesh (power 2) lays P ranks out:
    some x from P's square (cube) root up to P/2 with x**power dividing P."""
    x = max(1, int(round(p ** (1.0 / (power + 1)))))
    while x ** (power + 1) > p:
        x -= 1
    return any(p % (y ** power) == 0 for y in range(max(2, x), p // 2 + 1))


def smpi_algorithms_for(dims):
    """SMPI's allgathers that apply: pair aborts unless P is a power of two;
    2dmesh and 3dmesh (the torus-shaped ones) lay the ranks out themselves."""
    p = math.prod(dims)
    applies = {"pair": p & (p - 1) == 0, "2dmesh": mesh_factors(p, 1), "3dmesh": mesh_factors(p, 2)}
    return [a for a in SMPI_ALGORITHMS if applies.get(a, True)]


def make_jobs(args):
    """One job per (platform, SMPI algorithm) and one per platform for torusgather."""
    jobs = []
    requested = args.algorithms.split(",") if args.algorithms else ["all"]
    for dims_text in args.dims:
        dims = dims_of(dims_text)
        p = math.prod(dims) * args.per_node
        name = platform_name(dims_text, args)
        tg = [a for a in requested if not a.startswith("smpi-") and a != "all"]
        smpi = [a[len("smpi-"):] for a in requested if a.startswith("smpi-")]
        if "all" in requested:
            tg = ["all"] + tg
            smpi = smpi_algorithms_for(dims if args.per_node == 1 else dims + [args.per_node]) + smpi
        if "torusgather" in requested:  # every torusgather algorithm that applies, no SMPI
            tg = ["all"] + [a for a in tg if a != "torusgather"]
        smpi = list(dict.fromkeys(smpi))
        if tg:
            jobs.append(dict(platform=name, dims=dims_text, ranks=p, kind="torusgather",
                             algorithms=",".join(dict.fromkeys(tg)), sizes=list(args.sizes), skipped=[]))
        for alg in smpi:
            fits = lambda s: p * s <= SMPI_RECV_LIMIT and (alg != "bruck" or p * p * s <= BRUCK_LIMIT)  # noqa: E731
            sizes = [s for s in args.sizes if fits(s)]
            skipped = [s for s in args.sizes if not fits(s)]
            jobs.append(dict(platform=name, dims=dims_text, ranks=p, kind="smpi-" + alg, allgather=alg,
                             sizes=sizes, skipped=skipped))
    # Largest first, so that the two workers finish together.
    jobs.sort(key=lambda j: -j["ranks"] * j["ranks"] * (3 if j["kind"] == "torusgather" else 1))
    return jobs


def run_job(job, args, out):
    tag = f"{job['platform']}.{job['kind']}"
    raw = os.path.join(out, "raw", tag + ".csv")
    log = os.path.join(out, "logs", tag + ".log")
    if os.path.exists(raw):
        os.remove(raw)
    if not job["sizes"]:
        return dict(job, status="not run (no size fits)", seconds=0.0, command="", raw=raw)
    check_max = max(1, CHECK_LIMIT // (job["ranks"] ** 2))
    cmd = [os.path.join(ROOT, "scripts", "smpi-torus.sh"), "--dims", job["dims"], "--bw", args.bw,
           "--lat", args.lat, "--sharing", args.sharing, "--ranks-per-node", str(args.per_node),
           "--node-bw", args.node_bw, "--node-lat", args.node_lat]
    if args.limiter:
        cmd += ["--limiter", args.limiter]
    if args.pair_links != 1:
        cmd += ["--pair-links", str(args.pair_links)]
    if args.overhead:
        # SMPI's per-message software costs: a sender and a receiver each
        # spend the overhead on every message (smpi/os, smpi/ois, smpi/or;
        # with synchronous sends the sender pays both).
        cmd += ["--overhead", args.overhead]
    cmd += ["--sends", args.sends]
    for kv in args.cfg:
        cmd += ["--cfg", kv]
    if job["kind"] == "torusgather":
        # SMPI's allgather here is the vendor's that auto may delegate to.
        cmd += ["--allgather", args.vendor]
        bench = ["--algorithms", job["algorithms"], "--no-vendor"]
    else:
        cmd += ["--allgather", job["allgather"]]
        bench = ["--algorithms", "vendor"]
    cmd += ["--", os.path.join(args.build, "bin", "tg-bench-smpi"), "--sizes", ",".join(map(str, job["sizes"])),
            "--iters", "1", "--warmup", "0", "--reps", "1", "--check-max", str(check_max), "--predict",
            "--csv", raw] + bench
    start = time.monotonic()
    with open(log, "w") as f:
        f.write(" ".join(cmd) + "\n")
        f.flush()
        # Its own process group: a timeout stops the simulation too, not only
        # smpi-torus.sh.
        proc = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=os.path.join(out, "logs"),
                                start_new_session=True)
        try:
            code = proc.wait(timeout=args.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            code = "timeout"
    seconds = time.monotonic() - start
    status = "ok" if code == 0 else f"failed ({code}; see {os.path.relpath(log, ROOT)})"
    shown = " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in cmd)
    return dict(job, status=status, seconds=seconds, command=shown, raw=raw)


def collect(result, args):
    """Rows for results.csv from one job's tg-bench CSV (whatever sizes it finished)."""
    rows = []
    if not os.path.exists(result["raw"]):
        return rows
    bw, lat = parse_bandwidth(args.bw), parse_latency(args.lat)
    overhead = parse_latency(args.overhead) if args.overhead else 0.0
    dims = dims_of(result["dims"])
    with open(result["raw"]) as f:
        for r in csv.DictReader(f):
            name = r["algorithm"] if result["kind"] == "torusgather" else result["kind"]
            size = int(r["bytes"])
            rows.append(dict(platform=result["platform"], ranks=int(r["ranks"]), algorithm=name, bytes=size,
                             time_us=float(r["max_us"]),
                             bound_us=round(bound_us(dims, size, bw, lat, overhead, args.per_node,
                                                     parse_bandwidth(args.limiter) if args.limiter else 0.0,
                                                     args.pair_links, open_of(result["dims"])), 3),
                             checked=r["checked"], ok=r["ok"], predicted_us=r.get("predicted_us") or "",
                             ran=r["ran"] if result["kind"] == "torusgather" else ""))
    return rows


def append_results(path, rows):
    if os.path.exists(path):
        with open(path) as f:
            header = next(csv.reader(f), [])
        if header != HEADER:  # an older results.csv: rewrite it with today's columns
            with open(path) as f:
                old = list(csv.DictReader(f))
            with open(path, "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=HEADER, restval="", extrasaction="ignore")
                w.writeheader()
                w.writerows(old)
    new = not os.path.exists(path)
    with open(path, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=HEADER, restval="")
        if new:
            w.writeheader()
        for r in rows:
            w.writerow(r)


def mpirun_command(np):
    cmd = ["mpirun", "-np", str(np)]
    version = subprocess.run(["mpirun", "--version"], capture_output=True, text=True).stdout
    if "Open MPI" in version:
        cmd += ["--oversubscribe", "--mca", "mpi_yield_when_idle", "1"]
        if os.geteuid() == 0:
            cmd += ["--allow-run-as-root"]
    return cmd


def run_real(args, out):
    """tg-bench under this machine's MPI (wall clock), after the simulations
    so that nothing else runs on the cores."""
    results = []
    for np in args.real_np:
        csv_path = os.path.join(out, f"real-np{np}.csv")
        bench = [os.path.join(args.build, "bin", "tg-bench"), "--algorithms", "all", "--csv", csv_path,
                 "--iters", str(args.real_iters)]
        if args.quick:
            bench += ["--sizes", ",".join(map(str, QUICK_SIZES)), "--reps", "3"]
        cmd = mpirun_command(np) + bench
        print("lab: real MPI:", " ".join(cmd), flush=True)
        start = time.monotonic()
        code = subprocess.run(cmd).returncode
        results.append(dict(np=np, command=" ".join(cmd), status="ok" if code == 0 else f"failed ({code})",
                            seconds=time.monotonic() - start, csv=csv_path))
    return results


def versions():
    def first_line(cmd):
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
            text = (out.stdout or out.stderr).strip().splitlines()
            return text[0] if text else "?"
        except (OSError, subprocess.TimeoutExpired):
            return "?"

    def package(name):
        out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", name], capture_output=True, text=True)
        return out.stdout.strip() or "?"

    git = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"], capture_output=True, text=True)
    return {
        "torusgather": git.stdout.strip() or "?",
        "SimGrid (libsimgrid-dev)": package("libsimgrid-dev"),
        "Open MPI (libopenmpi-dev)": package("libopenmpi-dev"),
        "compiler": first_line(["g++", "--version"]),
        "Python / matplotlib": f"{pyplatform.python_version()} / {package('python3-matplotlib')}",
        "machine": f"{os.cpu_count()} cores, {round(os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30)} GiB, "
                   f"{pyplatform.system()} {pyplatform.release()}",
    }


def publish(results_csv, only=None):
    """Adds the latest row of every preset platform's (algorithm, size) in
    results_csv, or of those in `only` (this run's), to
    docs/data/lab-TODAY.csv, then regenerates docs/performance.md from
    docs/data/."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import lab_report
    rows = [r for key, r in lab_report.load_results(results_csv).items()
            if lab_report.preset_of(r["platform"]) and (only is None or key in only)]
    path = os.path.join(ROOT, "docs", "data", f"lab-{datetime.date.today().isoformat()}.csv")
    kept = lab_report.load_results(path)
    for r in rows:
        kept[(r["platform"], r["algorithm"], int(r["bytes"]))] = r
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fields = ["platform", "ranks", "algorithm", "bytes", "time_us", "bound_us", "checked", "ok", "predicted_us", "ran"]
    with open(path, "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        wr.writeheader()
        wr.writerows(kept.values())
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "performance_report.py")], check=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="4x4x4 at 8 B, 1 KiB, 64 KiB, 1 MiB (under 5 minutes)")
    ap.add_argument("--dims", help="comma-separated torus shapes, e.g. 6x6x6,8x8")
    ap.add_argument("--sizes", help="comma-separated block sizes in bytes (k/M suffixes)")
    ap.add_argument("--algorithms", help="comma-separated: torusgather names, auto, smpi-NAME, all (default), "
                         "torusgather (all of torusgather's that apply, no SMPI)")
    ap.add_argument("--bw", default="", help="link bandwidth per direction (default 10GBps)")
    ap.add_argument("--lat", default="", help="link latency (default 1us)")
    ap.add_argument("--sharing", default="SPLITDUPLEX", choices=["SPLITDUPLEX", "SHARED", "FATPIPE"])
    ap.add_argument("--limiter", default="", help="per-node limiter bandwidth (one-port nodes: = --bw)")
    ap.add_argument("--overhead", default="", help="per-message software cost at sender and receiver "
                    "(SMPI's smpi/os, smpi/ois and smpi/or), e.g. 1us: the start-up alpha of the papers")
    ap.add_argument("--preset", default="",
                    help="a machine's published figures (bgq, tofud, gemini, tpu-v4, ideal; docs/machines.md): "
                         "dims, link bandwidth and latency, per-message overhead, injection limit, ranks per "
                         "node and shared memory; options given explicitly win")
    ap.add_argument("--ranks-per-node", dest="per_node", type=int, default=0,
                    help="ranks on each torus node, sharing its links (default 1, or the preset's)")
    ap.add_argument("--node-bw", default="", help="shared-memory bandwidth within a node (default 1000GBps)")
    ap.add_argument("--node-lat", default="", help="shared-memory latency within a node (default 0us)")
    ap.add_argument("--pair-links", type=int, default=0,
                    help="links between the two nodes of a side of 2: 1 (default) or 2 (the preset's)")
    ap.add_argument("--vendor", default="ompi",
                    help="SMPI's allgather in torusgather's simulations: what auto models and delegates to "
                         "(default ompi, Open MPI's selection)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="simulations run at once")
    ap.add_argument("--timeout", type=int, default=3600, help="seconds per simulation")
    ap.add_argument("--sends", default="auto", choices=["auto", "eager", "synchronous"],
                    help="SMPI's send protocol (scripts/smpi-torus.sh --sends; auto: synchronous above 1024 ranks)")
    ap.add_argument("--cfg", action="append", default=[], metavar="KEY:VALUE",
                    help="a SimGrid option for every simulation (smpi-torus.sh --cfg; repeatable), e.g. "
                         "maxmin/precision:1e-3 where SimGrid 3.32's max-min solver fails on rounding")
    ap.add_argument("--real-np", default="4", help="rank counts for the real-MPI table ('' for none)")
    ap.add_argument("--real-iters", type=int, default=200,
                    help="timed calls per repetition in the real-MPI table (a fifth above 64 KiB; default 200)")
    ap.add_argument("--real-only", action="store_true", help="no simulations: only the real-MPI table")
    ap.add_argument("--build", default=os.environ.get("TORUSGATHER_BUILD_DIR", os.path.join(ROOT, "build")))
    ap.add_argument("--out", default="", help="where results.csv, raw/ and logs/ go (default BUILD/lab)")
    ap.add_argument("--report-only", action="store_true", help="only regenerate the report")
    ap.add_argument("--no-report", action="store_true", help="write no report")
    ap.add_argument("--publish", action="store_true",
                    help="add this run's rows of preset platforms (with --report-only: the latest of "
                         "every row in results.csv) to docs/data/lab-DATE.csv and regenerate "
                         "docs/performance.md from docs/data/")
    args = ap.parse_args()
    args.build = os.path.abspath(args.build)
    if args.preset:
        p = subprocess.run([os.path.join(ROOT, "scripts", "smpi-torus.sh"), "--print-preset", args.preset],
                           capture_output=True, text=True)
        if p.returncode != 0:
            ap.error(p.stderr.strip())
        values = dict(line.split("=", 1) for line in p.stdout.splitlines())
        args.dims = args.dims or values["dims"]
        args.bw = args.bw or values["bw"]
        args.lat = args.lat or values["lat"]
        args.overhead = args.overhead or values["overhead"]
        args.limiter = args.limiter or values["limiter"]
        args.per_node = args.per_node or int(values["ranks_per_node"])
        args.node_bw = args.node_bw or values["node_bw"]
        args.node_lat = args.node_lat or values["node_lat"]
        args.pair_links = args.pair_links or int(values["pair_links"])
    args.bw = args.bw or "10GBps"
    args.lat = args.lat or "1us"
    args.per_node = args.per_node or 1
    args.node_bw = args.node_bw or "1000GBps"
    args.node_lat = args.node_lat or "0us"
    args.pair_links = args.pair_links or 1
    if args.pair_links not in (1, 2):
        ap.error("--pair-links must be 1 or 2")
    if args.per_node < 1:
        ap.error("--ranks-per-node must be at least 1")
    try:
        parse_bandwidth(args.bw)
        parse_latency(args.lat)
        if args.overhead:
            parse_latency(args.overhead)
        if args.limiter:
            parse_bandwidth(args.limiter)
    except ValueError as e:
        ap.error(str(e))
    args.dims = args.dims.split(",") if args.dims else (QUICK_DIMS if args.quick else DEFAULT_DIMS)
    for d in args.dims:
        if not re.fullmatch(r"[0-9]+m?(x[0-9]+m?)*", d) or min(dims_of(d)) < 2:
            ap.error(f"malformed --dims '{d}' (expected e.g. 8x8, 4x4x4 or 8mx8mx4 where m marks an open axis, "
                     "sides >= 2)")

    def size(text):
        m = re.fullmatch(r"([0-9]+)([kKmM]?)", text.strip())
        if not m:
            ap.error(f"malformed size '{text}'")
        return int(m.group(1)) << {"": 0, "k": 10, "K": 10, "m": 20, "M": 20}[m.group(2)]

    args.sizes = [size(s) for s in args.sizes.split(",")] if args.sizes else (
        QUICK_SIZES if args.quick else DEFAULT_SIZES)
    args.real_np = [int(n) for n in args.real_np.split(",") if n]
    out = args.out or os.path.join(args.build, "lab")
    for sub in ("raw", "logs"):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
    results_csv = os.path.join(out, "results.csv")
    runs_json = os.path.join(out, "runs.json")

    if not args.report_only:
        if not os.path.exists(os.path.join(args.build, "bin", "tg-bench-smpi")):
            sys.exit("lab: tg-bench-smpi not built (SimGrid missing? run scripts/lab.sh)")
        jobs = [] if args.real_only else make_jobs(args)
        started = time.monotonic()
        print(f"lab: {len(jobs)} simulations on {', '.join(args.dims)}, sizes {args.sizes}, "
              f"{args.jobs} at a time", flush=True)
        done, this_run = [], set()
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            futures = [pool.submit(run_job, j, args, out) for j in jobs]
            for fut in concurrent.futures.as_completed(futures):
                r = fut.result()
                rows = collect(r, args)
                append_results(results_csv, rows)
                this_run.update((row["platform"], row["algorithm"], int(row["bytes"])) for row in rows)
                done.append(r)
                print(f"lab: {r['platform']:>10} {r['kind']:<16} {r['status']:<8} {len(rows):3d} rows "
                      f"{r['seconds']:7.1f} s", flush=True)
        simulated = time.monotonic() - started
        real = run_real(args, out)
        history = []
        if os.path.exists(runs_json):
            with open(runs_json) as f:
                history = json.load(f)
        history.append(dict(
            when=datetime.datetime.now().isoformat(timespec="seconds"), argv=sys.argv[1:],
            parameters=dict(bw=args.bw, lat=args.lat, sharing=args.sharing, limiter=args.limiter or None,
                            overhead=args.overhead or None),
            sizes=args.sizes, dims=args.dims, simulated_seconds=round(simulated, 1),
            total_seconds=round(time.monotonic() - started, 1), versions=versions(),
            jobs=[{k: v for k, v in r.items() if k not in ("raw",)} for r in done], real=real))
        with open(runs_json, "w") as f:
            json.dump(history, f, indent=1)
        failed = [r for r in done if r["status"] != "ok"] + [r for r in real if r["status"] != "ok"]
        print(f"lab: simulations took {simulated / 60:.1f} min, everything "
              f"{(time.monotonic() - started) / 60:.1f} min; results in {os.path.relpath(results_csv, ROOT)}")
        for r in failed:
            print(f"lab: FAILED: {r.get('platform', 'real')} {r.get('kind', r.get('np'))}: {r['status']}")
    if not args.no_report:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import lab_report
        lab_report.write(results_csv, runs_json, out, ROOT, os.path.join(out, "report"))
    if args.publish:
        # A run publishes its own rows; --report-only --publish the latest of every row.
        publish(results_csv, None if args.report_only else this_run)
    if not args.report_only and failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
