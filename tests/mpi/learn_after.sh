#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# auto's wait before it learns (TORUSGATHER_LEARN_AFTER), as a user meets it
# under the preload: the default threshold is 50 ms; a short program (4
# communicators, 10 calls of 8 B and 1 KiB each) that stays under the
# threshold runs the vendor's allgather and never calibrates or measures
# (a 10 s threshold here, so that a loaded machine cannot cross it); the
# same program with more calls and a 2 ms threshold starts learning once
# its allgathers have taken 2 ms: it calibrates, and then measures.
#
#   learn_after.sh PRELOAD_LIBRARY MPIEXEC ... tg-short-program
set -u
preload=$1
shift
fail() {
  echo "learn_after: FAILED: $1"
  exit 1
}
export TORUSGATHER_VERBOSE=1 TORUSGATHER_DIMS=2x2
unset TORUSGATHER_LEARN_AFTER

# run NAME THRESHOLD COMMS CALLS: the program under the preload (THRESHOLD
# "" for the default); its output in $out, its exit status and result line checked.
run() {
  local name=$1 threshold=$2 comms=$3 calls=$4
  if [ -n "$threshold" ]; then
    out=$(TORUSGATHER_LEARN_AFTER=$threshold LD_PRELOAD=$preload "${program[@]}" --comms "$comms" --calls "$calls" 2>&1)
  else
    out=$(LD_PRELOAD=$preload "${program[@]}" --comms "$comms" --calls "$calls" 2>&1)
  fi
  local rc=$?
  printf '%s\n' "$out"
  [ "$rc" -eq 0 ] || fail "$name: exit status $rc"
  grep -q "short-program ranks=4 .* check=ok" <<<"$out" || fail "$name: no result line"
}
program=("$@")

run "one call" "" 1 1
grep -Eq "allgather on a 2x2 torus \(4 ranks\): vendor -- waits to learn \(0\.00 of 50 ms" <<<"$out" ||
  fail "one call: auto did not say it waits for 50 ms"

run "short program" 10 4 10
grep -Eq "allgather on a 2x2 torus \(4 ranks\): vendor -- waits to learn \([0-9.]+ of 10000 ms" <<<"$out" ||
  fail "short program: auto did not say it waits"
! grep -Eq "machine \(measured\)|measuring|learns from now on" <<<"$out" ||
  fail "short program: auto calibrated or measured"

run "longer program" 0.002 2 400
grep -Eq "ms spent in allgathers on these ranks \(TORUSGATHER_LEARN_AFTER 2\.0 ms\): learns from now on" <<<"$out" ||
  fail "longer program: the wait did not end"
# Then it learns: a calibrated model, and a trial or the model's prior
# ruling every candidate out (MPICH's ranks here: torusgather's software
# cost per round 3.4 us against the vendor's 0.9 us).
grep -Eq "machine \((measured|rejected)" <<<"$out" || fail "longer program: no calibration after the wait"
grep -Eq -- "-- (measuring 1 of|no trial: the model puts every candidate)" <<<"$out" ||
  fail "longer program: no trial after the wait"
echo "learn_after: OK"
