# Reference values for trend_test.go: scipy 1.10's kendalltau of the run
# index against the values (Mann-Kendall's S is its concordant minus
# discordant pairs) and theilslopes' slope (Sen's slope).
#   /usr/bin/python3 trend_reference.py > trend_reference.json
import json
import numpy as np
from scipy import stats

rng = np.random.default_rng(21)
cases = []
def add(name, x):
    x = [float(v) for v in x]
    n = len(x)
    t = stats.kendalltau(np.arange(n), x)
    s = sum(np.sign(x[j] - x[i]) for i in range(n) for j in range(i + 1, n))
    cases.append({"name": name, "x": x, "tau": float(t.statistic), "p": float(t.pvalue), "s": int(s),
                  "slope": float(stats.theilslopes(x, np.arange(n)).slope)})

add("no trend, 12 runs", np.round(100 + rng.normal(size=12), 4))
add("drift, 20 runs", np.round(100 + 0.3 * np.arange(20) + rng.normal(size=20), 4))
add("no trend, 40 runs (asymptotic)", np.round(100 + rng.normal(size=40), 4))
add("ties, 25 runs", np.round(100 + 0.1 * np.arange(25) + rng.normal(size=25)))
add("monotone, 50 runs (exact beyond 33)", 100 + np.arange(50) * 0.5)
add("one swap, 45 runs", np.r_[np.arange(10), 11, 10, np.arange(12, 45)])
add("downward, 8 runs", [9, 8, 8.5, 7, 6, 6.2, 5, 4])
add("three runs", [1.0, 3.0, 2.0])
print(json.dumps(cases, indent=1))
