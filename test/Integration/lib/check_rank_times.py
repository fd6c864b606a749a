#!/usr/bin/env python3
"""Checks the timing lines of pe-run --ranks=N --repeat=R.

Usage: check_rank_times.py N R < pe-run's output

A call takes as long as its slowest rank, so the summary line's times (the
minimum and median over the calls of the slowest rank's time) are at least
each rank's own minimum and median. Prints "check_rank_times: PASS" or the
reason it fails.
"""

import re
import sys

ranks, runs = int(sys.argv[1]), int(sys.argv[2])
per_rank, summary = {}, None
for line in sys.stdin:
    m = re.match(r"pe-run: time rank=(\d+) runs=(\d+) min_ms=(\S+) "
                 r"median_ms=(\S+)$", line.strip())
    if m:
        per_rank[int(m[1])] = (int(m[2]), float(m[3]), float(m[4]))
    m = re.match(r"pe-run: time pipeline=shard ranks=(\d+) runs=(\d+) "
                 r"min_ms=(\S+) median_ms=(\S+) slowest_rank=(\d+)$",
                 line.strip())
    if m:
        summary = tuple(int(m[i]) for i in (1, 2)) + (float(m[3]),
                                                      float(m[4]), int(m[5]))
problems = []
if sorted(per_rank) != list(range(ranks)):
    problems.append(f"rank lines for {sorted(per_rank)}, expected 0..{ranks - 1}")
if summary is None:
    problems.append("no summary line")
else:
    n, r, lo, med, slow = summary
    if (n, r) != (ranks, runs) or not 0 <= slow < ranks:
        problems.append(f"summary {summary}")
    for rank, (rr, rlo, rmed) in per_rank.items():
        if rr != runs:
            problems.append(f"rank {rank}: runs={rr}")
        if lo < rlo or med < rmed:
            problems.append(f"summary min/median {lo}/{med} below rank "
                            f"{rank}'s {rlo}/{rmed}")
        if rlo <= 0:
            problems.append(f"rank {rank}: min_ms={rlo}")
print("check_rank_times: " + ("; ".join(problems) if problems else "PASS"))
sys.exit(1 if problems else 0)
