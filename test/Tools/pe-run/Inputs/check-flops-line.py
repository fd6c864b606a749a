#!/usr/bin/env python3
"""Usage: check-flops-line.py FLOPS < pe-run-output

Checks the numbers of the `pe-run: time` and `pe-run: flops` lines of one
`pe-run --repeat=1 --flops=FLOPS` run against each other: with one call the
medians are that call's values, so call_gflops must be FLOPS / median_ms and
peak_fraction must be call_gflops / peak_gflops (both to the printed
precision), and the peak must be a rate a CPU can have. Exits 1 with the
reason otherwise."""

import re
import sys

flops = float(sys.argv[1])
text = sys.stdin.read()
time_line = re.search(r"^pe-run: time .*median_ms=([0-9.]+)$", text, re.M)
flops_line = re.search(r"^pe-run: flops .*$", text, re.M)
if not time_line or not flops_line:
    sys.exit("check-flops-line: missing the time or the flops line in:\n" + text)
kv = dict(re.findall(r"(\w+)=([^ ]+)", flops_line.group(0)))
median_ms = float(time_line.group(1))
call, peak, frac = (float(kv[k]) for k in
                    ("call_gflops", "peak_gflops", "peak_fraction"))
errors = []
if float(kv["flops"]) != flops:
    errors.append(f"flops={kv['flops']}, expected {flops:.0f}")
want_call = flops / (median_ms * 1e-3) * 1e-9
# Rounding: median_ms to 1e-6 ms, call_gflops to 0.01.
if abs(call - want_call) > 0.006 + want_call * 2e-6 / median_ms:
    errors.append(f"call_gflops={call}, expected {want_call:.3f} = flops / median_ms")
if not 0.1 <= peak <= 1e6:
    errors.append(f"peak_gflops={peak} is not a CPU's FP32 rate (0.1 to 1e6 GFLOP/s)")
want_frac = call / peak
# Rounding: peak_fraction to 0.001, call_gflops and peak_gflops to 0.01.
if abs(frac - want_frac) > 0.00051 + want_frac * (0.0051 / call + 0.0051 / peak):
    errors.append(f"peak_fraction={frac}, expected {want_frac:.4f} = call_gflops / peak_gflops")
if errors:
    sys.exit("check-flops-line: " + "; ".join(errors) + "\n" + text)
print("check-flops-line: consistent")
