#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs a command; passes only if it ends with the expected exit status and,
# for every PATTERN (an extended regex), its output has a line matching it.
# Every test that looks at output goes through here: a CTest pass regex
# ignores the exit status, so a run that crashes after printing the line
# would pass.
#
#   expect_line.sh [--status N | --fails] PATTERN [PATTERN ...] -- COMMAND ...
#     --status N   the exit status must be N (default 0)
#     --fails      a refusal: any status from 1 to 127 (not a signal, not 0)
set -u
want=0
case ${1:-} in
  --status) want=$2; shift 2 ;;
  --fails) want=fails; shift ;;
esac
patterns=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  patterns+=("$1")
  shift
done
if [ $# -eq 0 ] || [ ${#patterns[@]} -eq 0 ]; then
  echo "usage: expect_line.sh [--status N | --fails] PATTERN [PATTERN ...] -- COMMAND ..." >&2
  exit 2
fi
shift
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$want" = fails ]; then
  if [ "$rc" -eq 0 ] || [ "$rc" -gt 127 ]; then
    echo "expect_line: FAILED: exit status $rc, expected a refusal (1..127)"
    exit 1
  fi
elif [ "$rc" -ne "$want" ]; then
  echo "expect_line: FAILED: exit status $rc, expected $want"
  exit 1
fi
for pattern in "${patterns[@]}"; do
  if ! grep -qE -- "$pattern" <<<"$out"; then
    echo "expect_line: FAILED: no line matches: $pattern"
    exit 1
  fi
done
