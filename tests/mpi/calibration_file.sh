#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# TORUSGATHER_CALIBRATION_FILE, the way a user relies on it: the
# first run measures and appends one line; the next run reads that line
# instead of measuring; a value edited into the file is the one the model
# uses; TORUSGATHER_ALPHA overrides the file.
#
#   calibration_file.sh FILE MPIEXEC ... PROGRAM ...   (the program calls auto)
set -u
file=$1
shift
rm -f "$file"
# The software cost per round is measured on every run and not cached: a
# loaded machine's would reject any run's calibration, cached or not.
# Given, it is neither measured nor checked.
export TORUSGATHER_CALIBRATION_FILE=$file TORUSGATHER_VERBOSE=1 TORUSGATHER_SOFTWARE=0
fail() {
  echo "calibration_file: FAILED: $1"
  echo "--- output:"
  echo "$out"
  echo "--- $file:"
  cat "$file" 2>/dev/null
  exit 1
}
lines() { wc -l < "$file" 2>/dev/null || echo 0; }

# A loaded machine (2 cores shared with a simulation) may reject the
# calibration: up to three tries, each from an empty file.
for try in 1 2 3; do
  rm -f "$file"
  out=$("$@" 2>&1) || fail "the first run failed"
  grep -q "calibration on [0-9]* ranks rejected" <<<"$out" || break
  echo "calibration_file: the calibration was rejected (try $try of 3)"
done
grep -q "machine (measured, TORUSGATHER_SOFTWARE)" <<<"$out" || fail "the first run did not measure"
[ "$(lines)" -eq 1 ] || fail "the first run should append one line"
read -r ranks dims kind alpha beta delta overhead < "$file"
[ -n "$overhead" ] || fail "malformed line"

out=$("$@" 2>&1) || fail "the second run failed"
grep -q "machine (cache file $file, TORUSGATHER_SOFTWARE)" <<<"$out" || fail "the second run did not read the file"
[ "$(lines)" -eq 1 ] || fail "the second run should not append"

# The last matching line wins: an edited alpha of 123 us.
echo "$ranks $dims $kind 1.23e-04 $beta $delta $overhead" >> "$file"
out=$("$@" 2>&1) || fail "the third run failed"
grep -q "machine (cache file $file, TORUSGATHER_SOFTWARE): alpha 123 us" <<<"$out" || fail "the edited alpha was not used"

out=$(TORUSGATHER_ALPHA=7e-6 "$@" 2>&1) || fail "the fourth run failed"
grep -q "machine (cache file $file, TORUSGATHER_ALPHA, TORUSGATHER_SOFTWARE): alpha 7 us" <<<"$out" ||
  fail "TORUSGATHER_ALPHA did not override the file"
echo "calibration_file: OK ($ranks ranks, $dims, $kind: alpha $alpha s, beta $beta s/B)"
