#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Writes docs/performance.md, and docs/img/presets.png where matplotlib is
installed, from the raw rows committed in docs/data/: one table per
simulated machine preset, the cost model against the simulation, and the
scale table (docs/data/scale-table.md, written by scripts/scale.py), and
what keeps presets below 90 % of their bound and what the 4-per-node rows
rest on (docs/data/limits.csv and assumptions.csv, written by
scripts/limits.py).

  ./scripts/performance_report.py           writes them
  ./scripts/performance_report.py --check   exits 1 where docs/performance.md
                                            is not what docs/data/ gives

docs/data/lab-DATE.csv are lab.py's results.csv rows (scripts/lab.sh
--publish adds them); where two files hold the same (platform, algorithm,
size), the later file's row is taken.
"""

import csv
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lab_report import PRESETS, fmt, load_results, preset_base, preset_of, scenarios_from, size_axis, size_name  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "docs", "data")

# What each preset platform is (docs/machines.md has the figures and sources).
MACHINE = {
    "bgq": "IBM Blue Gene/Q",
    "tofud": "Fujitsu Tofu-D (Fugaku)",
    "gemini": "Cray Gemini (XE6/XK7)",
    "tpu-v4": "Google TPU v4",
    "tofud-mesh": "Fujitsu Tofu-D (Fugaku), a job of mesh shape",
    "tpu-v4-mesh": "Google TPU v4, a slice below a 4×4×4 cube (no wraparound links)",
}


SYNC_ABOVE = 1024  # scripts/smpi-torus.sh --sends auto: synchronous sends above this many ranks
MESH_RIVALS = ("smpi-2dmesh", "smpi-3dmesh")


def sends_sentence():
    """What synchronous sends do to the times, from docs/data/sends-check.csv."""
    path = os.path.join(DATA, "sends-check.csv")
    if not os.path.exists(path):
        return ""
    with open(path) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        return ""

    def spread(group):
        moved = [100 * (float(r["synchronous_us"]) - float(r["eager_us"])) / float(r["eager_us"]) for r in group]
        return f"{min(moved):+.1f} to {max(moved):+.1f} %" if moved else "none run"
    tg = [r for r in rows if not r["algorithm"].startswith("smpi-")]
    smpi = [r for r in rows if r["algorithm"].startswith("smpi-") and r["algorithm"] not in MESH_RIVALS]
    mesh = [r for r in rows if r["algorithm"] in MESH_RIVALS]
    where = ", ".join(sorted({f"{r['platform']} ({r['ranks']} ranks)" for r in rows}))
    sizes = ", ".join(size_name(b) for b in sorted({int(r["bytes"]) for r in rows}))
    return (f"Run both ways on {where} at {sizes}, synchronous sends move torusgather's times by {spread(tg)}, "
            f"SMPI's allgathers' by {spread(smpi)}, and SMPI's 2dmesh and 3dmesh by {spread(mesh)}: their "
            "blocking sends, once synchronous, pay no overhead and wait for the receiver, so their rows above "
            f"{SYNC_ABOVE} ranks do not stand for the machine ([data/sends-check.csv](data/sends-check.csv), "
            "`scripts/sends_check.py`).")


def load_data():
    """The rows of every docs/data/lab-*.csv, later files winning; and the files."""
    files = sorted(glob.glob(os.path.join(DATA, "lab-*.csv")))
    latest = {}
    for path in files:
        latest.update(load_results(path))
    return latest, files


def ranks_per_node(platform):
    return int(platform.rsplit("-", 1)[1].replace("pernode", "")) if platform.endswith("pernode") else 1


def ran_at(s, wanted):
    """The algorithms run, grouped by the table's block sizes each ran at:
    "a, b" where all ran at every size, else "at every size: a; at 8 B–2 KiB: b"."""
    sizes = [b for b in s.sizes if ("auto", b) in s.times]
    groups = {}
    for a in sorted({a for a, _ in s.times if wanted(a)}):
        groups.setdefault(tuple(b for b in sizes if (a, b) in s.times), []).append(a)
    if not groups:
        return "none"
    if list(groups) == [tuple(sizes)]:
        return ", ".join(groups[tuple(sizes)])

    def where(ran):
        if ran == tuple(sizes):
            return "at every size"
        if ran and list(ran) == sizes[sizes.index(ran[0]):sizes.index(ran[0]) + len(ran)]:
            return f"at {size_name(ran[0])}–{size_name(ran[-1])}" if len(ran) > 1 else f"at {size_name(ran[0])}"
        return "at " + ", ".join(size_name(b) for b in ran) if ran else "at none of these sizes"

    order = sorted(groups, key=lambda ran: (-len(ran), ran))
    return "; ".join(f"{where(ran)}: {', '.join(groups[ran])}" for ran in order)


def preset_table(s):
    """One row per block size auto ran at: auto, the fastest torusgather
    algorithm run alone, the fastest SMPI allgather run, and the bound."""
    smpi_run = ran_at(s, lambda a: a.startswith("smpi-"))
    tg_run = ran_at(s, lambda a: not a.startswith("smpi-") and a != "auto")
    lines = ["| s | auto (ran) | best torusgather alone | best SMPI | auto / best SMPI | bound | auto % of bound "
             "| checked |",
             "|---|---|---|---|---|---|---|---|"]
    for b in s.sizes:
        auto = s.times.get(("auto", b))
        if auto is None:
            continue
        tg, tga = s.best(b, False, exclude=("auto",))
        sm, sma = s.best(b, True)
        checked = "yes" if s.checked.get(("auto", b)) else "no"
        lines.append(f"| {size_name(b)} | {fmt(auto)} ({s.ran.get(('auto', b), '?')}) | "
                     f"{fmt(tg)} ({tga or '–'}) | {fmt(sm)} ({sma or '–'}) | "
                     f"{f'{auto / sm:.2f}' if sm else '–'} | {fmt(s.bound[b])} | "
                     f"{100 * s.bound[b] / auto:.0f} % | {checked} |")
    return "\n".join(lines), tg_run, smpi_run


def model_rows(s):
    """auto's prediction against the simulated time, per size."""
    out = []
    for b in s.sizes:
        p, t = s.predicted.get(("auto", b)), s.times.get(("auto", b))
        if p is not None and t:
            e = round(100 * (p / t - 1))
            out.append(f"{size_name(b)} {e:+d} %" if e else f"{size_name(b)} 0 %")
    return ", ".join(out)


LIMITS_INTRO = (
    "## Below 90 % of the bound: what limits it",
    "Each row reruns the algorithm `auto` ran on a preset (its table above) with one or two of the preset's "
    "figures changed, all else equal (`./scripts/limits.py`, raw rows in [data/limits.csv](data/limits.csv)); the "
    "time it saves is those figures' share of the gap to the bound. Both percentages are of the preset's own "
    "bound. An overhead or a hop latency of 1 ns stands for none (`smpi-torus.sh` takes no zero); node memory of "
    "1000 GB/s for a free copy between a node's ranks.")
ASSUMPTIONS_INTRO = (
    "## What the 4-per-node rows rest on: node memory per copy",
    "The presets give each node a memory figure for the copies between its ranks, and SimGrid's cluster makes "
    "that a fat pipe: every copy gets the whole figure, however many of the node's ranks copy at once. Each row "
    "reruns an algorithm with the node's copies sharing the figure instead (`./scripts/limits.py --set "
    "assumptions`, `smpi-torus.sh --node-sharing SHARED`, raw rows in [data/assumptions.csv](data/assumptions.csv)). "
    "\"As preset\" is the algorithm's row in the preset's table. `dim-rings` sends a node's ranks their blocks "
    "over the network, which the bound counts; `node-dim-rings` (what `auto` runs there) passes each block once "
    "over the network and then between the node's ranks through its memory, which the bound does not count. Both "
    "percentages are of the preset's own bound.")


def changed_section(latest, name, intro, own=False):
    """A docs/data/ file of reruns against the preset tables: auto's time as
    run (the rerun algorithm's own time on the preset with `own`), and the
    algorithm's with one of the preset's figures changed."""
    path = os.path.join(DATA, name)
    if not os.path.exists(path):
        return []
    with open(path) as f:
        cases = list(csv.DictReader(f))
    heading, text = intro
    out = [heading, "", text, ""]
    out.append("| preset | nodes × ranks per node | s | algorithm | as preset | % of bound | changed | time | % of bound |"
               if own else
               "| preset | nodes × ranks per node | s | auto (ran) | % of bound | changed | time | % of bound |")
    out.append("|---|---|---|---|---|---|---|---|---|" if own else "|---|---|---|---|---|---|---|---|")
    for c in cases:
        k = int(c["ranks_per_node"])
        platform = f"{c['dims']}-{c['preset']}" + (f"-{k}pernode" if k > 1 else "")
        size = int(c["bytes"])
        row = latest.get((platform, c["algorithm"] if own else "auto", size))
        where = f"| {c['preset']} | {c['dims']} × {k} | {size_name(size)} |" + (f" {c['algorithm']} |" if own else "")
        if row is None:  # shown, not dropped: the case needs a preset row to compare with
            out.append(f"{where} – (no preset row) | – | {c['change']} | {fmt(float(c['time_us']))} | – |")
            continue
        bound = float(row["bound_us"])
        before = float(row["time_us"])
        changed = float(c["time_us"])
        if own:
            shown = fmt(before)
        else:
            ran = row.get("ran", "")
            shown = f"{fmt(before)} ({ran})" + ("" if ran == c["algorithm"] else f" (rerun: {c['algorithm']})")
        out.append(f"{where} {shown} | {100 * bound / before:.0f} % | {c['change']} | {fmt(changed)} | "
                   f"{100 * bound / changed:.0f} % |")
    out.append("")
    return out


def plot(presets, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, ax = plt.subplots(figsize=(9.5, 4.2))
    # One colour per preset; dashed with many ranks per node; circles up to
    # SYNC_ABOVE ranks, then squares, triangles, ... by rank count.
    bases = list(dict.fromkeys(preset_base(s.platform) for s in presets))
    large = sorted({(preset_base(s.platform), s.ranks) for s in presets if s.ranks > SYNC_ABOVE})
    shapes = "s^Dv"

    def marker(s):
        if s.ranks <= SYNC_ABOVE:
            return "o"
        same = [r for b, r in large if b == preset_base(s.platform)]
        return shapes[same.index(s.ranks) % len(shapes)]

    for s in presets:
        sizes = [b for b in s.sizes if s.times.get(("auto", b))]
        ax.plot(sizes, [100 * s.bound[b] / s.times[("auto", b)] for b in sizes],
                color=plt.cm.tab10(bases.index(preset_base(s.platform)) % 10),
                linestyle="--" if ranks_per_node(s.platform) > 1 else "-",
                marker=marker(s), label=f"{preset_of(s.platform)} ({s.ranks} ranks)")
    size_axis(ax)
    ax.set_ylabel("auto, % of the machine's bound")
    ax.set_ylim(0, 105)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    ax.set_title("torusgather auto on simulated machine presets (SimGrid)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return True


def main():
    check = sys.argv[1:] == ["--check"]
    if sys.argv[1:] and not check:
        print("usage: performance_report.py [--check]", file=sys.stderr)
        return 2
    latest, files = load_data()
    presets = [s for s in scenarios_from(latest) if preset_of(s.platform)]
    order = {p: i for i, p in enumerate(PRESETS)}
    presets.sort(key=lambda s: (order.get(preset_base(s.platform), 9), ranks_per_node(s.platform),
                                s.ranks))
    out = []
    w = out.append
    w("# Performance")
    w("")
    w("Generated by `./scripts/performance_report.py` from the raw rows committed in "
      + ", ".join(f"[data/{os.path.basename(f)}](data/{os.path.basename(f)})" for f in files)
      + "; do not edit by hand. Every figure is a SimGrid SMPI simulated time (deterministic, one call), "
      "µs, on the machine presets of [machines.md](machines.md); what changed between runs is in "
      "[CHANGELOG.md](../CHANGELOG.md).")
    w("")
    w("## How the numbers are made")
    w("")
    w("- **Platform**: `scripts/smpi-torus.sh --preset NAME` (run by `scripts/lab.py --preset NAME`): a SimGrid "
      "torus with the preset's link bandwidth per direction, hop latency, per-message overhead (`smpi/os`, "
      "`smpi/ois`, `smpi/or`), injection limit, and K ranks per node sharing its links (`-Kpernode`). Every axis "
      "is simulated as a torus except the open axes of the `-mesh` presets (a side marked m), which are simulated "
      "without the link that would wrap around (`scripts/smpi-mesh.cpp`). A node's ranks copy through its memory "
      "link, at the preset's node memory figure per copy: SimGrid's cluster makes that link a fat pipe, so "
      "copies at once do not share it (an assumption, measured under \"What the 4-per-node rows rest on\"). A side of 2 is one link both ways (Tofu-D's a and c), except on bgq, whose nodes "
      "have a + and a − link on every axis: there its two links are simulated as one link of twice the "
      "bandwidth each way (`--pair-links 2`), so two messages at once get a link's bandwidth each, and one "
      "alone gets both (an assumption: the machine would send it on one).")
    w(f"- **Sends**: up to {SYNC_ABOVE} ranks, SMPI sends messages below 64 KiB eagerly, as MPI libraries do, "
      "and charges the overhead at the sender and at the receiver. Above, it sends synchronously, and the "
      "sender pays both halves of the overhead of a message below 64 KiB: SimGrid 3.32 spends wall-clock "
      "proportional to the eager sends in flight on each one it completes, which keeps a 4096-rank simulation "
      "from finishing ([design.md](design.md), \"Scale\"). " + sends_sentence())
    w("- **Solver precision**: the tofud table on 4608 nodes ran with SimGrid's max-min precision at 1e-3 "
      "instead of its default 1e-5, at which SimGrid 3.32's solver fails on rounding on that platform; the "
      "same change leaves tofud's times on 768 and 3072 nodes as they were ([lab.md](lab.md), \"4608 nodes "
      "on tofud\").")
    w("- **Timing** (`tg-bench-smpi`): every rank starts the call at the same simulated instant; the time is the "
      "last rank's completion. `auto (ran)` names what auto ran.")
    w("- **Best torusgather alone**: the fastest of the torusgather algorithms run on that platform with that "
      "block size; **best SMPI**: the fastest of SimGrid's allgathers run there (listed under each table; none "
      "where a rank's receive buffer passes 2 GiB, 768 ranks × 4 MiB, at which SimGrid 3.32's allgathers crash: "
      "[lab.md](lab.md)).")
    w("- **Bound**: max(network, latency). Network: a node takes in (P − K)·s bytes over its links (two per "
      "side > 2; one per side of 2, two on bgq; one per open axis, at the corner node), and with an injection limit L on what a node sends and receives together, 2·(P − K)·s/L. "
      "Latency: the node torus's diameter (n − 1 along an open axis) times the hop latency, plus one send and one receive overhead.")
    w("- **Checked**: `yes` where auto's results were compared byte for byte on every rank; `no` where the "
      "receive buffers were `SMPI_SHARED_MALLOC` (P²·s above 1 GiB) and only the time is meaningful.")
    w("")
    # The plot where matplotlib is installed; the page shows it wherever it exists.
    png = os.path.join(ROOT, "docs", "img", "presets.png")
    if not check and os.path.isdir(os.path.dirname(png)):
        plot(presets, png)
    if os.path.exists(png):
        w("![auto as a percentage of the bound on each preset](img/presets.png)")
        w("")
    for s in presets:
        base = preset_base(s.platform)
        k = ranks_per_node(s.platform)
        shape = s.platform[:s.platform.index(f"-{base}")]
        w(f"## {base}: {MACHINE.get(base, base)}, {shape} nodes × {k} rank{'s' if k > 1 else ''} per node "
          f"({s.ranks} ranks)")
        w("")
        table, tg_run, smpi_run = preset_table(s)
        w(table)
        w("")
        w(f"torusgather algorithms run alone: {tg_run}. SMPI allgathers run: {smpi_run.replace('smpi-', '')}.")
        if s.ranks > SYNC_ABOVE:
            w("Simulated with synchronous sends (\"Sends\" above): the 2dmesh and 3dmesh rows do not stand for "
              "the machine.")
        errors = model_rows(s)
        if errors:
            w(f"The cost model's prediction for auto against the simulated time: {errors}.")
        w("")
    out.extend(changed_section(latest, "limits.csv", LIMITS_INTRO))
    out.extend(changed_section(latest, "assumptions.csv", ASSUMPTIONS_INTRO, own=True))
    scale = os.path.join(DATA, "scale-table.md")
    if os.path.exists(scale):
        w("## Scale (real: plan building and auto's decision)")
        w("")
        with open(scale) as f:
            w(f.read().rstrip("\n"))
        w("")
    path = os.path.join(ROOT, "docs", "performance.md")
    if check:
        with open(path) as f:
            same = f.read() == "\n".join(out)
        print(f"performance_report: {os.path.relpath(path, ROOT)} "
              + ("is what docs/data/ gives" if same else "differs from what docs/data/ gives: run "
                 "./scripts/performance_report.py and commit it"))
        return 0 if same else 1
    with open(path, "w") as f:
        f.write("\n".join(out))
    print(f"performance_report: wrote {os.path.relpath(path, ROOT)} from {len(files)} data file(s), "
          f"{len(presets)} preset platform(s)")


if __name__ == "__main__":
    sys.exit(main())
