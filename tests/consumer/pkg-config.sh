#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds examples/allgather.c against an installed torusgather found through
# pkg-config, as a Makefile-based project would:
#   pkg-config.sh <prefix> <source> <output> <mpicc>
set -euo pipefail
prefix=$1 source=$2 output=$3 mpicc=$4
# lib/ or lib/<multiarch>/, depending on the prefix (GNUInstallDirs).
pc=$(find "$prefix" -name torusgather.pc -path '*pkgconfig*' | head -n 1)
[ -n "$pc" ] || { echo "pkg-config.sh: no torusgather.pc under $prefix" >&2; exit 1; }
export PKG_CONFIG_PATH="$(dirname "$pc")${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
pkg-config --exists torusgather
libdir=$(pkg-config --variable=libdir torusgather)
# shellcheck disable=SC2046  # pkg-config's output is meant to be split
"$mpicc" "$source" -o "$output" $(pkg-config --cflags --libs torusgather) -Wl,-rpath,"$libdir"
echo "pkg-config: built $output with $(pkg-config --modversion torusgather) from $libdir"
