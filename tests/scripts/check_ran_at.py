# SPDX-License-Identifier: BSD-3-Clause
"""performance_report.ran_at: the algorithms under a preset table, grouped
by the block sizes each was run at."""
import os
import sys
from types import SimpleNamespace

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from performance_report import ran_at  # noqa: E402

SIZES = [8, 1024, 65536, 1 << 20]


def table(runs):
    """A preset's rows: auto at every size, each algorithm at its sizes."""
    times = {("auto", b): 1.0 for b in SIZES}
    for alg, sizes in runs.items():
        times.update({(alg, b): 1.0 for b in sizes})
    return SimpleNamespace(sizes=SIZES, times=times)


def check(got, want):
    assert got == want, f"\n got: {got}\nwant: {want}"


tg = lambda a: not a.startswith("smpi-") and a != "auto"  # noqa: E731
# All at every size: a plain list, auto left out.
check(ran_at(table({"dim-rings": SIZES, "torus-bruck": SIZES}), tg), "dim-rings, torus-bruck")
# Gaps: the widest group first, a run of sizes as a range, others listed.
check(ran_at(table({"dim-rings": SIZES, "lee-code": SIZES[:2], "cubgos": SIZES[:3], "pair": [8, 65536]}), tg),
      "at every size: dim-rings; at 8 B–64 KiB: cubgos; at 8 B–1 KiB: lee-code; at 8 B, 64 KiB: pair")
# One size alone, and the SMPI side of the same rows.
smpi = table({"smpi-ring": SIZES, "smpi-bruck": [8]})
check(ran_at(smpi, lambda a: a.startswith("smpi-")), "at every size: smpi-ring; at 8 B: smpi-bruck")
check(ran_at(table({}), tg), "none")
print("ran_at: ok")
