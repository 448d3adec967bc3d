"""Reference values for the gate model's golden tests (mannwhitney_reference.json).

Independent of the Go code: one-sided p-values from scipy.stats.mannwhitneyu
(exact without ties, asymptotic with tie and continuity correction for large
samples), a brute-force permutation p-value for small samples with ties, the
Hodges-Lehmann shift of the log values, and the interval ranks from the null
distribution of U counted as the coefficients of the Gaussian binomial
[n1+n2 choose n1]_q. Run with python3 (scipy 1.10) and commit the output.
"""
import itertools
import json
import math

import numpy as np
from scipy.stats import mannwhitneyu, rankdata


def u_counts(n1, n2):
    # Coefficients of the q-binomial coefficient [n1+n2 choose n1]_q:
    # counts[u] = number of arrangements with U = u.
    # Product formula prod_{i=1..n1} (1 - q^(n2+i)) / (1 - q^i), by polynomials.
    poly = [1]
    for i in range(1, n1 + 1):
        # multiply by (1 - q^(n2+i))
        m = n2 + i
        new = poly + [0] * m
        for j, c in enumerate(poly):
            new[j + m] -= c
        poly = new
        # divide by (1 - q^i): running sum with stride i
        for j in range(i, len(poly)):
            poly[j] += poly[j - i]
    poly = poly[: n1 * n2 + 1]
    assert sum(poly) == math.comb(n1 + n2, n1)
    return poly


def interval_rank(n1, n2, tail):
    counts = u_counts(n1, n2)
    total = math.comb(n1 + n2, n1)
    k, cum = 0, 0
    for u in range(n1 * n2 + 1):
        cum += counts[u]
        if cum / total <= tail:
            k = u + 1
        else:
            break
    return k


def permutation_p(ref, cand):
    # Exact conditional P(U_cand >= observed) over all relabellings, midranks.
    allv = np.concatenate([ref, cand])
    ranks = rankdata(allv)
    n1, n2 = len(ref), len(cand)
    def u_cand(idx):
        return sum(ranks[list(idx)]) - n2 * (n2 + 1) / 2
    obs = u_cand(range(n1, n1 + n2))
    hits = total = 0
    for idx in itertools.combinations(range(n1 + n2), n2):
        total += 1
        if u_cand(idx) >= obs - 1e-9:
            hits += 1
    return hits / total


rng = np.random.default_rng(20261123)
cases = []
tails = [0.025, 0.005, 0.0005, 0.0001]
for name, n1, n2, shift, ties, method in [
    ("2v2", 2, 2, 0.0, False, "exact"),
    ("3v4", 3, 4, 0.3, False, "exact"),
    ("5v5 shifted", 5, 5, 0.4, False, "exact"),
    ("6v8", 6, 8, -0.1, False, "exact"),
    ("10v10 unchanged", 10, 10, 0.0, False, "exact"),
    ("10v10 +10%", 10, 10, 0.0953, False, "exact"),
    ("12v7", 12, 7, 0.2, False, "exact"),
    ("20v20 +5%", 20, 20, 0.0488, False, "exact"),
    ("5v6 ties", 5, 6, 0.1, True, "permutation"),
    ("7v7 ties", 7, 7, 0.05, True, "permutation"),
    ("60v60 asymptotic", 60, 60, 0.02, False, "asymptotic"),
    ("30v30 ties asymptotic", 30, 30, 0.03, True, "asymptotic"),
]:
    ref = np.round(np.exp(rng.normal(math.log(50), 0.1, n1)), 3)
    cand = np.round(np.exp(rng.normal(math.log(50) + shift, 0.1, n2)), 3)
    if ties:
        # coarse values so that runs tie, within and across sides
        ref = np.round(ref / 2) * 2
        cand = np.round(cand / 2) * 2
        assert len(set(np.concatenate([ref, cand]))) < n1 + n2
    else:
        assert len(set(np.concatenate([ref, cand]))) == n1 + n2
    if method == "exact":
        p = mannwhitneyu(cand, ref, alternative="greater", method="exact").pvalue
    elif method == "permutation":
        p = permutation_p(ref, cand)
    else:
        p = mannwhitneyu(cand, ref, alternative="greater", method="asymptotic", use_continuity=True).pvalue
    u = mannwhitneyu(cand, ref, alternative="greater", method="asymptotic").statistic
    d = np.sort(np.subtract.outer(np.log(cand), np.log(ref)).ravel())
    hl = float(np.exp(np.median(d)))
    intervals = []
    if n1 <= 50 and n2 <= 50:
        for t in tails:
            k = interval_rank(n1, n2, t)
            lo = float(np.exp(d[k - 1])) if k >= 1 else 0.0
            hi = float(np.exp(d[len(d) - k])) if k >= 1 else None
            intervals.append({"tail": t, "k": k, "low": lo, "high": hi})
    cases.append({"name": name, "reference": ref.tolist(), "candidate": cand.tolist(),
                  "method": method, "p": float(p), "u": float(u), "estimate": hl, "intervals": intervals})

print(json.dumps(cases, indent=1))
