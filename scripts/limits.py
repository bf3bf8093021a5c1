#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""What keeps auto below 90 % of the bound on a preset: each case reruns
the algorithm auto ran there (docs/performance.md) with one of the
preset's figures changed; the time it saves is that figure's share.
Writes docs/data/limits.csv, which scripts/performance_report.py renders.

  ./scripts/limits.py [--jobs N] [--build DIR]

Simulated like scripts/lab.py (SimGrid SMPI, one call, the last rank's
completion); the cases are listed in CASES.
"""

import argparse
import concurrent.futures
import csv
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "docs", "data", "limits.csv")

# preset, node torus, ranks per node, algorithm, block bytes, the change, its smpi-torus.sh options.
# "1ns" stands for no per-message overhead (smpi-torus.sh takes no zero).
NODE_MEMORY = ("node memory 1000 GB/s", ["--node-bw", "1000GBps"])
NO_OVERHEAD = ("overhead 1 ns", ["--overhead", "1ns"])
BOTH = ("node memory 1000 GB/s, overhead 1 ns", ["--node-bw", "1000GBps", "--overhead", "1ns"])
CASES = [
    ("tofud", "2x2x4x2x3x2", 4, "node-dim-rings", 65536, NODE_MEMORY),
    ("tofud", "2x2x4x2x3x2", 4, "node-dim-rings", 65536, BOTH),
    ("tofud-mesh", "2x2x4mx2x3x2", 4, "node-dim-rings", 65536, NODE_MEMORY),
    ("tpu-v4", "8x8x8", 1, "dim-rings", 65536, NO_OVERHEAD),
    ("tpu-v4", "4x4x8", 4, "node-dim-rings", 65536, NO_OVERHEAD),
    ("tpu-v4-mesh", "2x4mx4m", 1, "dim-rings", 65536, NO_OVERHEAD),
    ("tpu-v4-mesh", "2x4mx4m", 1, "dim-rings", 1048576, NO_OVERHEAD),
    ("tpu-v4-mesh", "2x4mx4m", 4, "node-dim-rings", 65536, NO_OVERHEAD),
    # From 1 KiB to 2 KiB (the target there is 50 %).
    ("bgq", "4x4x4x4x2", 1, "dim-rings", 1024, NO_OVERHEAD),
    ("tofud", "2x2x4x2x3x2", 4, "node-dim-rings", 1024, NO_OVERHEAD),
    ("tofud-mesh", "4mx4mx2x2x3x2", 1, "dim-rings", 1024, NO_OVERHEAD),
    ("gemini", "4x4x8", 4, "node-dim-rings", 1024, NO_OVERHEAD),
    ("tpu-v4", "8x8x8", 1, "dim-rings", 2048, NO_OVERHEAD),
]
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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="simulations run at once")
    ap.add_argument("--build", default=os.environ.get("TORUSGATHER_BUILD_DIR", os.path.join(ROOT, "build")))
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        rows = list(pool.map(lambda c: run(c, build), CASES))
    with open(OUT, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)
    print(f"limits: wrote {os.path.relpath(OUT, ROOT)} ({len(rows)} cases)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
