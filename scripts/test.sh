#!/usr/bin/env bash
# The test command: installs what is missing, builds, runs the whole CTest
# suite (unit tests, tg-plan checks, MPI tests at 1..16 ranks, SimGrid tests).
# Its exit status is the verdict. Extra arguments go to ctest (e.g. -R mpi).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh
./scripts/build.sh
build=${TORUSGATHER_BUILD_DIR:-build}
# Oversubscribed MPI tests use both cores themselves: run tests one at a time.
ctest --test-dir "$build" --output-on-failure "$@"
