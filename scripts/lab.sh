#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The benchmark lab: torusgather against SimGrid SMPI's allgathers on
# simulated tori (with the physical bound) and against the vendor's
# MPI_Allgather on this machine. Installs what is missing, builds, runs the
# simulations (two at a time on two cores), then the real-MPI benchmark
# alone, appends to build/lab/results.csv and writes the report of that
# history to build/lab/report/. --publish commits a preset run's rows to
# docs/data/ and regenerates docs/performance.md from docs/data/ alone.
#
#   ./scripts/lab.sh            default set: 8x8, 4x4x4, 8x8x8, 7x7x7, 16x16; 8 B .. 4 MiB
#   ./scripts/lab.sh --quick    4x4x4; 8 B, 1 KiB, 64 KiB, 1 MiB (a few minutes)
#   ./scripts/lab.sh --dims 6x6x6 --sizes 8,65536 --algorithms hamiltonian,smpi-ompi
#   ./scripts/lab.sh --bw 5GBps --lat 2us --limiter 5GBps ...   other platform parameters
#   ./scripts/lab.sh --preset bgq --publish   a preset, its rows into docs/data/
#   ./scripts/lab.sh --help     every option
set -euo pipefail
cd "$(dirname "$0")/.."
case " $* " in
  *" --help "*|*" -h "*) exec /usr/bin/python3 scripts/lab.py --help ;;
esac
./scripts/deps.sh python3-matplotlib
case " $* " in
  *" --report-only "*) ;;
  *) ./scripts/build.sh >/dev/null ;;
esac
exec /usr/bin/python3 scripts/lab.py "$@"
