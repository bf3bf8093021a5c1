#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# What a short real program pays for torusgather: tg-short-program (a fresh
# process that duplicates MPI_COMM_WORLD a few times and makes a few
# MPI_Allgather calls on each) run alternately without and with the
# preloaded library, a torus known, so that calibration, planning and
# auto's trials count if auto spends them. Prints each run's time inside
# MPI_Allgather (slowest rank, all calls summed), the medians and the
# difference; exit status 0 whatever they are (it measures, it does not judge).
#
#   ./scripts/short-program.sh [--np 4] [--dims 2x2] [--runs 9] [--comms 4] [--calls 10]
#                              [--bytes 8,1024] [--mpi openmpi|mpich]
#
# Environment variables (TORUSGATHER_*) pass through to the preloaded runs.
set -euo pipefail
cd "$(dirname "$0")/.."

np=4 dims="" runs=9 comms=4 calls=10 bytes=8,1024 mpi=openmpi
while [ $# -gt 0 ]; do
  case $1 in
    --np) np=$2; shift 2 ;;
    --dims) dims=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --comms) comms=$2; shift 2 ;;
    --calls) calls=$2; shift 2 ;;
    --bytes) bytes=$2; shift 2 ;;
    --mpi) mpi=$2; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "short-program: unknown option $1 (try --help)" >&2; exit 2 ;;
  esac
done
[ -n "$dims" ] || dims=2x$((np / 2))
case $mpi in
  openmpi) dir=build; mpiexec=(mpiexec.openmpi -n "$np" --allow-run-as-root --oversubscribe --mca mpi_yield_when_idle 1) ;;
  mpich) dir=build-mpich; mpiexec=(mpiexec.mpich -n "$np") ;;
  *) echo "short-program: --mpi openmpi or mpich" >&2; exit 2 ;;
esac
if [ ! -x "$dir/bin/tg-short-program" ]; then
  if [ "$mpi" = openmpi ]; then ./scripts/build.sh; else ./scripts/build-mpich.sh; fi
fi
program=("$dir/bin/tg-short-program" --comms "$comms" --calls "$calls" --bytes "$bytes")
preload=$PWD/$dir/lib/libtorusgather_pmpi.so

total() { sed -n 's/.*total_us=\([0-9.]*\) check=ok.*/\1/p'; }
plain=() with=()
for ((r = 0; r < runs; ++r)); do
  p=$("${mpiexec[@]}" "${program[@]}" | total)
  w=$(TORUSGATHER_DIMS=$dims LD_PRELOAD=$preload "${mpiexec[@]}" "${program[@]}" | total)
  [ -n "$p" ] && [ -n "$w" ] || { echo "short-program: a run failed or gave a wrong result" >&2; exit 1; }
  plain+=("$p")
  with+=("$w")
  echo "run $((r + 1)): vendor ${p} us, torusgather ${w} us"
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
mp=$(median "${plain[@]}")
mw=$(median "${with[@]}")
echo "$mpi, $np ranks, torus $dims, $comms communicators x $calls calls of ${bytes} B, $runs runs:" \
  "median vendor $mp us, torusgather $mw us, difference $(awk -v a="$mw" -v b="$mp" 'BEGIN {printf "%.1f", a - b}') us"
