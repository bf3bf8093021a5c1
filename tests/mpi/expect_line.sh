#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs a command and passes only if it succeeds and, for every PATTERN (an
# extended regex), its output has a line matching it: for runs whose exit
# status is part of the verdict (CTest's PASS_REGULAR_EXPRESSION ignores it,
# so a rank that crashes or leaks after printing would pass) and whose
# TORUSGATHER_VERBOSE line shows what really ran.
#
#   expect_line.sh PATTERN [PATTERN ...] -- MPIEXEC ... PROGRAM ...
set -u
patterns=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  patterns+=("$1")
  shift
done
if [ $# -eq 0 ] || [ ${#patterns[@]} -eq 0 ]; then
  echo "usage: expect_line.sh PATTERN [PATTERN ...] -- COMMAND ..." >&2
  exit 2
fi
shift
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$rc" -ne 0 ]; then
  echo "expect_line: FAILED: exit status $rc"
  exit "$rc"
fi
for pattern in "${patterns[@]}"; do
  if ! grep -qE -- "$pattern" <<<"$out"; then
    echo "expect_line: FAILED: no line matches: $pattern"
    exit 1
  fi
done
