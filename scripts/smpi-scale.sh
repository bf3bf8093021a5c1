#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The wall-clock and memory of one 8-byte allgather under SimGrid SMPI, where
# every simulated rank shares one process so every per-rank cost adds up, on
# each torus (smpi-torus.sh, smpi/allgather:ompi): a plain MPI_Allgather;
# dim-rings' messages without the library (tg-neighbour-exchange-smpi: as
# many rounds as tg-plan gives dim-rings, a message to and from each
# neighbour per round); tg-bench-smpi with the vendor's allgather only; and
# tg-bench-smpi with dim-rings and with auto. Prints a Markdown table.
#
#   scripts/smpi-scale.sh [--build build] [DIMS...]   (default 8x8x8 12x12x12 16x16x16)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build"
if [ "${1:-}" = "--build" ]; then build="$2"; shift 2; fi
[ $# -gt 0 ] || set -- 8x8x8 12x12x12 16x16x16
for exe in tg-plain-allgather-smpi tg-neighbour-exchange-smpi tg-bench-smpi tg-plan; do
  [ -x "$build/bin/$exe" ] || { echo "smpi-scale.sh: $build/bin/$exe not found: build first" >&2; exit 2; }
done
stats=$(mktemp)
trap 'rm -f "$stats" "$stats.failed"' EXIT
measure() {  # prints "seconds, MB" of one run (wall-clock, peak resident memory), or "failed"
  if /usr/bin/time -o "$stats" -f "%e %M" "$root/scripts/smpi-torus.sh" --dims "$dims" --allgather ompi -- "$@" \
       >/dev/null 2>&1; then
    awk '{printf "%.1f s, %.0f MB", $1, $2 / 1024}' "$stats"
  else
    echo "failed"
    echo 1 > "$stats.failed"
  fi
}
echo "| torus | ranks | plain MPI_Allgather | dim-rings' messages alone | tg-bench-smpi, vendor only | tg-bench-smpi dim-rings | tg-bench-smpi auto |"
echo "|---|---|---|---|---|---|---|"
for dims in "$@"; do
  ranks=$(( $(tr x '*' <<<"$dims") ))
  rounds=$("$build/bin/tg-plan" --dims "$dims" --algorithm dim-rings --plan-only --json | sed 's/.*"rounds": \([0-9]*\).*/\1/')
  bench=("$build/bin/tg-bench-smpi" --sizes 8 --iters 1 --warmup 0 --reps 1)
  echo "| $dims | $ranks | $(measure "$build/bin/tg-plain-allgather-smpi")" \
       "| $(measure "$build/bin/tg-neighbour-exchange-smpi" "$rounds" 8) ($rounds rounds)" \
       "| $(measure "${bench[@]}" --algorithms vendor) | $(measure "${bench[@]}" --no-vendor --algorithms dim-rings)" \
       "| $(measure "${bench[@]}" --no-vendor --algorithms auto) |"
done
# A run that failed (its cell says so) fails the script.
[ ! -e "$stats.failed" ]
