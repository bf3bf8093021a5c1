#!/usr/bin/env bash
# Configures and builds torusgather (Release) into build/ (or $TORUSGATHER_BUILD_DIR).
# Extra arguments go to cmake's configure step, e.g. -DTORUSGATHER_SIMGRID=OFF.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${TORUSGATHER_BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build "$build" -j "$(nproc)"
