# SPDX-License-Identifier: BSD-3-Clause
"""The lab's full report of one build's lab history: every platform, the
real-MPI runs, plots, from build/lab/results.csv and build/lab/runs.json,
into build/lab/report/performance.md (called by scripts/lab.py;
`lab.sh --report-only` reruns it). The committed docs/performance.md is
scripts/performance_report.py's, from docs/data/ alone."""

import csv
import json
import os
import re
from collections import OrderedDict

DEFAULT_ORDER = ["8x8", "4x4x4", "8x8x8", "7x7x7", "16x16"]


def load_results(path):
    """The latest row per (platform, algorithm, bytes): results.csv only grows."""
    latest = OrderedDict()
    if not os.path.exists(path):
        return latest
    with open(path) as f:
        for r in csv.DictReader(f):
            latest[(r["platform"], r["algorithm"], int(r["bytes"]))] = r
    return latest


def fmt(us):
    if us is None:
        return "–"
    if us >= 1000:
        return f"{us:,.0f}"
    if us >= 100:
        return f"{us:.1f}"
    return f"{us:.2f}"


def size_name(b):
    if b >= 1 << 20 and b % (1 << 20) == 0:
        return f"{b >> 20} MiB"
    if b >= 1 << 10 and b % (1 << 10) == 0:
        return f"{b >> 10} KiB"
    return f"{b} B"


def algorithm_order(names):
    tg = sorted((a for a in names if not a.startswith("smpi-")), key=lambda a: (a != "auto", a))
    return tg + sorted(a for a in names if a.startswith("smpi-"))


class Scenario:
    def __init__(self, platform):
        self.platform = platform
        self.ranks = None
        self.times = {}  # (algorithm, bytes) -> time_us or None (failed)
        self.checked = {}
        self.bound = {}
        self.predicted = {}  # (algorithm, bytes) -> the cost model's prediction (us), where there is one
        self.ran = {}  # (algorithm, bytes) -> what ran (auto's choice)

    @property
    def sizes(self):
        return sorted({b for _, b in self.times})

    @property
    def algorithms(self):
        return algorithm_order({a for a, _ in self.times})

    def best(self, size, smpi, exclude=()):
        # A named algorithm that fell back to another (ran differs) is that other's row.
        values = [(t, a) for (a, b), t in self.times.items()
                  if b == size and t is not None and a.startswith("smpi-") == smpi and a not in exclude
                  and (smpi or a == "auto" or self.ran.get((a, b), a) == a)]
        return min(values) if values else (None, None)


PRESETS = ("bgq", "tofud", "tofud-mesh", "gemini", "tpu-v4", "tpu-v4-mesh")


def preset_base(platform):
    """The preset a platform was run with (lab.py names it DIMS-PRESET[-...]), else None."""
    found = [p for p in PRESETS if re.search(f"-{re.escape(p)}(-|$)", platform)]
    return max(found, key=len) if found else None


def preset_of(platform):
    """The preset and what differs from it ("tofud-4pernode"), else None."""
    base = preset_base(platform)
    return platform[platform.index(f"-{base}") + 1:] if base else None


def scenarios_from(latest):
    out = OrderedDict()
    for (platform, algorithm, size), r in latest.items():
        if algorithm == "auto" and not r.get("ran"):
            continue  # from before the selector (auto was "hamiltonian, else dim-rings")
        if algorithm != "auto" and r.get("ran") and r["ran"] != algorithm:
            continue  # it does not apply: the library ran its fallback instead
        s = out.setdefault(platform, Scenario(platform))
        s.ranks = int(r["ranks"])
        s.times[(algorithm, size)] = float(r["time_us"]) if r["ok"] == "ok" else None
        s.checked[(algorithm, size)] = r["checked"] == "yes"
        s.bound[size] = float(r["bound_us"])
        if r.get("predicted_us"):
            s.predicted[(algorithm, size)] = float(r["predicted_us"])
        if r.get("ran"):
            s.ran[(algorithm, size)] = r["ran"]
    order = {p: i for i, p in enumerate(DEFAULT_ORDER)}
    return sorted(out.values(), key=lambda s: (order.get(s.platform, len(order)), s.platform))


def size_axis(ax):
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator([2 ** k for k in range(3, 24, 3)]))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: size_name(int(round(x)))))
    ax.set_xlabel("block size s (bytes per rank)")


def plot_scenario(s, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7.5, 4.8), dpi=100)
    for a in s.algorithms:
        pts = [(b, s.times[(a, b)]) for b in s.sizes if s.times.get((a, b)) is not None]
        if not pts:
            continue
        style = dict(linestyle=":", linewidth=1.2, marker=".") if a.startswith("smpi-") else dict(
            linewidth=2.0 if a == "auto" else 1.4, marker="o", markersize=3)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], label=a, **style)
    ax.plot(s.sizes, [s.bound[b] for b in s.sizes], "k--", linewidth=1.5, label="bound")
    size_axis(ax)
    ax.set_yscale("log")
    ax.set_ylabel("simulated time (µs)")
    ax.set_title(f"{s.platform} torus, {s.ranks} ranks")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def plot_summary(scenarios, speedup_path, bound_path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7.5, 4.5), dpi=100)
    for i, s in enumerate(scenarios):
        pts = [(b, s.times[("smpi-ompi", b)] / s.times[("auto", b)]) for b in s.sizes
               if s.times.get(("smpi-ompi", b)) and s.times.get(("auto", b))]
        best = [(b, s.times[("smpi-ompi", b)] / s.best(b, False)[0]) for b in s.sizes
                if s.times.get(("smpi-ompi", b)) and s.best(b, False)[0]]
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], color=f"C{i}", marker="o", markersize=3,
                    label=f"{s.platform} auto")
        if best:
            ax.plot([p[0] for p in best], [p[1] for p in best], color=f"C{i}", linestyle=":",
                    label=f"{s.platform} best torusgather")
    ax.axhline(1.0, color="k", linewidth=1)
    size_axis(ax)
    ax.set_yscale("log")
    ax.set_ylabel("speedup over smpi-ompi (×)")
    ax.set_title("torusgather vs SMPI's Open MPI selection (simulated)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=6, ncol=2)
    fig.tight_layout()
    fig.savefig(speedup_path)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(7.5, 4.5), dpi=100)
    for i, s in enumerate(scenarios):
        color = f"C{i}"
        tg = [(b, s.bound[b] / s.best(b, False)[0]) for b in s.sizes if s.best(b, False)[0]]
        sm = [(b, s.bound[b] / s.best(b, True)[0]) for b in s.sizes if s.best(b, True)[0]]
        if tg:
            ax.plot([p[0] for p in tg], [p[1] for p in tg], color=color, marker="o", markersize=3,
                    label=f"{s.platform} best torusgather")
        if sm:
            ax.plot([p[0] for p in sm], [p[1] for p in sm], color=color, linestyle=":",
                    label=f"{s.platform} best SMPI")
    size_axis(ax)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("fraction of the bound reached (bound / time)")
    ax.set_title("How close to what the network allows (simulated)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=6, ncol=2)
    fig.tight_layout()
    fig.savefig(bound_path)
    plt.close(fig)


def scenario_table(s):
    algs = s.algorithms
    head = ["s"] + algs + ["bound", "best tg / best SMPI", "auto: × vs smpi-ompi", "auto: % of bound"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for b in s.sizes:
        cells = [size_name(b) + ("" if all(s.checked.get((a, b), True) for a in algs) else "†")]
        best_tg, best_sm = s.best(b, False)[0], s.best(b, True)[0]
        for a in algs:
            if (a, b) not in s.times:
                cells.append("–")
            elif s.times[(a, b)] is None:
                cells.append("FAILED")
            else:
                t = s.times[(a, b)]
                cells.append(f"**{fmt(t)}**" if t in (best_tg, best_sm) else fmt(t))
        cells.append(fmt(s.bound[b]))
        cells.append(f"{best_sm / best_tg:.2f}×" if best_tg and best_sm else "–")
        auto, ompi = s.times.get(("auto", b)), s.times.get(("smpi-ompi", b))
        cells.append(f"{ompi / auto:.2f}×" if auto and ompi else "–")
        cells.append(f"{100 * s.bound[b] / auto:.0f} %" if auto else "–")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def best_single(s, size):
    """The fastest algorithm other than auto at this size, torusgather's or SMPI's."""
    values = [(t, a) for (a, b), t in s.times.items() if b == size and t is not None and a != "auto"]
    return min(values) if values else (None, None)


def best_reachable(s, size, vendor="smpi-ompi"):
    """The fastest that auto could have run: torusgather's algorithms and the
    vendor's own selection (SMPI's `ompi` in torusgather's simulations)."""
    values = [(t, a) for (a, b), t in s.times.items()
              if b == size and t is not None and a != "auto" and (not a.startswith("smpi-") or a == vendor)]
    return min(values) if values else (None, None)


def auto_table(scenarios):
    """auto's time over the best single algorithm's, per platform and size (target: <= 1.10)."""
    scenarios = [s for s in scenarios if any(a == "auto" for (a, _) in s.ran)]
    sizes = sorted({b for s in scenarios for (a, b) in s.ran if a == "auto"})
    head = ["s"] + [s.platform for s in scenarios]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    worst = (0.0, None, None, None, None)
    for b in sizes:
        cells = [size_name(b)]
        for s in scenarios:
            auto, (best, name) = s.times.get(("auto", b)), best_single(s, b)
            if not auto or not best:
                cells.append("–")
                continue
            ratio = auto / best
            worst = max(worst, (ratio, s.platform, b, s.ran.get(("auto", b), "?"), name))
            text = f"{ratio:.2f}"
            if ratio > 1.005:
                reach, reach_name = best_reachable(s, b)
                text += f" ({s.ran.get(('auto', b), '?')}; best {name}"
                if reach and reach_name != name:
                    text += f"; {auto / reach:.2f} of {reach_name}, the best auto can run"
                text += ")"
            cells.append(f"**{text}**" if ratio > 1.10 else text)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines), worst


def model_error(s, a, b):
    p, t = s.predicted.get((a, b)), s.times.get((a, b))
    return None if p is None or not t else p / t - 1


def model_table(scenarios):
    """Per algorithm and platform: the median and the largest |error| of the prediction over sizes."""
    scenarios = [s for s in scenarios if s.predicted]
    algs = algorithm_order({a for s in scenarios for (a, _) in s.predicted if a != "auto"})
    head = ["algorithm"] + [s.platform for s in scenarios]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for a in algs:
        cells = [a]
        for s in scenarios:
            errs = [(abs(e), e, b) for b in s.sizes if (e := model_error(s, a, b)) is not None]
            if not errs:
                cells.append("–")
                continue
            errs.sort()
            median = errs[len(errs) // 2][0]
            _, e, b = errs[-1]
            cells.append(f"{100 * median:.0f} % ({100 * e:+.0f} % at {size_name(b)})")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def model_detail(s):
    algs = [a for a in s.algorithms if a != "auto" and any((a, b) in s.predicted for b in s.sizes)]
    head = ["s"] + algs
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for b in [b for b in s.sizes if any((a, b) in s.predicted for a in algs)]:
        cells = [size_name(b)]
        for a in algs:
            e = model_error(s, a, b)
            cells.append("–" if e is None else f"{fmt(s.predicted[(a, b)])} ({100 * e:+.0f} %)")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def real_table(csv_path):
    rows = list(csv.DictReader(open(csv_path))) if os.path.exists(csv_path) else []
    if not rows:
        return None
    algs = list(dict.fromkeys(r["algorithm"] for r in rows))
    ran = {r["algorithm"]: r["ran"] for r in rows}
    sizes = sorted({int(r["bytes"]) for r in rows})
    t = {(r["algorithm"], int(r["bytes"])): (float(r["avg_us"]), r["ok"]) for r in rows}
    head = ["s"] + [a + (f" ({ran[a]})" if ran[a] != a else "") for a in algs] + ["vendor / auto"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for b in sizes:
        cells = [size_name(b)]
        for a in algs:
            v = t.get((a, b))
            cells.append("–" if v is None else ("FAILED" if v[1] != "ok" else fmt(v[0])))
        v, a = t.get(("vendor", b)), t.get(("auto", b))
        cells.append(f"{v[0] / a[0]:.2f}" if v and a and a[0] > 0 else "–")
        lines.append("| " + " | ".join(cells) + " |")
    ratios = [(t[("auto", b)][0] / t[("vendor", b)][0], b) for b in sizes
              if t.get(("auto", b)) and t.get(("vendor", b)) and t[("vendor", b)][0] > 0]
    if ratios:
        worst, at = max(ratios)
        ran_auto = sorted({r["ran"] for r in rows if r["algorithm"] == "auto"})
        lines.append("")
        lines.append(f"auto ran {', '.join(ran_auto)}; its time is at most {worst:.2f}× the vendor's "
                     f"(at {size_name(at)}).")
    iters = sorted({int(r["iters"]) for r in rows})
    iters_text = f"{iters[-1]} calls" + (f" ({iters[0]} above 64 KiB)" if len(iters) > 1 else "")
    return "\n".join(lines), rows[0]["ranks"], iters_text, rows[0]["reps"]


def write(results_csv, runs_json, lab_dir, root, out_dir):
    """Writes performance.md and its plots (img/) into out_dir."""
    latest = load_results(results_csv)
    scenarios = scenarios_from(latest)
    runs = json.load(open(runs_json)) if os.path.exists(runs_json) else []
    last = runs[-1] if runs else {}
    img_dir = os.path.join(out_dir, "img")
    os.makedirs(img_dir, exist_ok=True)
    out = []
    w = out.append
    w("# Performance")
    w("")
    w("Generated by `./scripts/lab.sh` (scripts/lab.py, scripts/lab_report.py) from this build's "
      "`lab/results.csv`: every platform it ran, for the developer; the committed reference is "
      "docs/performance.md (scripts/performance_report.py). Simulated numbers are SimGrid SMPI "
      "times on simulated tori (deterministic); real numbers are wall-clock times on this "
      "machine. Bold: the fastest torusgather and the fastest SMPI algorithm at that size.")
    w("")
    w("## How the numbers are made")
    w("")
    # The parameters of a platform named by its shape alone (lab.py's
    # defaults); other platforms carry their differences in their names.
    w(f"- **Simulated platforms** (`scripts/smpi-torus.sh`): SimGrid clusters with `topology=\"TORUS\"`, "
      "links of 10GBps per direction and 1us latency, sharing policy "
      "SPLITDUPLEX (full duplex, every port of a node busy at once), no per-node limiter, "
      "no per-message overhead, dimension-order routing, SMPI's bandwidth and latency correction factors set to 1 and its TCP "
      "cross-traffic off (a message of m bytes to a neighbour costs exactly lat + m/bw), "
      "`smpi/simulate-computation:no`. Ranks are mapped so that torus neighbours are SimGrid "
      "neighbours (`simgrid.neighbour-hop.*` tests: one hop, two at distance 2). A platform name "
      "with a suffix (`8x8-bw5GBps`) used other parameters.")
    w("- **Timing** (`tg-bench-smpi`): every simulated rank starts the call at the same simulated "
      "instant; the time is the latest rank's completion (one call: simulated time is deterministic). "
      "`auto` repeats the row of the algorithm it runs (the same schedule).")
    w("- **Checked**: results are compared byte for byte on every rank while P²·s ≤ 1 GiB; sizes "
      "marked † were not checked: their receive buffers are `SMPI_SHARED_MALLOC` (shared by all "
      "simulated ranks), and torusgather's block sets travel as one contiguous message of the same "
      "size instead of a derived datatype (SMPI packs derived types into full-size buffers: 200 GiB "
      "for dim-rings at 1 MiB on 8×8×8). SMPI models both as one flow of the same bytes on the same "
      "route.")
    w("- **Bound**: max((P−1)·s/(2d·B), D·λ + 2o): each rank receives (P−1)·s bytes over its "
      "2d links, and the block of the farthest rank crosses at least the diameter D = Σ⌊n_i/2⌋ links "
      "(SimGrid adds the latency λ of every link of a route) in at least one message, which costs "
      "the sender and the receiver the per-message overhead o (0 unless the platform is named "
      "`…-overhead…`: SMPI's `smpi/os`, `smpi/ois` and `smpi/or`). With K ranks per node it counts the "
      "(P−K)·s bytes a node takes in for its ranks, and with a per-node limiter L on what a node sends and "
      "receives together (presets gemini and tofud, platforms named `…-limiter…`) at least 2·(P−K)·s/L: "
      "the nodes send in all what they receive.")
    w("- **SMPI's allgathers** (`smpi-NAME` = `--cfg=smpi/allgather:NAME`): `ompi` and `mpich` are "
      "SimGrid's re-implementations of Open MPI's and MPICH's selection logic; `ring`, `rdb` "
      "(recursive doubling), `bruck`, `pair`, `2dmesh`, `3dmesh` single algorithms. `smpi-bruck` "
      "keeps a P·s buffer per rank and is not run where P²·s > 8 GiB; `smpi-pair` "
      "needs a power-of-two rank count and is not run on 7×7×7.")
    w("")
    presets = [s for s in scenarios if preset_of(s.platform)]
    if presets:
        w("## Machine presets (simulated)")
        w("")
        w("The published figures of four torus machines (`lab.py --preset NAME`; sources and "
          "assumptions in [machines.md](machines.md)): link bandwidth and hop latency, a per-message "
          "software cost, the node's injection limit and ranks sharing a node. The times are SimGrid's, "
          "µs, one call each. Best single: the fastest torusgather algorithm run alone; best SMPI: the "
          "fastest of SimGrid's allgathers run (ompi, mpich, bruck, rdb). Sizes where auto was not run "
          "are left out.")
        w("")
        w("| preset | ranks | s | auto (ran) | best single torusgather | best SMPI | auto / best single | "
          "auto / best SMPI | smpi-ompi / auto | auto % of bound |")
        w("|---|---|---|---|---|---|---|---|---|---|")
        for s in presets:
            for b in s.sizes:
                if s.times.get(("auto", b)) is None:
                    continue  # no torusgather run at this size (SMPI's alone)
                tg, tga = s.best(b, False, exclude=("auto",))
                sm, sma = s.best(b, True)
                auto, ompi = s.times.get(("auto", b)), s.times.get(("smpi-ompi", b))
                ran = s.ran.get(("auto", b), "")
                w(f"| {preset_of(s.platform)} | {s.ranks} | {size_name(b)} | {fmt(auto)} ({ran}) | "
                  f"{fmt(tg)} ({tga}) | {fmt(sm)} ({sma}) | "
                  f"{f'{auto / tg:.2f}' if auto and tg else '–'} | "
                  f"{f'{auto / sm:.2f}' if auto and sm else '–'} | "
                  f"{f'{ompi / auto:.2f}×' if auto and ompi else '–'} | "
                  f"{f'{100 * s.bound[b] / auto:.0f} %' if auto else '–'} |")
        w("")
    if scenarios:
        w("## Summary (simulated)")
        w("")
        w("Every platform the lab ran, the idealised ones (10 GB/s, 1 µs links, no software cost, one "
          "rank per node, unless the name says otherwise) first.")
        w("")
        w("| platform | ranks | s | auto | best torusgather | best SMPI | auto × vs smpi-ompi | best tg / best SMPI | auto % of bound |")
        w("|---|---|---|---|---|---|---|---|---|")
        for s in scenarios:
            # The smallest and largest size and a few between (the default and quick grids).
            picks = {s.sizes[0], s.sizes[-1]} | {x for x in (1024, 2048, 32768, 65536, 1 << 19, 1 << 20)
                                                 if x in s.sizes}
            for b in sorted(picks):
                tg, tga = s.best(b, False)
                sm, sma = s.best(b, True)
                auto, ompi = s.times.get(("auto", b)), s.times.get(("smpi-ompi", b))
                w(f"| {s.platform} | {s.ranks} | {size_name(b)} | {fmt(auto)} | "
                  f"{fmt(tg)} ({tga}) | {fmt(sm)} ({sma}) | "
                  f"{f'{ompi / auto:.2f}×' if auto and ompi else '–'} | "
                  f"{f'{sm / tg:.2f}×' if tg and sm else '–'} | "
                  f"{f'{100 * s.bound[b] / auto:.0f} %' if auto else '–'} |")
        w("")
        plot_summary(scenarios, os.path.join(img_dir, "perf-speedup.png"), os.path.join(img_dir, "perf-bound.png"))
        w("![speedup over smpi-ompi: auto (solid) and the best torusgather algorithm (dotted)](img/perf-speedup.png)")
        w("")
        w("![fraction of the bound](img/perf-bound.png)")
        w("")
        w("## auto against the best single algorithm (simulated)")
        w("")
        w("The time of `auto` divided by the time of the fastest single algorithm at that size, "
          "torusgather's or SMPI's (target: at most 1.10). In torusgather's simulations SMPI's "
          "allgather is `ompi` (lab.py `--vendor`): `auto` models it and delegates to it where it predicts "
          "it fastest. Beside a ratio above 1.00: what auto ran and what was fastest, and where that "
          "is an SMPI algorithm other than `ompi`'s choice (which auto cannot ask the vendor for), "
          "auto against the fastest it could run.")
        w("")
        table, worst = auto_table(scenarios)
        w(table)
        if worst[1]:
            w("")
            w(f"Largest: {worst[0]:.2f} on {worst[1]} at {size_name(worst[2])} (auto ran {worst[3]}; "
              f"fastest {worst[4]}).")
        if any(s.predicted for s in scenarios):
            w("")
            w("## The cost model against the simulation")
            w("")
            w("Each simulation also asks the model for its prediction (`tg-bench --predict`, "
              "`TG_Predicted_time`), with the machine calibrated on the simulated platform as `auto` sees it. "
              "Error = predicted / simulated − 1. Per algorithm and platform: the median |error| over the sizes, "
              "and the largest. `smpi-NAME` rows are the model of that SMPI allgather (none for "
              "`pair`, `2dmesh`, `3dmesh`).")
            w("")
            w(model_table(scenarios))
            w("")
            w("<details><summary>Every prediction: µs (error)</summary>")
            for s in scenarios:
                if not s.predicted:
                    continue
                w("")
                w(f"#### {s.platform}")
                w("")
                w(model_detail(s))
            w("")
            w("</details>")
        w("")
        w("## Scenarios (simulated; times in µs)")
        for s in scenarios:
            w("")
            w(f"### {s.platform} ({s.ranks} ranks)")
            w("")
            png = f"perf-{s.platform}.png"
            plot_scenario(s, os.path.join(img_dir, png))
            w(f"![{s.platform}](img/{png})")
            w("")
            w(scenario_table(s))
    # The newest run that measured real MPI (simulation-only runs do not).
    real_run = next((r for r in reversed(runs) if any(os.path.exists(x["csv"]) for x in r.get("real", []))), {})
    real = [r for r in real_run.get("real", []) if os.path.exists(r["csv"])]
    if real:
        w("")
        w("## Real MPI on this machine (wall clock)")
        w("")
        w(f"From the lab run of {real_run.get('when', '?')} (`lab.sh {' '.join(real_run.get('argv', []))}`).")
        for r in real:
            table = real_table(r["csv"])
            if not table:
                continue
            text, ranks, iters, reps = table
            w("")
            w(f"`{r['command'].replace(root + '/', '')}` ({ranks} ranks on {os.cpu_count()} cores, "
              f"vendor = {real_run.get('versions', {}).get('Open MPI (libopenmpi-dev)', '?')} Open MPI; per rank "
              f"the mean of {iters}, median of {reps} alternating repetitions, then the average over "
              "ranks, µs; the machine is shared and noisy):")
            w("")
            w(text)
    scale = os.path.join(root, "docs", "data", "scale-table.md")  # written by scripts/scale.py
    if os.path.exists(scale):
        w("")
        w("## Scale (real: plan building and auto's decision)")
        w("")
        with open(scale) as f:
            w(f.read().rstrip("\n"))
    if last:
        w("")
        w("## Runs and versions")
        w("")
        w(f"Last run: `./scripts/lab.sh {' '.join(last.get('argv', []))}` on {last.get('when', '?')}: "
          f"simulations {last.get('simulated_seconds', 0) / 60:.1f} min, everything "
          f"{last.get('total_seconds', 0) / 60:.1f} min.")
        failed = [j for j in last.get("jobs", []) if j["status"] != "ok"]
        skipped = [j for j in last.get("jobs", []) if j.get("skipped")]
        for j in failed:
            w(f"- {j['platform']} {j['kind']}: {j['status']}")
        for j in skipped:
            w(f"- {j['platform']} {j['kind']}: not run at {', '.join(size_name(b) for b in j['skipped'])} "
              "(receive buffer above SMPI's 2 GiB, or Bruck's P²·s above 8 GiB)")
        jobs = sorted(last.get("jobs", []), key=lambda j: (j["platform"], j["kind"]))
        if jobs:
            w("")
            w("<details><summary>Every simulation of the last run: command, wall time</summary>")
            w("")
            for j in jobs:
                w(f"- {j['platform']} {j['kind']} ({j['seconds']:.0f} s): `{j['command']}`")
            w("")
            w("</details>")
        w("")
        w("Earlier runs (newest last): " + "; ".join(
            f"`lab.sh {' '.join(r.get('argv', []))}` {r.get('simulated_seconds', 0) / 60:.1f} min" for r in runs[-6:]))
        w("")
        w("| component | version |")
        w("|---|---|")
        for k, v in last.get("versions", {}).items():
            w(f"| {k} | {v} |")
    path = os.path.join(out_dir, "performance.md")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    print(f"lab: wrote {os.path.relpath(path, root)} and its plots in {os.path.relpath(img_dir, root)}/")
