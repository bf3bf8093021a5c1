# SPDX-License-Identifier: BSD-3-Clause
"""Checks a tg-gbench JSON report (--benchmark_out): one benchmark per
algorithm x size, none failed, manual time, counters consistent.

  check_gbench.py FILE RANKS ALGORITHMS SIZES [NAME=MICROSECONDS ...]

ALGORITHMS and SIZES are comma-separated; NAME=US pins a simulated time
(SimGrid times are deterministic) to [US, 1.01 US], e.g. rounds x latency:
allgather/dim-rings/8=4 (the 1 % covers the bytes and SMPI's overheads).
"""
import json
import sys

path, ranks, algorithms, sizes = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(","), sys.argv[4].split(",")
pins = dict(arg.split("=") for arg in sys.argv[5:])
report = json.load(open(path))
runs = {b["run_name"]: b for b in report["benchmarks"]}
problems = []
for a in algorithms:
    for s in sizes:
        name = f"allgather/{a}/{s}"
        match = [b for n, b in runs.items() if n.startswith(name + "/")]
        if len(match) != 1:
            problems.append(f"{name}: {len(match)} results")
            continue
        b = match[0]
        if b.get("error_occurred"):
            problems.append(f"{name}: {b.get('error_message')}")
            continue
        t = b["real_time"]  # manual time, in b["time_unit"]
        us = t * {"ns": 1e-3, "us": 1, "ms": 1e3, "s": 1e6}[b["time_unit"]]
        algbw = int(s) * ranks / (us * 1e-6) / 1e9
        if b.get("ranks") != ranks or abs(b["algbw_GBps"] - algbw) > 1e-6 * algbw:
            problems.append(f"{name}: ranks {b.get('ranks')} algbw {b['algbw_GBps']} (expected {algbw})")
        if abs(b["busbw_GBps"] - b["algbw_GBps"] * (ranks - 1) / ranks) > 1e-6 * algbw:
            problems.append(f"{name}: busbw {b['busbw_GBps']}")
        if name in pins and not float(pins[name]) <= us <= 1.01 * float(pins[name]):
            problems.append(f"{name}: {us:.3f} us, expected {pins[name]} to 1 % more")
        if a == "auto" and not b.get("label", "").startswith("runs "):
            problems.append(f"{name}: no label saying what auto ran")
print("\n".join(problems) if problems else f"ok: {len(algorithms) * len(sizes)} benchmarks")
sys.exit(1 if problems else 0)
