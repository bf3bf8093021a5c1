#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs the Debian packages torusgather needs, if any are missing, plus
# any packages named as arguments (scripts/lab.sh adds python3-matplotlib).
# Needs root (or sudo) only when something has to be installed.
set -euo pipefail

packages=(g++ gfortran make cmake ccache pkgconf valgrind mpich libmpich-dev openmpi-bin libopenmpi-dev libboost-mpi-dev libbenchmark-dev
          libgtest-dev libsimgrid-dev python3 python3-mpi4py lammps "$@")

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all Debian packages present (${packages[*]})"
  exit 0
fi

echo "deps: installing missing Debian packages: ${missing[*]}"
if ! command -v apt-get >/dev/null; then
  echo "deps: apt-get not found: this script needs Debian 12 (or a derivative)." >&2
  echo "deps: install these packages by hand: ${missing[*]}" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then sudo="sudo"; else
    echo "deps: not root and no sudo: run as root, or install by hand: ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
if ! $sudo apt-get update; then
  echo "deps: 'apt-get update' failed: check the network and the apt sources." >&2
  exit 1
fi
if ! $sudo apt-get install -y --no-install-recommends "${missing[@]}"; then
  echo "deps: 'apt-get install ${missing[*]}' failed (see above)." >&2
  exit 1
fi
echo "deps: installed ${missing[*]}"
