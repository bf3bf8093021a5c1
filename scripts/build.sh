#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Configures and builds torusgather (Release) into build/ (or $TORUSGATHER_BUILD_DIR):
# everything, or the targets named in $TORUSGATHER_BUILD_TARGETS.
# Extra arguments go to cmake's configure step, e.g. -DTORUSGATHER_SIMGRID=OFF.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${TORUSGATHER_BUILD_DIR:-build}
# ccache, where installed (scripts/deps.sh installs it), shares the objects
# that the openmpi, mpich and sanitize builds compile alike, and keeps them
# for the next run.
launcher=()
# Paths relative to the checkout, so that a fresh clone (CI) hits too.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" "$@"
# TORUSGATHER_BUILD_TARGETS="tg-bench ...": only those (scripts/demo.sh).
targets=()
# shellcheck disable=SC2206  # a space-separated list of target names
[ -z "${TORUSGATHER_BUILD_TARGETS:-}" ] || targets=(--target $TORUSGATHER_BUILD_TARGETS)
cmake --build "$build" -j "$(nproc)" "${targets[@]}"
