#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Calibration on a simulated platform of known latency and bandwidth:
runs COMMAND (an SMPI program calling auto) with
TORUSGATHER_VERBOSE=1 and checks that the alpha, beta and delta it measured
are within 10 % of the platform's.

  check_calibration.py ALPHA_US BETA_NS_PER_BYTE DELTA_US -- COMMAND...
"""
import os
import re
import subprocess
import sys


def main():
    sep = sys.argv.index("--")
    expected = dict(zip(("alpha", "beta", "delta"), map(float, sys.argv[1:sep])))
    env = dict(os.environ, TORUSGATHER_VERBOSE="1")
    run = subprocess.run(sys.argv[sep + 1:], capture_output=True, text=True, env=env)
    out = run.stdout + run.stderr
    m = re.search(r"machine \(measured\): alpha ([0-9.e+-]+) us, beta ([0-9.e+-]+) ns/B, "
                  r"delta ([0-9.e+-]+) us/hop", out)
    if run.returncode != 0 or not m:
        print(out)
        sys.exit(f"check_calibration: FAILED: exit {run.returncode}, no measured machine in the output")
    measured = dict(zip(("alpha", "beta", "delta"), map(float, m.groups())))
    bad = []
    for k, want in expected.items():
        ok = abs(measured[k] - want) <= 0.10 * want
        print(f"{k}: measured {measured[k]:g}, platform {want:g} ({100 * (measured[k] / want - 1):+.1f} %)"
              f"{'' if ok else '  <-- more than 10 % off'}")
        if not ok:
            bad.append(k)
    if bad:
        sys.exit("check_calibration: FAILED: " + ", ".join(bad))
    print("check_calibration: OK")


if __name__ == "__main__":
    main()
