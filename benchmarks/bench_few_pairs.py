"""Where the few-pairs rule comes from: the power of D > 1 by pair count (issue 35).

For each pair count n from 1 to 30, the reference judge of :mod:`dhp.scoring.power` (85% of pairs
scored lower, ties half; differences of 1-3 points) is drawn 4,000 times (seeded) and one metric's
one-sided Wilcoxon test is run on each draw; the share with p < 0.05 (D > 1) is its power. Also
printed: the exact test's ceiling on D at n pairs (D <= log_0.05 2^-n = 0.2314 n, what any judge can
reach), and the median D of the reference judge (D grows with n at a fixed effect, the reason a D
from few pairs does not compare with one from many). The few-pairs rule, :data:`dhp.spec.MIN_PAIRS`,
is the fewest n from which the power stays >= 80%.

Run: ``PYTHONPATH=. python benchmarks/bench_few_pairs.py`` (about 10 s on the 2-core machine).
"""

from __future__ import annotations

import math
import time

import numpy as np

from dhp.scoring.power import min_pairs, power, reference_differences
from dhp.scoring.stats import discernment
from dhp.scoring.wilcoxon import wilcoxon_greater_batch
from dhp.spec import MIN_PAIRS


def main() -> None:
    t0 = time.perf_counter()
    print("| pairs | ceiling on D | P(D > 1), reference judge | median D, reference judge |")
    print("|---:|---:|---:|---:|")
    for n in (*range(1, 21), 23, 25, 27, 30):
        d = reference_differences(n, 4000, np.random.default_rng([0, n]))
        median = float(np.median(discernment(wilcoxon_greater_batch(d, np.zeros_like(d)))))
        ceiling = -n * math.log(2) / math.log(0.05)
        print(f"| {n} | {ceiling:.2f} | {power(n):.3f} | {median:.2f} |")
    derived = min_pairs()
    print(f"\nfewest pairs with power >= 0.80 from there on: {derived} (dhp.spec.MIN_PAIRS = {MIN_PAIRS})")
    print(f"took {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
