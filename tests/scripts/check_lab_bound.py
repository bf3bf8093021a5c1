# SPDX-License-Identifier: BSD-3-Clause
"""The lab's lower bound (scripts/lab.py bound_us) on cases worked by hand."""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from lab import bound_us  # noqa: E402

MiB = 1 << 20


def close(got, want):
    assert math.isclose(got, want, rel_tol=1e-9), (got, want)


# 8x8, 10 GB/s, 1 us: 63 blocks over 4 links.
close(bound_us([8, 8], MiB, 10e9, 1e-6), 63 * MiB / 40e9 * 1e6)
# 8 B: the latency term, diameter 8 hops.
close(bound_us([8, 8], 8, 10e9, 1e-6), 8.0)
# A side of 2 is one link: 4x2 has 3 usable links, not 4.
close(bound_us([4, 2], MiB, 10e9, 1e-6), 7 * MiB / 30e9 * 1e6)
# Unless two links join its two nodes (Blue Gene/Q): 4x4x4x4x2 has 10.
close(bound_us([4, 2], MiB, 10e9, 1e-6, pair_links=2), 7 * MiB / 40e9 * 1e6)
close(bound_us([4, 4, 4, 4, 2], MiB, 1.8e9, 45e-9, 0.5e-6, 1, 0.0, 2), 511 * MiB / (10 * 1.8e9) * 1e6)
# 4 ranks per node on 4x4x8 with a 33.2 GB/s limit on in and out together
# (gemini): the nodes send what they receive, so some node moves
# 2 (P - k) s through its limit, more than its 6 links take in.
close(bound_us([4, 4, 8], MiB, 4.7e9, 100e-9, 0.5e-6, 4, 33.2e9), 2 * 508 * MiB / 33.2e9 * 1e6)
# A limit above twice the links' rate leaves the links' term.
close(bound_us([4, 4, 8], MiB, 4.7e9, 100e-9, 0.5e-6, 4, 100e9), 508 * MiB / (6 * 4.7e9) * 1e6)
# One node: nothing crosses the network.
close(bound_us([1], MiB, 10e9, 1e-6, 0.0, 4, 33.2e9), 0.0)
# Open axes: the corner node of a mesh has one link per axis, and the
# farthest block crosses n - 1 links of an open axis.
close(bound_us([8, 8], MiB, 10e9, 1e-6, open_axes=[True, True]), 63 * MiB / 20e9 * 1e6)
close(bound_us([8, 8], MiB, 10e9, 1e-6, open_axes=[True, False]), 63 * MiB / 30e9 * 1e6)
close(bound_us([8, 8], 8, 10e9, 1e-6, open_axes=[True, True]), 14.0)
close(bound_us([2, 4, 4], MiB, 45e9, 1e-6, 0.5e-6, 1, 0.0, 2, [False, True, True]), 31 * MiB / (4 * 45e9) * 1e6)
print("lab bound: ok")
