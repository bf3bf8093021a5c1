#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A real MPI program no one here wrote, under the preload: LAMMPS (Debian's
# lammps package, Open MPI) pours granular particles (in.pour), its fix pour
# calling MPI_Allgather and MPI_Allgatherv. Its thermodynamic output must be
# the same, digit for digit, without torusgather, with auto, and with
# dim-rings forced (so that torusgather's own schedule moves LAMMPS's data),
# and torusgather must have said what it ran.
#
#   lammps_pour.sh PRELOAD_LIBRARY IN_FILE MPIEXEC ... lmp
set -u
preload=$1
input=$2
shift 2
fail() {
  echo "lammps_pour: FAILED: $1"
  exit 1
}
command -v "${@: -1}" > /dev/null || fail "${*: -1} not found (Debian package lammps: ./scripts/deps.sh installs it)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
# The lines of the thermo table: step, atoms, kinetic and rotational energy, volume.
thermo() { grep -E '^ +[0-9]+ +[0-9]+ ' "$1"; }

run() {  # name, then environment assignments
  local name=$1
  shift
  env "$@" "${command[@]}" -in "$input" -log none -echo none > "$name.out" 2> "$name.err"
  local rc=$?
  [ "$rc" -eq 0 ] || { cat "$name.out" "$name.err"; fail "$name: exit status $rc"; }
  [ "$(thermo "$name.out" | wc -l)" -eq 21 ] || { cat "$name.out"; fail "$name: expected 21 thermo lines"; }
}
command=("$@")
run plain
run auto LD_PRELOAD="$preload" TORUSGATHER_DIMS=2x2 TORUSGATHER_VERBOSE=1
run forced LD_PRELOAD="$preload" TORUSGATHER_DIMS=2x2 TORUSGATHER_VERBOSE=1 TORUSGATHER_ALGORITHM=dim-rings

grep -q "torusgather" plain.err && fail "plain: torusgather ran without the preload"
grep -Eq "torusgather: allgather on a 2x2 torus \(4 ranks\): vendor -- waits to learn" auto.err ||
  { cat auto.err; fail "auto: torusgather did not say what it ran"; }
grep -Eq "torusgather: allgather on a 2x2 torus \(4 ranks\): dim-rings" forced.err &&
  grep -Eq "torusgather: allgatherv on a 2x2 torus \(4 ranks\), largest block [0-9]+ B: dim-rings" forced.err ||
  { cat forced.err; fail "forced: dim-rings did not run LAMMPS's allgather and allgatherv"; }
for name in auto forced; do
  diff <(thermo plain.out) <(thermo "$name.out") > "$name.diff" || { cat "$name.diff"; fail "$name: output differs"; }
done
echo "lammps_pour: OK (21 thermo lines identical without torusgather, with auto and with dim-rings)"
