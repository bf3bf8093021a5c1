#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Is auto ever slower than the vendor's MPI_Allgather on this machine? Runs
# tg-bench --algorithms auto (the vendor is timed beside it, call by call)
# under Open MPI and MPICH at each rank count, each run with a fresh
# TORUSGATHER_TUNING_FILE so that auto's trials decide anew, and prints the
# vendor's time over auto's per size, what auto ran, and the worst ratio.
#
#   ./scripts/vendor-check.sh [--mpi "openmpi mpich"] [--np "4 8"] [--runs 2]
#                             [--sizes 8,64,1k,16k,256k,4m] [--reps 15] [--iters 200]
#                             [--out DIR]
#
# Builds build/ (Open MPI) and build-mpich/ where tg-bench is missing. The
# torus is TORUSGATHER_DIMS if set, else 2xN/2 (2x2, 2x4). auto learns at
# once (TORUSGATHER_LEARN_AFTER=0 unless set), so that what is timed is
# its decision, not its wait. The 70 warm-up calls per size hold auto's
# trials (at most 4 candidates x 16 calls, where the calibration is
# rejected), so the timed calls are the ones after its decision. Exit
# status 0 whatever the ratios: this measures, it does not judge (a shared
# 2-core machine is noisy; see docs/usage.md, "auto that measures").
set -euo pipefail
cd "$(dirname "$0")/.."

mpis="openmpi mpich"
nps="4 8"
runs=2
sizes=8,64,1k,16k,256k,4m
reps=15
iters=200
out=build/vendor-check
while [ $# -gt 0 ]; do
  case $1 in
    --mpi) mpis=$2; shift 2 ;;
    --np) nps=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --iters) iters=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "vendor-check: unknown option $1 (try --help)" >&2; exit 2 ;;
  esac
done
./scripts/deps.sh
mkdir -p "$out"
out=$(cd "$out" && pwd)
summary=$out/summary.csv
echo "mpi,ranks,run,bytes,vendor_us,auto_us,vendor_over_auto,vendor_max_us,auto_max_us,vendor_over_auto_max,auto_ran" \
  > "$summary"

for mpi in $mpis; do
  case $mpi in
    openmpi)
      dir=build
      launcher=(mpirun --oversubscribe --mca mpi_yield_when_idle 1)
      [ "$(id -u)" -eq 0 ] && launcher+=(--allow-run-as-root)
      [ -x $dir/bin/tg-bench ] || TORUSGATHER_BUILD_TARGETS=tg-bench ./scripts/build.sh >/dev/null
      ;;
    mpich)
      dir=build-mpich
      launcher=(mpiexec.mpich)
      [ -x $dir/bin/tg-bench ] || TORUSGATHER_BUILD_DIR=$dir TORUSGATHER_BUILD_TARGETS=tg-bench ./scripts/build-mpich.sh \
        >/dev/null
      ;;
    *) echo "vendor-check: --mpi takes openmpi and/or mpich" >&2; exit 2 ;;
  esac
  for np in $nps; do
    dims=${TORUSGATHER_DIMS:-2x$((np / 2))}
    for run in $(seq 1 "$runs"); do
      tag=$mpi-np$np-run$run
      rm -f "$out/$tag.tuning"
      echo "vendor-check: $mpi, $np ranks, torus $dims, run $run" >&2
      TORUSGATHER_LEARN_AFTER=${TORUSGATHER_LEARN_AFTER:-0} TORUSGATHER_DIMS=$dims \
        TORUSGATHER_TUNING_FILE=$out/$tag.tuning "${launcher[@]}" -np "$np" \
        $dir/bin/tg-bench --sizes "$sizes" --algorithms auto --reps "$reps" --iters "$iters" --warmup 70 \
        --csv "$out/$tag.csv" >/dev/null
      # tg-bench's columns: ranks,bytes,datatype,algorithm,ran,avg_us,min_us,max_us,...
      awk -F, -v mpi="$mpi" -v np="$np" -v run="$run" '
        NR > 1 && $4 == "vendor" { v[$2] = $6; vm[$2] = $8 }
        NR > 1 && $4 == "auto" { a[$2] = $6; am[$2] = $8; ran[$2] = $5; order[++n] = $2 }
        END { for (i = 1; i <= n; ++i) { b = order[i]
                printf "%s,%s,%s,%s,%s,%s,%.3f,%s,%s,%.3f,%s\n", mpi, np, run, b, v[b], a[b], v[b] / a[b],
                       vm[b], am[b], vm[b] / am[b], ran[b] } }
      ' "$out/$tag.csv" >> "$summary"
    done
  done
done

# The table: one row per MPI, rank count and run; the vendor's time over
# auto's, averaged over ranks / on the slowest rank (what auto ran).
python3 - "$summary" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
sizes = sorted({int(r["bytes"]) for r in rows})
def size(b):
    for unit, div in (("MiB", 2**20), ("KiB", 2**10)):
        if b >= div and b % div == 0:
            return f"{b // div} {unit}"
    return f"{b} B"
print("| MPI, ranks, run | " + " | ".join(size(b) for b in sizes) + " |")
print("|---" * (len(sizes) + 1) + "|")
keys = []
for r in rows:
    k = (r["mpi"], r["ranks"], r["run"])
    if k not in keys:
        keys.append(k)
for k in keys:
    cells = {int(r["bytes"]): f'{float(r["vendor_over_auto"]):.2f} / {float(r["vendor_over_auto_max"]):.2f} '
                              f'({r["auto_ran"]})'
             for r in rows if (r["mpi"], r["ranks"], r["run"]) == k}
    print(f"| {k[0]}, {k[1]}, {k[2]} | " + " | ".join(cells.get(b, "") for b in sizes) + " |")
print("\nEach cell: the vendor's time over auto's, averaged over ranks / on the slowest rank (what auto ran).")
for col, what in (("vendor_over_auto", "averaged over ranks"), ("vendor_over_auto_max", "on the slowest rank")):
    worst = min(rows, key=lambda r: float(r[col]))
    print(f"worst, {what}: {float(worst[col]):.2f} ({worst['mpi']}, {worst['ranks']} ranks, run {worst['run']}, "
          f"{size(int(worst['bytes']))}, auto ran {worst['auto_ran']}); "
          f"{sum(float(r[col]) < 1 / 1.05 for r in rows)} of {len(rows)} rows below 1/1.05")
EOF
echo "vendor-check: raw rows in $summary, tuning files in $out" >&2
