#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""How far SMPI's synchronous sends move the simulated times against its
eager ones, on a preset below 1024 ranks, where both run: scripts/lab.py
twice (--sends eager, --sends synchronous), then docs/data/sends-check.csv,
one row per (platform, algorithm, size) with both times. The presets' rows
above 1024 ranks are simulated with synchronous sends (scripts/smpi-torus.sh).

  scripts/sends_check.py --build build-smpi --preset bgq
"""

import argparse
import csv
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lab_report import load_results  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RIVALS = "smpi-ompi,smpi-mpich,smpi-ring,smpi-rdb,smpi-bruck,smpi-pair,smpi-2dmesh,smpi-3dmesh"
OUT = os.path.join(ROOT, "docs", "data", "sends-check.csv")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True, help="a SimGrid build (bin/tg-bench-smpi)")
    ap.add_argument("--preset", default="bgq")
    ap.add_argument("--sizes", default="8,1k,64k,1m")
    ap.add_argument("--algorithms", default="auto,dim-rings,torus-bruck," + RIVALS)
    ap.add_argument("--work", default="/tmp/torusgather-sends-check", help="where the two lab runs go")
    args = ap.parse_args()
    runs = {}
    for sends in ("eager", "synchronous"):
        out = os.path.join(args.work, sends)
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "lab.py"), "--build", args.build,
                        "--out", out, "--real-np", "", "--no-report", "--preset", args.preset,
                        "--sizes", args.sizes, "--algorithms", args.algorithms, "--sends", sends], check=True)
        runs[sends] = load_results(os.path.join(out, "results.csv"))
    kept = load_results(OUT)
    for key, e in runs["eager"].items():
        s = runs["synchronous"].get(key)
        if s and e["ok"] == "ok" and s["ok"] == "ok":
            kept[key] = dict(platform=key[0], ranks=e["ranks"], algorithm=key[1], bytes=key[2],
                             eager_us=e["time_us"], synchronous_us=s["time_us"])
    with open(OUT, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["platform", "ranks", "algorithm", "bytes", "eager_us", "synchronous_us"])
        w.writeheader()
        w.writerows(kept[k] for k in sorted(kept, key=lambda k: (k[0], k[2], k[1])))
    print(f"sends_check: {len(kept)} rows in {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    sys.exit(main())
