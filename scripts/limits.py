#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Reruns the algorithm auto ran on a preset (docs/performance.md) with one
of the preset's figures changed (or two). Two sets of cases:
  limits       what keeps auto below 90 % of the bound: the time a change
               saves is that figure's share (CASES, docs/data/limits.csv);
  assumptions  what a result rests on: the same run with a modelling
               assumption replaced (ASSUMPTIONS, docs/data/assumptions.csv).
scripts/performance_report.py renders both.

  ./scripts/limits.py [--set limits|assumptions] [--preset NAME] [--jobs N] [--build DIR]

--preset reruns that preset's cases only and keeps the other rows of the file.

Simulated like scripts/lab.py (SimGrid SMPI, one call, the last rank's
completion).
"""

import argparse
import concurrent.futures
import csv
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# preset, node torus, ranks per node, algorithm, block bytes, the change, its smpi-torus.sh options.
# "1ns" stands for no per-message overhead or hop latency (smpi-torus.sh takes no zero).
NODE_MEMORY = ("node memory 1000 GB/s", ["--node-bw", "1000GBps"])
NO_OVERHEAD = ("overhead 1 ns", ["--overhead", "1ns"])
NO_OVERHEAD_OR_HOP = ("overhead and hop latency 1 ns", ["--overhead", "1ns", "--lat", "1ns"])
CASES = [
    ("tofud-mesh", "2x2x4mx2x3x2", 4, "node-dim-rings", 65536, NODE_MEMORY),
    ("tpu-v4", "8x8x8", 1, "dim-rings", 65536, NO_OVERHEAD),
    ("tpu-v4", "4x4x8", 4, "node-dim-rings", 65536, NO_OVERHEAD),
    ("tpu-v4-mesh", "2x4mx4m", 1, "dim-rings", 65536, NO_OVERHEAD),
    ("tpu-v4-mesh", "2x4mx4m", 1, "dim-rings", 65536, NO_OVERHEAD_OR_HOP),
    ("tpu-v4-mesh", "2x4mx4m", 1, "dim-rings", 1048576, NO_OVERHEAD),
    ("tpu-v4-mesh", "2x4mx4m", 4, "node-dim-rings", 65536, NO_OVERHEAD),
    ("tpu-v4-mesh", "2x4mx4m", 4, "node-dim-rings", 65536, NO_OVERHEAD_OR_HOP),
    # From 1 KiB to 2 KiB (the target there is 50 %).
    ("bgq", "4x4x4x4x2", 1, "dim-rings", 1024, NO_OVERHEAD),
    ("tofud", "2x2x4x2x3x2", 4, "node-dim-rings", 1024, NO_OVERHEAD),
    ("tofud-mesh", "4mx4mx2x2x3x2", 1, "dim-rings", 1024, NO_OVERHEAD),
    ("gemini", "4x4x8", 4, "node-dim-rings", 1024, NO_OVERHEAD),
    ("tpu-v4", "8x8x8", 1, "dim-rings", 2048, NO_OVERHEAD),
]
# SimGrid's cluster gives every copy within a node the node memory figure,
# however many run at once; shared, the node's copies split it.
SHARED_MEMORY = ("node memory shared by the node's copies", ["--node-sharing", "SHARED"])
ASSUMPTIONS = [(preset, dims, 4, algorithm, size, SHARED_MEMORY)
               for preset, dims in (("bgq", "4x4x2x2x2"), ("tofud", "2x2x4x2x3x2"), ("tofud-mesh", "2x2x4mx2x3x2"),
                                    ("gemini", "4x4x8"))
               for algorithm in ("node-dim-rings", "dim-rings") for size in (65536, 1048576)]
SETS = {"limits": (CASES, "limits.csv"), "assumptions": (ASSUMPTIONS, "assumptions.csv")}
FIELDS = ["preset", "dims", "ranks_per_node", "algorithm", "bytes", "change", "options", "time_us", "predicted_us"]


def run(case, build):
    preset, dims, k, algorithm, size, (change, options) = case
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, "raw.csv")
        cmd = [os.path.join(ROOT, "scripts", "smpi-torus.sh"), "--preset", preset, "--dims", dims,
               "--ranks-per-node", str(k)] + options + [
               "--allgather", "ompi", "--", os.path.join(build, "bin", "tg-bench-smpi"), "--sizes", str(size),
               "--iters", "1", "--warmup", "0", "--reps", "1", "--check-max", "0", "--no-vendor", "--predict",
               "--csv", raw, "--algorithms", algorithm]
        p = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True)
        if p.returncode != 0 or not os.path.exists(raw):
            raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
        with open(raw) as f:
            row = list(csv.DictReader(f))[-1]
    if row["ok"] != "ok":
        raise RuntimeError(f"{preset} {dims}: {algorithm} gave {row['ok']}")
    print(f"limits: {preset} {dims} x {k} {algorithm} {size} B, {change}: {row['max_us']} us", flush=True)
    return dict(preset=preset, dims=dims, ranks_per_node=k, algorithm=algorithm, bytes=size, change=change,
                options=" ".join(options), time_us=row["max_us"], predicted_us=row["predicted_us"])


def key(case):
    preset, dims, k, algorithm, size, (change, _) = case
    return (preset, dims, str(k), algorithm, str(size), change)


def key_of_row(row):
    return (row["preset"], row["dims"], str(row["ranks_per_node"]), row["algorithm"], str(row["bytes"]), row["change"])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", choices=sorted(SETS), default="limits", help="which cases (default: limits)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="simulations run at once")
    ap.add_argument("--build", default=os.environ.get("TORUSGATHER_BUILD_DIR", os.path.join(ROOT, "build")))
    ap.add_argument("--preset", help="rerun this preset's cases only, keep the others' rows")
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    cases, name = SETS[args.set]
    out = os.path.join(ROOT, "docs", "data", name)
    chosen = [c for c in cases if args.preset in (None, c[0])]
    if not chosen:
        ap.error(f"no case of preset {args.preset!r} in the {args.set} set")
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        fresh = dict(zip([key(c) for c in chosen], pool.map(lambda c: run(c, build), chosen)))
    kept = {}
    if args.preset and os.path.exists(out):
        with open(out) as f:
            kept = {key_of_row(r): r for r in csv.DictReader(f)}
    # In the order of the cases; a case without a row yet is an error.
    rows = []
    for c in cases:
        k = key(c)
        if k not in fresh and k not in kept:
            sys.exit(f"limits: {out} has no row for {k}; rerun without --preset")
        rows.append(fresh.get(k) or kept[k])
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)
    print(f"limits: wrote {os.path.relpath(out, ROOT)} ({len(rows)} cases)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
