#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The main job: installs what is missing, builds (Release), then compares
# torusgather with the vendor's MPI_Allgather
#   1. on this machine's MPI (mpirun, 4 ranks, a few sizes), and
#   2. on a simulated 8x8 torus under SimGrid (64 ranks, 10 GBps links,
#      1 us latency, full-duplex, all ports at once; times are simulated),
# and prints both tables.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh
# Only what the demo runs: the library, tg-bench and its SimGrid flavour.
TORUSGATHER_BUILD_TARGETS="tg-bench tg-bench-smpi" ./scripts/build.sh
build=${TORUSGATHER_BUILD_DIR:-build}
np=${TORUSGATHER_DEMO_NP:-4}

mpirun_flags=()
if mpirun --version 2>&1 | grep -q "Open MPI"; then
  mpirun_flags=(--oversubscribe --mca mpi_yield_when_idle 1)
  [ "$(id -u)" -eq 0 ] && mpirun_flags+=(--allow-run-as-root)
fi

echo
echo "== 1. Real MPI on this machine: $np ranks (wall-clock; this machine has $(nproc) cores) =="
mpirun -np "$np" "${mpirun_flags[@]}" "$build/bin/tg-bench" \
  --sizes 8,64,1024,16384,262144,1048576 --iters 100 --algorithms auto,hamiltonian,dim-rings --check

echo
echo "== 2. Simulated 8x8 torus (SimGrid SMPI): 64 ranks, times in simulated us =="
echo "   vendor = SimGrid's re-implementation of Open MPI's allgather selection (smpi/allgather:ompi)"
./scripts/smpi-torus.sh --dims 8x8 --bw 10GBps --lat 1us --allgather ompi -- \
  "$build/bin/tg-bench-smpi" --sizes 8,1024,65536,1048576 --iters 1 --warmup 1 \
  --algorithms auto,hamiltonian,partial-cycles,dim-rings
echo "   bound at 1 MiB: (P-1)*s/(2d*B) = 63 * 1048576 B / (4 * 10 GB/s) = 1651.5 us"
