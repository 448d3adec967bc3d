# Reference values for paired_test.go, computed independently of the Go code
# with numpy 1.24 and scipy 1.10 (Debian bookworm):
#   /usr/bin/python3 paired_reference.py > paired_reference.json
# Sign-flip p-values: scipy.stats.permutation_test (paired samples, exact);
# Westfall-Young step-down max-T and the max-T simultaneous bounds at the
# default 5 % margins: brute force over every sign vector with numpy; signed-rank: scipy.stats.wilcoxon.
import itertools, json, math
import numpy as np
from scipy import stats

rng = np.random.default_rng(20261127)

def badness(a, b, higher, abba):
    d = np.log(b) - np.log(a)
    if abba:
        d = d.reshape(-1, 2).mean(axis=1)
    return -d if higher else d

def tstat(x):
    n = len(x)
    return x.mean() / (x.std(ddof=1) / math.sqrt(n))

def case(name, checks, abba, tail):
    bad = np.array([badness(np.array(c["A"]), np.array(c["B"]), c["higher"], abba) for c in checks])
    k, n = bad.shape
    signs = np.array(list(itertools.product([1.0, -1.0], repeat=n)))
    obs = np.array([tstat(x) for x in bad])
    # t statistics of every flip of the raw and of the centred log ratios
    raw = np.array([[tstat(s * x) for x in bad] for s in signs])
    # the max-T critical value of the log ratios less the margin (5 %)
    margin = math.log(1.05)
    shifted = np.array([[tstat(s * (x - margin)) for x in bad] for s in signs])
    maxima = np.sort(shifted.max(axis=1))
    crit = maxima[math.ceil((1 - tail) * len(maxima)) - 1]
    order = np.argsort(-obs, kind="stable")
    padj = np.zeros(k)
    running = 0.0
    for j, c in enumerate(order):
        u = raw[:, order[j:]].max(axis=1)
        running = max(running, np.mean(u >= obs[c] - 1e-9 * max(1, abs(obs[c]))))
        padj[c] = running
    out = {"name": name, "abba": abba, "tail": tail, "critical": crit, "checks": []}
    for i, c in enumerate(checks):
        x = bad[i]
        a, b = np.log(np.array(c["A"])), np.log(np.array(c["B"]))
        perm = stats.permutation_test((b, a) if not c["higher"] else (a, b),
                                      lambda u, v: np.mean(u - v) if not abba else np.mean(u - v),
                                      permutation_type="samples", alternative="greater",
                                      n_resamples=np.inf, vectorized=False) if not abba else None
        p_flip = np.mean(raw[:, i] >= obs[i] - 1e-9 * max(1, abs(obs[i])))
        if perm is not None:
            assert abs(perm.pvalue - p_flip) < 1e-12, (name, perm.pvalue, p_flip)
        se = x.std(ddof=1) / math.sqrt(n)
        lo, hi = x.mean() - crit * se, x.mean() + crit * se
        ratio = math.exp(-x.mean()) if c["higher"] else math.exp(x.mean())
        rlo, rhi = (math.exp(-hi), math.exp(-lo)) if c["higher"] else (math.exp(lo), math.exp(hi))
        ties = len(np.unique(np.abs(x[x != 0]))) < np.count_nonzero(x) or np.any(x == 0)
        w = stats.wilcoxon(x, alternative="greater", method="approx" if ties else "auto")
        out["checks"].append({**c, "ratio": ratio, "low": rlo, "high": rhi, "t": obs[i], "p": p_flip,
                              "padj": padj[i], "w": float(w.statistic), "wp": float(w.pvalue),
                              "wexact": bool(not ties and np.count_nonzero(x) <= 50)})
    return out

def pairs(n, k, shifts, spread, common):
    checks = []
    drift = np.exp(np.linspace(0, 0.1, n))
    z = rng.normal(size=n)
    for j in range(k):
        base = 100 * (j + 1) * drift
        e = common * z + math.sqrt(1 - common**2) * rng.normal(size=n)
        a = base * np.exp(spread * rng.normal(size=n))
        b = a * np.exp(shifts[j] + spread * e)
        checks.append({"name": f"c{j}", "A": [round(v, 6) for v in a], "B": [round(v, 6) for v in b], "higher": False})
    return checks

cases = []
cases.append(case("three checks, 10 pairs", pairs(10, 3, [0.0, 0.05, 0.12], 0.04, 0.6), False, 0.01))
cases.append(case("two checks, 7 pairs, correlated", pairs(7, 2, [0.02, 0.0], 0.05, 0.9), False, 0.05))
c = pairs(12, 4, [0.0, 0.0, 0.0, 0.0], 0.03, 0.3)
c[1]["higher"] = True
cases.append(case("four checks, 12 pairs, one higher-is-better", c, False, 0.01))
cases.append(case("ABBA, 8 blocks", pairs(16, 2, [0.08, -0.02], 0.05, 0.5), True, 0.025))
# ties and a zero in the log ratios: the signed-rank test's approximation
t = [{"name": "tied", "A": [100, 100, 100, 100, 100, 100, 100, 100, 100],
      "B": [110, 90, 110, 105, 100, 120, 95, 110, 130], "higher": False}]
cases.append(case("ties and a zero", t, False, 0.05))
print(json.dumps(cases, indent=1))
