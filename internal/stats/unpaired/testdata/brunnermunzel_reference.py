# Reference values for unpaired_test.go: scipy 1.10's brunnermunzel with the
# t distribution; "p" is alternative="less" (y stochastically larger than x),
# "p2" two-sided.
#   /usr/bin/python3 brunnermunzel_reference.py > brunnermunzel_reference.json
import json
import numpy as np
from scipy import stats

rng = np.random.default_rng(22)
cases = []
def add(name, x, y):
    x, y = [float(v) for v in x], [float(v) for v in y]
    less = stats.brunnermunzel(x, y, alternative="less")
    two = stats.brunnermunzel(x, y)
    # P(X < Y) + P(X = Y)/2 by brute force
    eff = np.mean([(a < b) + 0.5 * (a == b) for a in x for b in y])
    cases.append({"name": name, "x": x, "y": y, "w": float(less.statistic), "p": float(less.pvalue),
                  "p2": float(two.pvalue), "effect": float(eff)})

add("scipy's example", [1, 2, 1, 1, 1, 1, 1, 1, 1, 1, 2, 4, 1, 1], [3, 3, 4, 3, 1, 2, 3, 1, 1, 5, 4])
add("unequal spread, 5 vs 20", np.round(100 * np.exp(0.05 * rng.normal(size=5)), 3),
    np.round(100 * np.exp(0.30 * rng.normal(size=20)), 3))
add("shift, 10 vs 12", np.round(rng.normal(size=10), 3), np.round(0.8 + rng.normal(size=12), 3))
add("y lower, 8 vs 8", np.round(1 + rng.normal(size=8), 3), np.round(rng.normal(size=8), 3))
print(json.dumps(cases, indent=1))
