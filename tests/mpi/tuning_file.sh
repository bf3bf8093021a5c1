#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# auto that measures, and TORUSGATHER_TUNING_FILE, the way a user relies on
# them: the first run times auto's candidates and appends its decision; the
# next run reads it and times nothing; a line edited in is what runs;
# another torus ignores the file, with a message, and measures; a rejected
# calibration is not cached, and auto then measures even with
# TORUSGATHER_TRIALS=0.
#
#   tuning_file.sh FILE MPIEXEC ... tg-bench   (4 ranks; 1-byte blocks)
set -u
file=$1
shift
rm -f "$file" "$file.calibration"
export TORUSGATHER_TUNING_FILE=$file TORUSGATHER_VERBOSE=1 TORUSGATHER_DIMS=2x2 TORUSGATHER_LEARN_AFTER=0
# 70 calls: up to 4 candidates of 16 calls (a rejected calibration times 3 and the vendor).
args=(--sizes 1 --iters 70 --warmup 0 --reps 1 --no-vendor --algorithms auto)
fail() {
  echo "tuning_file: FAILED: $1"
  echo "--- output:"
  echo "$out"
  echo "--- $file:"
  cat "$file" 2>/dev/null
  exit 1
}
lines() { grep -vc '^#' "$file" 2>/dev/null || echo 0; }

out=$("$@" "${args[@]}" 2>&1) || fail "the first run failed"
if grep -q "no trial: the model puts every candidate" <<<"$out"; then
  # MPICH's ranks here, some runs: torusgather's software cost per round
  # measured at 6x the vendor's, and the model as the prior leaves no
  # candidate to time; nothing is measured, so there is nothing to keep.
  grep -vq '^#' "$file" 2>/dev/null && fail "a decision without a trial was written to the file"
  echo "tuning_file: the model ruled every candidate out here (no trial): the file's use is not checked"
  exit 0
fi
rejected_here=0  # MPICH's busy-polling ranks on 2 cores: the calibration is rejected
grep -q "calibration on 4 ranks rejected" <<<"$out" && rejected_here=1
grep -Eq "allgather on a 2x2 torus \(4 ranks\): [a-z-]+.* -- measuring 1 of at most [0-9]+" <<<"$out" || fail "no trial"
grep -Eq "auto measured 1\.\.1 B on a 2x2 torus \(4 ranks\) in [0-9]+ of at most 15 rounds: .*vendor [0-9.]+ us; runs [a-z-]+ \(" <<<"$out" ||
  fail "no decision"
[ "$(lines)" -eq 1 ] || fail "the first run should append one line"
grep -Eq "^4 2x2 1 1 [a-z-]+ # [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z, median of [0-9]+ calls, slowest rank: .*; [a-z]" "$file" ||
  fail "malformed line (when, calls, times, what settled it)"

out=$("$@" "${args[@]}" 2>&1) || fail "the second run failed"
grep -q "measuring" <<<"$out" && fail "the second run measured again"
grep -Eq "allgather on a 2x2 torus \(4 ranks\): [a-z-]+.* -- TORUSGATHER_TUNING_FILE" <<<"$out" ||
  fail "the second run did not take the file's choice"
[ "$(lines)" -eq 1 ] || fail "the second run should not append"

if [ $rejected_here -eq 1 ]; then
  # MPICH's busy-polling ranks on 2 cores: nothing measured is kept.
  grep -q "^# calibration" "$file" && fail "a rejected calibration was recorded"
  echo "tuning_file: the calibration was rejected here: its recording and re-measuring are not checked"
else
  grep -Eq "^# calibration [0-9T:-]+Z 4 2x2 (shared|network) alpha [0-9.e+-]+ beta [0-9.e+-]+ .*tg_per_round" "$file" ||
    fail "the calibration was not recorded"
  # A recorded calibration far from what this machine measures: the next
  # measurement of the shape disagrees, is made twice more, and the median taken.
  for kind in shared network; do
    echo "# calibration 2000-01-01T00:00:00Z 4 2x2 $kind alpha 1e-1 beta 1e-3 delta 0 overhead 0 tg_per_round 0 vendor_per_round 0" >> "$file"
  done
  out=$("$@" --sizes 64 --iters 70 --warmup 0 --reps 1 --no-vendor --algorithms auto 2>&1) || fail "the run at 64 B failed"
  if grep -q "calibration on 4 ranks rejected" <<<"$out"; then
    echo "tuning_file: the calibration of the run at 64 B was rejected here: its re-measuring is not checked"
  else
    grep -q "machine (measured 3 times, the median (the first disagreed with the one of 2000-01-01T00:00:00Z))" \
      <<<"$out" || fail "a measurement far from the recorded one was not made again"
  fi
fi

echo "4 2x2 1 1 dim-rings" >> "$file"  # the last line that covers a size wins
out=$("$@" "${args[@]}" 2>&1) || fail "the third run failed"
grep -Eq "allgather on a 2x2 torus \(4 ranks\): dim-rings \([0-9],(halves|whole)\) -- TORUSGATHER_TUNING_FILE" <<<"$out" ||
  fail "the edited line was not used"

# No software cost, so that the prior cannot rule every candidate out on a
# busy machine (then nothing would be measured).
out=$(TORUSGATHER_DIMS=4 TORUSGATHER_SOFTWARE=0 "$@" "${args[@]}" 2>&1) || fail "the fourth run failed"
grep -Eq "TORUSGATHER_TUNING_FILE $file: no line for 4 ranks on a 4 torus \([23] for other shapes, 0 malformed\)" \
  <<<"$out" || fail "another torus did not say it ignores the file"
grep -q "measuring 1 of" <<<"$out" || fail "another torus did not measure"

rm -f "$file"
out=$(TORUSGATHER_TEST_FAULT=calibration TORUSGATHER_TRIALS=0 TORUSGATHER_CALIBRATION_FILE=$file.calibration \
  "$@" "${args[@]}" 2>&1) || fail "the run with a rejected calibration failed"
grep -q "calibration on 4 ranks rejected three times (TORUSGATHER_TEST_FAULT=calibration)" <<<"$out" ||
  fail "the rejection was not said"
grep -q "machine (rejected: " <<<"$out" || fail "the model does not say its machine was rejected"
grep -q "measuring 1 of at most 24" <<<"$out" || fail "a rejected calibration should time 3 candidates and the vendor, 5 calls each"
[ -s "$file.calibration" ] && fail "a rejected calibration was cached"
rm -f "$file"
out=$(TORUSGATHER_TEST_FAULT=software TORUSGATHER_TRIALS=0 "$@" "${args[@]}" 2>&1) ||
  fail "the run with an implausible software cost failed"
# On a loaded machine (MPICH's busy-polling ranks on 2 cores) the machine's
# own rejection, in this run or the first, comes first.
if [ $rejected_here -eq 0 ] && ! grep -q "calibration on 4 ranks rejected three times" <<<"$out"; then
  grep -q "calibration on 4 ranks rejected (software cost per round 1e+03 us, above 50 us)" <<<"$out" ||
    fail "an implausible software cost was not rejected"
fi
grep -q "measuring 1 of at most 24" <<<"$out" || fail "a rejected software cost should time 3 candidates and the vendor"
echo "tuning_file: OK"
