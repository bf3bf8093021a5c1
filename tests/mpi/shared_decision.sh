#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# auto's decisions shared by the communicators of one process: on two
# duplicates of MPI_COMM_WORLD, the trials of the first decide for the
# second. Passes if the program succeeds, one trial ends (one "auto
# measured" line, not two), and the second communicator's first call says
# it runs the measured decision.
#
#   shared_decision.sh MPIEXEC ... two_communicators [calls]
set -u
# A given machine (no calibration): the model, the trial's prior, cannot
# leave every candidate out on a loaded machine.
export TORUSGATHER_VERBOSE=1 TORUSGATHER_DIMS=2x2 TORUSGATHER_TRIALS=2 TORUSGATHER_LEARN_AFTER=0
export TORUSGATHER_ALPHA=2e-6 TORUSGATHER_BANDWIDTH=5e9 TORUSGATHER_DELTA=0 TORUSGATHER_OVERHEAD=0 TORUSGATHER_SOFTWARE=0
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
fail() {
  echo "shared_decision: FAILED: $1"
  exit 1
}
[ "$rc" -eq 0 ] || fail "exit status $rc"
grep -q "two communicators on 4 ranks: OK" <<<"$out" || fail "no result line"
trials=$(grep -c "auto measured 8\.\.15 B on a 2x2 torus" <<<"$out")
[ "$trials" -eq 1 ] || fail "$trials trials ended, expected 1 (the second communicator measured again)"
grep -Eq "allgather on a 2x2 torus \(4 ranks\): [a-z-]+( \([^)]*\))? -- measured$" <<<"$out" ||
  fail "the second communicator did not run the measured decision"
echo "shared_decision: OK"
