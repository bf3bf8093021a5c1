#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A side of 2 with two links (smpi-torus.sh --pair-links 2): on 4x2 at
# 1 GB/s, dim-rings' lanes move 1 MiB blocks in the time of 7/4 blocks per
# link (1,835 us), which one link on the side of 2 cannot (7/3: 2,447 us).
# Results checked byte for byte; SimGrid's time is deterministic.
#
#   two_links.sh SMPI_TORUS TG_BENCH_SMPI
set -eu
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for links in 1 2; do
  "$1" --dims 4x2 --bw 1GBps --lat 1us --pair-links "$links" -- "$2" --sizes 1048576 --iters 1 --warmup 0 --reps 1 \
    --check --algorithms auto --no-vendor --csv "$dir/$links.csv"
done
python3 - "$dir/1.csv" "$dir/2.csv" <<'PY'
import csv, sys
one, two = (next(csv.DictReader(open(p))) for p in sys.argv[1:])
assert one["ok"] == "ok" and two["ok"] == "ok", (one, two)
t1, t2 = float(one["max_us"]), float(two["max_us"])
print(f"one link: {t1} us ({one['ran']}), two links: {t2} us ({two['ran']})")
assert t1 >= 7 / 3 * 1048576 / 1e3, "faster than one link on the side of 2 allows"
assert t2 < 7 / 4 * 1048576 / 1e3 * 1.02, "two links not used"
print("two links: OK")
PY
