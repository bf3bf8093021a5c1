#!/usr/bin/env bash
# Runs a command and passes only if it succeeds and its output has a line
# matching PATTERN (an extended regex): for runs whose exit status is the
# verdict and whose TORUSGATHER_VERBOSE line shows what really ran.
#
#   expect_line.sh PATTERN MPIEXEC ... PROGRAM ...
set -u
pattern=$1
shift
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$rc" -ne 0 ]; then
  echo "expect_line: FAILED: exit status $rc"
  exit "$rc"
fi
if ! grep -qE -- "$pattern" <<<"$out"; then
  echo "expect_line: FAILED: no line matches: $pattern"
  exit 1
fi
