#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The node-aware schedule on a simulated machine with 2 ranks per node
# (SimGrid's time is deterministic, so it may be asserted on): every result
# checked byte for byte, node-dim-rings faster than dim-rings over all ranks,
# and auto running node-dim-rings.
#
#   node_aware.sh SMPI_TORUS TG_BENCH_SMPI
set -eu
csv=$(mktemp)
trap 'rm -f "$csv"' EXIT
"$1" --preset gemini --dims 4x4 -- "$2" --sizes 65536 --iters 1 --warmup 0 --reps 1 --check \
  --algorithms auto,dim-rings,node-dim-rings --csv "$csv"
python3 - "$csv" <<'PY'
import csv, sys
rows = {r["algorithm"]: r for r in csv.DictReader(open(sys.argv[1]))}
assert all(r["ok"] == "ok" for r in rows.values()), rows
node, rings = float(rows["node-dim-rings"]["avg_us"]), float(rows["dim-rings"]["avg_us"])
print(f"node-dim-rings {node} us, dim-rings {rings} us, auto ran {rows['auto']['ran']}")
assert node < rings, "node-dim-rings is not faster"
assert rows["auto"]["ran"] == "node-dim-rings", rows["auto"]["ran"]
print("node-aware: OK")
PY
