"""Writes numpy_reference.json: inputs and numpy's results, bit for bit.

Run with Debian's python3-numpy to regenerate; the tests read only the JSON.
"""
import json
import numpy as np

rng = np.random.default_rng(20261121)
cases = []
sizes = [1, 2, 3, 7, 8, 9, 15, 16, 17, 127, 128, 129, 255, 256, 257, 1000, 1001, 8191, 8192, 8193, 10000, 20001]
for n in sizes:
    # Latency-like data: a lognormal body with spikes, rounded to ns like real files.
    x = np.round(rng.lognormal(2.5, 0.4, n) + (rng.random(n) < 0.01) * rng.uniform(50, 150, n), 4)
    cases.append(x)
cases.append(np.array([5.0, 5.0, 5.0, 5.0]))                      # ties
cases.append(np.array([1.0000001, 2.123456789, 3.987654321]))       # long decimals
cases.append(np.array([0.1] * 11 + [0.2] * 9))                      # even n, ties at the middle
out = []
for x in cases:
    j = np.abs(np.diff(x)) if len(x) > 1 else np.array([])
    r = {
        "x": [repr(float(v)) for v in x],
        "sum": float(np.sum(x)).hex(),
        "mean": float(np.mean(x)).hex(),
        "std": float(np.std(x)).hex(),
        "median": float(np.median(x)).hex(),
        "p90": float(np.percentile(x, 90)).hex(),
        "p99": float(np.percentile(x, 99)).hex(),
        "p9999": float(np.percentile(x, 99.99)).hex(),
        "p50": float(np.percentile(x, 50)).hex(),
        "p0": float(np.percentile(x, 0)).hex(),
        "p100": float(np.percentile(x, 100)).hex(),
        "p33": float(np.percentile(x, 33.3)).hex(),
        "mean_jitter": float(np.mean(j)).hex() if len(j) else None,
        "max_jitter": float(np.max(j)).hex() if len(j) else None,
    }
    out.append(r)
with open("numpy_reference.json", "w") as f:
    json.dump({"numpy": np.__version__, "cases": out}, f, indent=0)
