# Computes the scipy reference values for internal/requirements tests.
import numpy as np, pandas as pd, json
from scipy import stats
from math import comb
out = {}
# Shapiro–Wilk samples
rng = np.random.default_rng(20261123)
samples = [[1,2,4],[3.1,2.2,9.5],[1,2,3,10],[2.1,3.4,1.9,5.6,2.2],[0.5,0.7,0.2,1.9,1.1,0.9],
           list(np.round(rng.lognormal(1, 0.3, 8),4)), list(np.round(rng.normal(10, 2, 11),4)),
           list(np.round(rng.normal(10, 2, 12),4)), list(np.round(rng.exponential(1, 20),4)),
           list(np.round(rng.normal(0, 1, 50),4)), list(np.round(rng.uniform(0, 1, 200),4))]
out["shapiro"] = [{"x": [float(v) for v in s], "w": float(stats.shapiro(s).statistic), "p": float(stats.shapiro(s).pvalue)} for s in samples]
# t quantiles and log-normal prediction limits
out["t"] = [{"df": df, "p": p, "q": float(stats.t.ppf(p, df))} for df in [1,2,5,9,11,19,40] for p in [0.95, 0.99, 1-0.01/66, 1-1e-6]]
lim = []
for (mean, sd, n, k, level) in [(1.0, 0.2, 6, 1, 0.01/66), (2.5, 0.05, 10, 6, 0.01/66), (0.3, 1.2, 12, 3, 0.001), (3.0, 0.1, 3, 10, 0.05)]:
    lim.append({"mean": mean, "sd": sd, "n": n, "k": k, "level": level,
                "limit": float(np.exp(mean + stats.t.ppf(1-level, n-1)*sd*np.sqrt(1/n+1/k)))})
out["lognormal_limit"] = lim
out["order_chance"] = [{"n": n, "k": k, "r": r, "p": comb(k, r)/comb(n+k, r)} for n, k, r in [(6,1,1),(6,6,6),(6,10,10),(12,6,6),(12,6,5),(10,10,7),(5,3,0)]]
# statistical derivation of observations.csv, lognormal method, normality level 0.05
obs = pd.read_csv("observations.csv")
groups = sorted(obs.groupby(["Type","Bytes"]), key=lambda g: g[0])
m = 3*len(groups); level = 0.01/m
rows = []
for (typ, b), g in groups:
    row = {"type": typ, "bytes": int(b), "n": len(g)}
    for col in ["Median","P99","Max"]:
        x = g[col].to_numpy(); y = np.log(x); n = len(x)
        p = float(stats.shapiro(y).pvalue)
        if p < 0.05:
            method, limit = "order", float(x.max())
        else:
            method, limit = "lognormal", float(np.exp(y.mean() + stats.t.ppf(1-level, n-1)*y.std(ddof=1)*np.sqrt(1+1/n)))
        row[col] = {"method": method, "limit": limit, "sd": float(y.std(ddof=1)), "p": p}
    rows.append(row)
out["derive_lognormal"] = {"level": level, "rows": rows}
# judge: a log-normal row, k candidate runs: k-run limit, p and interval
j = []
for (mean, sd, n, cand, margin) in [(2.0, 0.1, 10, [7.9, 8.1, 7.7, 8.4], 0.0), (2.0, 0.1, 10, [10.9, 11.4, 12.0], 0.0), (2.0, 0.1, 10, [9.0, 10.5, 8.8, 9.9, 10.2, 9.4], 0.05), (2.0, 0.1, 10, [8.2], 0.0)]:
    t = stats.t.ppf(1-level, n-1)
    limit1 = np.exp(mean + t*sd*np.sqrt(1+1/n))
    k = len(cand); y = np.log(cand)
    req = np.exp(mean + t*sd*np.sqrt(1/n+1/k))
    z = (y.mean() - np.log(1+margin) - mean)/(sd*np.sqrt(1/n+1/k))
    sc = y.std(ddof=1) if k > 1 else float("nan")
    sp = np.sqrt(((n-1)*sd**2 + (k-1)*sc**2)/(n+k-2)) if k > 1 else sd
    h = stats.t.ppf(1-level, n+k-2)*sp/np.sqrt(k) if k > 1 else float("nan")
    j.append({"limit1": float(round(limit1, 3)), "sd": sd, "n": n, "values": cand, "margin": margin,
              "requirement": float(np.exp(np.log(round(limit1,3)) - t*sd*np.sqrt(1+1/n) + t*sd*np.sqrt(1/n+1/k))),
              "gmean": float(np.exp(y.mean())),
              "p": float(stats.t.sf((y.mean()-np.log(1+margin)-(np.log(round(limit1,3)) - t*sd*np.sqrt(1+1/n)))/(sd*np.sqrt(1/n+1/k)), n-1)),
              "low": float(np.exp(y.mean()-h)), "high": float(np.exp(y.mean()+h))})
out["judge_lognormal"] = {"level": level, "cases": j}
json.dump(out, open("scipy.json", "w"), indent=1)
print("ok")
