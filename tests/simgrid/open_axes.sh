#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# An open axis (smpi-torus.sh --dims 6m): the platform has no link from the
# last node to the first. SMPI's ring allgather, whose message from rank 5
# to rank 0 then crosses 5 links, takes at least twice its time on the ring
# of 6 at 8 B (100 us per hop); dim-rings' line takes the 5 steps of 1 MiB
# that the end node's one link needs (5,243 us, plus 5 hops), where the
# ring of 6 needs 2.5. Results checked byte for byte; SimGrid's time is
# deterministic.
#
#   open_axes.sh SMPI_TORUS TG_BENCH_SMPI
set -eu
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for dims in 6 6m; do
  "$1" --dims "$dims" --bw 1GBps --lat 100us --allgather ring -- "$2" --sizes 8,1048576 --iters 1 --warmup 0 --reps 1 \
    --check --algorithms dim-rings --csv "$dir/$dims.csv"
done
python3 - "$dir/6.csv" "$dir/6m.csv" <<'PY'
import csv, sys
ring, line = ({(r["algorithm"], int(r["bytes"])): r for r in csv.DictReader(open(p))} for p in sys.argv[1:])
for rows in (ring, line):
    assert len(rows) == 4 and all(r["ok"] == "ok" and r["checked"] == "yes" for r in rows.values()), rows
t = lambda rows, alg, b: float(rows[(alg, b)]["max_us"])
print(f"vendor ring, 8 B: {t(ring, 'vendor', 8)} us on the ring of 6, {t(line, 'vendor', 8)} us on the line")
assert t(line, "vendor", 8) >= 2 * t(ring, "vendor", 8), "the line still has the link from its last node to its first"
block = 1048576 / 1e3  # us at 1 GB/s
print(f"dim-rings, 1 MiB: {t(ring, 'dim-rings', 1048576)} us on the ring, {t(line, 'dim-rings', 1048576)} us on the line")
assert t(ring, "dim-rings", 1048576) < 3 * block
assert 5 * block <= t(line, "dim-rings", 1048576) <= 1.01 * (5 * block + 500), "not the line's 5 steps"
print("open axes: OK")
PY
