"""paired_spread.py — is one program's run-to-run spread larger than another's, timed in the same rounds?

A point comparison of two coefficients of variation from ten rounds is a coin toss when both
programs share one noisy host: the CV's own sampling error at n = 10 is about a quarter of it. The
rounds are paired (each round runs both sides back to back, so a host's slow minute slows both), and
the question is one-sided ("is ours MORE variable?"), so this is a paired permutation test on the
log of each side's figure: centre each side on its own mean, d_i = (x_i - mean x)^2 - (y_i - mean y)^2
for round i, and under equal spread swapping the two sides within a round (flipping d_i's sign) is as
likely as not. p_more = the share of the 2^n sign patterns whose sum is at least the observed one
(exact up to 16 rounds; above, a fixed-seed sample of 2^16 patterns). Logs, so a spread is relative
(a CV) whatever each side's speed.

What it deliberately does not do: correct for testing several configurations (each row is tested at
its own 5 %, which is stricter on "less steady" than a corrected threshold), or judge speed.
Standard library only: the bench tools run under Debian's /usr/bin/python3 without scipy.
"""
from __future__ import annotations

import itertools
import math
import random
import statistics
from dataclasses import dataclass

ALPHA = 0.05
EXACT_UP_TO = 16  # rounds: 2^16 sign patterns enumerated
SAMPLES = 1 << 16  # sign patterns drawn above that


@dataclass(frozen=True)
class SpreadTest:
    sd_ratio: float  # sd(log ours) / sd(log torch): above 1, ours spread more in these rounds
    p_more: float  # one-sided: ours more variable
    p_less: float  # one-sided: ours less variable
    verdict: str  # "less steady", "steadier", or "no difference shown"


def spread_test(ours: list[float], other: list[float]) -> SpreadTest:
    if len(ours) != len(other):
        raise ValueError(f"paired_spread: {len(ours)} figures of ours against {len(other)} of the other side")
    if len(ours) < 3:
        raise ValueError(f"paired_spread: {len(ours)} rounds (at least 3)")
    if min(ours + other) <= 0:
        raise ValueError("paired_spread: figures must be positive (they are logged)")
    x = [math.log(v) for v in ours]
    y = [math.log(v) for v in other]
    mx, my = statistics.fmean(x), statistics.fmean(y)
    d = [(a - mx) ** 2 - (b - my) ** 2 for a, b in zip(x, y)]
    observed = sum(d)
    # ties in floating point count as ties: tolerance on the scale of the squared deviations themselves
    eps = 1e-9 * (sum((a - mx) ** 2 + (b - my) ** 2 for a, b in zip(x, y)) + 1e-300)
    n = len(d)
    if n <= EXACT_UP_TO:
        patterns = itertools.product((1, -1), repeat=n)
        total = 1 << n
    else:
        rng = random.Random(20261128)
        patterns = ([rng.choice((1, -1)) for _ in range(n)] for _ in range(SAMPLES))
        total = SAMPLES
    ge = le = 0
    for signs in patterns:
        s = sum(si * di for si, di in zip(signs, d))
        ge += s >= observed - eps
        le += s <= observed + eps
    sx, sy = statistics.stdev(x), statistics.stdev(y)
    ratio = sx / sy if sy > 0 else math.inf if sx > 0 else 1.0
    p_more, p_less = ge / total, le / total
    verdict = "less steady" if p_more < ALPHA else "steadier" if p_less < ALPHA else "no difference shown"
    return SpreadTest(ratio, p_more, p_less, verdict)
