#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Node memory per copy or shared (smpi-torus.sh --node-sharing): on 2 nodes
# of 4 ranks with 1 GB/s of node memory, node-dim-rings' 1 MiB blocks make
# the node's ranks copy 4 x 3 x 2 MiB = 24 MiB. Shared, that takes at least
# 24 MiB / 1 GB/s (25,166 us); as a fat pipe (SimGrid's cluster, or the
# platform built link by link with FATPIPE: the same time) copies at once
# do not wait for each other. Results checked byte for byte; SimGrid's time
# is deterministic.
#
#   node_memory.sh SMPI_TORUS TG_BENCH_SMPI
set -eu
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
run() {
  "$1" --dims 2 --ranks-per-node 4 --bw 1GBps --lat 1us --node-bw 1GBps --node-lat 1us "${@:4}" -- "$2" \
    --sizes 1048576 --iters 1 --warmup 0 --reps 1 --check --algorithms node-dim-rings --no-vendor --csv "$dir/$3.csv"
}
run "$1" "$2" cluster
run "$1" "$2" fatpipe --node-sharing FATPIPE
run "$1" "$2" shared --node-sharing SHARED
python3 - "$dir/cluster.csv" "$dir/fatpipe.csv" "$dir/shared.csv" <<'PY'
import csv, sys
rows = [next(csv.DictReader(open(p))) for p in sys.argv[1:]]
assert all(r["ok"] == "ok" for r in rows), rows
cluster, fat, shared = (float(r["max_us"]) for r in rows)
print(f"cluster: {cluster} us, fat pipe: {fat} us, shared: {shared} us")
assert abs(cluster - fat) <= 1e-6 * cluster, "the link-by-link platform differs from SimGrid's cluster"
copies = 24 * 1048576 / 1e3  # us at 1 GB/s
assert shared >= copies, "the node's copies did not share its memory"
assert fat < copies / 2, "copies at once waited for each other in the fat pipe"
print("node memory: OK")
PY
