#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The scale report: what one rank spends before its first allgather, from
64 to about 10^6 ranks in 2D to 6D, measured with tg-plan on this
machine (real wall-clock, one process, no MPI):

- for each algorithm auto can choose on the shape, rank 0's plan as the
  library builds it at run time and walks it once (tg-plan --plan-only):
  build_seconds and plan_bytes (heap kept);
- auto's decision for 8 B, 1 KiB, 64 KiB and 1 MiB blocks with the cost
  model's default machine (tg-plan --select): decide_seconds and the choices.

A shape with a fourth field is run with that many ranks per node
(--node-size) on its last axis (0: one); a fifth field is further tg-plan
arguments and what they stand for (the machines' own shapes: Blue Gene/Q's
two links on a side of 2, --pair-links 2).

Writes docs/data/scale-table.md, the "Scale" section of docs/performance.md,
and regenerates that file (scripts/performance_report.py).

  scripts/scale.py [--build build] [--timeout 120] [--quick]
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

DECISION_RUNS = 3
# (ranks class, dimension, shape[, ranks per node on the last axis])
SHAPES = [
    (64, 2, "8x8"), (64, 3, "4x4x4"), (64, 4, "4x4x2x2"), (64, 6, "2x2x2x2x2x2"),
    (512, 2, "16x32"), (512, 3, "8x8x8"), (512, 5, "4x4x4x4x2"), (512, 6, "4x4x4x2x2x2"),
    (512, 3, "4x4x8x4", 4), (512, 5, "4x4x2x2x2x4", 4), (768, 6, "4x4x4x2x3x2"), (768, 6, "2x2x4x2x3x2x4", 4),
    (1024, 2, "32x32"), (1024, 2, "64x16"), (1024, 3, "8x8x16"),
    # Thin shapes: one long side, where the bridgehead family's a, b, k
    # search, cubgos' and partial-cycles' profiles grow with that side.
    (1024, 2, "2x512"), (1024, 2, "4x256"), (1024, 3, "2x2x256"),
    (4096, 2, "64x64"), (4096, 3, "16x16x16"), (4096, 5, "8x8x4x4x4"), (4096, 6, "4x4x4x4x4x4"),
    (32768, 2, "128x256"), (32768, 3, "32x32x32"), (32768, 5, "8x8x8x8x8"), (32768, 6, "8x8x8x4x4x4"),
    (262144, 2, "512x512"), (262144, 3, "64x64x64"), (262144, 5, "16x16x16x8x8"), (262144, 6, "8x8x8x8x8x8"),
    (10**6, 2, "1000x1000"), (10**6, 3, "99x99x99"), (10**6, 3, "100x100x100"), (10**6, 5, "16x16x16x16x16"),
    (10**6, 6, "10x10x10x10x10x10"),
    # Whole machines: Sequoia (Blue Gene/Q, 96 racks, 16x12x16x16x2 nodes,
    # two links on E), Fugaku (Tofu-D, 24x23x24x2x3x2 nodes; one rank and
    # four per node), and mixed sides at 10^6 (999x1001: coprime sides).
    (98304, 5, "16x12x16x16x2", 0, (["--pair-links", "2"], "two links on the side of 2")),
    (158976, 6, "24x23x24x2x3x2"), (635904, 6, "24x23x24x2x3x2x4", 4),
    (10**6, 3, "256x256x16"), (10**6, 3, "200x200x25"), (999999, 2, "999x1001"),
    # Long thin shapes at 10^6: dim-rings' rounds grow with the longest side.
    (10**6, 2, "100x10000"), (10**6, 2, "10x100000"), (10**6, 2, "2x500000"), (10**6, 3, "4x4x62500"),
]
QUICK = {"8x8x8", "16x16x16", "99x99x99"}
# Above 1024 ranks auto leaves these out (their cost profiles are stepped);
# they run when named, and their plans are measured too, marked "named".
NAMED = ["circulant", "chordal-ring", "three-phase", "cubgos", "lee-code", "lee-code-large", "partial-cycles",
         "partial-cycles-ti", "hamiltonian-partial"]
SIZES = "8,1k,64k,1m"


def run(cmd, timeout):
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, timeout, "timeout"
    wall = time.monotonic() - start
    if p.returncode != 0:
        try:  # a construction that declines the shape says so in its JSON
            declined = json.loads(p.stdout.strip().splitlines()[-1])
            if declined.get("applicable") is False:
                return declined, wall, ""
        except (ValueError, IndexError):
            pass
        return None, wall, (p.stderr.strip() or p.stdout.strip()).splitlines()[-1:] or ["failed"]
    return json.loads(p.stdout.strip().splitlines()[-1]), wall, ""


def candidates(tg_plan, dims, node, timeout):
    """The algorithms auto considers on this shape (the applicable rows of
    tg-plan --select's table, those left unprofiled at 8 B among them), and
    its choices and decision time."""
    # Each run is a fresh process, so each block size is decided as at its
    # first call; the least of DECISION_RUNS per size (other processes on
    # this machine only add to it).
    sel, err = None, ""
    for _ in range(DECISION_RUNS):
        one, _, err = run([tg_plan, "--dims", dims, "--select", "--sizes", SIZES, "--json"] + node, timeout)
        if not one:
            return None, err, []
        if sel:
            one["decide_seconds_per_size"] = [min(a, b) for a, b in zip(sel["decide_seconds_per_size"],
                                                                        one["decide_seconds_per_size"])]
        one["decide_seconds"] = sum(one["decide_seconds_per_size"])
        sel = one
    table = subprocess.run([tg_plan, "--dims", dims, "--select", "--sizes", "8"] + node, capture_output=True,
                           text=True, timeout=timeout).stdout
    names = []
    for line in table.splitlines():
        m = re.match(r"^\s*\*?\s*([a-z][a-z0-9-]*)(?: \([^)]*\))?\s+(?:>=\s+)?[0-9.,]+ us", line)
        if m and m.group(1) != "vendor":
            names.append(m.group(1))
    return sel, err, names


def ms(seconds):
    return f"{seconds * 1e3:.3g} ms" if seconds < 1 else f"{seconds:.3g} s"


def human_bytes(b):
    for unit, k in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if b >= k:
            return f"{b / k:.3g} {unit}"
    return f"{b} B"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--quick", action="store_true", help="three shapes only; writes nothing")
    args = ap.parse_args()
    tg_plan = os.path.join(args.build, "bin", "tg-plan")
    if not os.access(tg_plan, os.X_OK):
        sys.exit(f"scale: {tg_plan} not found: build first (./scripts/build.sh)")
    rows = []
    for ranks, d, dims, *more in SHAPES:
        if args.quick and dims not in QUICK:
            continue
        per_node = [more[0]] if more and more[0] else []
        extra_args, extra_what = more[1] if len(more) > 1 else ([], "")
        node = ["--node-size", str(per_node[0])] if per_node else []
        sel, err, names = candidates(tg_plan, dims, node + extra_args, args.timeout)
        p = 1
        for n in dims.split("x"):
            p *= int(n)
        builds = []
        extra = [n for n in NAMED if n not in names] if p > 1024 else []
        for name in names + extra:
            # tg-plan takes --node-size for the algorithms that use it.
            uses = name == "three-phase" or name.startswith("node-")
            res, wall, why = run([tg_plan, "--dims", dims, "--algorithm", name, "--plan-only", "--json"] +
                                 (node if uses else []) + extra_args, args.timeout)
            label = f"{name} (named)" if name in extra else name
            if res and res.get("applicable", True):
                builds.append(f"{label} {ms(res['build_seconds'])} / {ms(res['walk_seconds'])} / "
                              f"{human_bytes(res['plan_bytes'])}")
            elif res and name not in extra:
                builds.append(f"{label} does not apply")
            elif why == "timeout":
                builds.append(f"{label} > {args.timeout:.0f} s")
            elif name not in extra:
                builds.append(f"{label} failed")
        if sel:
            choice = ", ".join(f"{k}: {v}" for k, v in sel["choices"].items())
            decide = (f"{max(sel['decide_seconds_per_size']) * 1e3:.3g} ms "
                      f"({sel['decide_seconds'] * 1e3:.3g} ms for all four)")
        else:
            choice, decide = err, "–"
        shape = f"{dims}, {per_node[0]} per node" if per_node else dims
        if extra_what:
            shape += f", {extra_what}"
        rows.append(f"| {shape} | {p:,} | {d}D | {decide} | {choice} | {'; '.join(builds)} |")
        print(rows[-1], flush=True)
    if args.quick:
        return
    text = "\n".join([
        "What one rank spends before its first allgather, measured on this machine with `scripts/scale.py` (real "
        "wall-clock, one process, no MPI; rank 0):",
        "",
        "- **decision**: `tg-plan --dims D --select --sizes 8,1k,64k,1m` (and `--node-size k` where a row says k "
        "per node), auto's choice with the cost model's default "
        "machine (α 1 µs, 10 GB/s, no cost per hop or message, vendor model `ompi`; a call that lists its blocks "
        "one by one charged this machine's CPU per block, docs/design.md, \"The selector\") for four block sizes, computed "
        "as rank 0 computes it before broadcasting (in the library every rank then receives the profiles); the "
        "longest of the four (each block size is decided at its first call), and their sum; each the least of "
        f"{DECISION_RUNS} runs;",
        "- **plan**: for each algorithm auto considers on that shape (above 1024 ranks also those of the latency "
        "family and the partial cycles that apply, marked named: auto leaves them out there, they run when named), "
        "`tg-plan --plan-only`: rank 0's schedule built "
        "as at run time (build), its rounds stepped through once as each call does (walk: the call's own "
        "bookkeeping, O(rounds)), and the heap the schedule keeps (bytes); one run each; \"does not apply\" where the construction declines the shape (hamiltonian where no rule or search finds its cycles).",
        "",
        "Above 1024 ranks auto considers only the algorithms whose cost profile comes from their construction "
        "without a schedule that grows with P "
        "(dim-rings; hamiltonian where a rule gives its cycles: 2D with both sides 3 or more or both even, odd cubes; "
        "concentrate on sides up to 4096, bridgehead and bridgehead-coloured on sides up to 16, from one ring per side) and the "
        "vendor's allgather; below, every algorithm (the latency family's profiles are stepped through every "
        "rank's program; what those schedules keep at 4096 and 10^6 ranks: docs/design.md, \"Scale\"), "
        "partial-cycles and hamiltonian only where their rounds alone do not put them behind three others, and "
        "those whose calls list their blocks only where that listing does not (the table "
        "of `tg-plan --select` prints `>= X us (not profiled: ...)`); hamiltonian only where a construction gives "
        "its cycles, never the switch search (docs/design.md, \"Candidates not profiled\").",
        "",
        "| torus | ranks | d | decision | auto's choices (block bytes: algorithm) | plan per rank: build / walk / bytes kept |",
        "|---|---|---|---|---|---|",
    ] + rows) + "\n"
    with open(os.path.join(ROOT, "docs", "data", "scale-table.md"), "w") as f:
        f.write(text)
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "performance_report.py")], check=True)
    print("scale: wrote docs/data/scale-table.md and regenerated docs/performance.md")

if __name__ == "__main__":
    main()
