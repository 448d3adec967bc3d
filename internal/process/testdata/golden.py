"""Writes the process golden cases: golden/<case>/measurements_<case>.csv and
the summary the Fast-RTPS script logic computes for it with numpy and pandas'
legacy parser (golden/<case>/want_summary.csv).

Run from this directory with Debian python3-numpy and python3-pandas; the Go
tests read only the files.
"""
import os
import numpy as np
import pandas

rng = np.random.default_rng(2026)


def lat(n, decimals=3):
    x = rng.lognormal(2.3, 0.3, n) + (rng.random(n) < 0.02) * rng.uniform(30, 120, n)
    return [f"{v:.{decimals}f}" for v in x]


cases = {
    "n1": {16: ["12.345"]},
    "n2": {16: ["12.345", "7.5"]},
    "even": {64: lat(1000)},
    "odd": {64: lat(1001)},
    "ties": {32: ["5.000"] * 6 + ["7.250"] * 6 + ["5.000", "9.5"]},
    "long_decimals": {16: lat(257, decimals=9)},
    "one_payload": {1024: lat(5000, decimals=4)},
    "eleven_payloads": {16 << i: lat(300 + 37 * i, decimals=(3 + i % 3)) for i in range(11)},
    "interleaved": None,  # payloads not contiguous: rows of 16 and 32 alternate
}


def summarise(path, out):
    raw = pandas.read_csv(path, float_precision="legacy")
    lines = ["Bytes,Samples,Max,Min,Mean,Median,Stdev,Mean jitter,Max jitter,90%,99%,99.99%"]
    for payload in raw["Payload [Bytes]"].unique():
        s = raw[raw["Payload [Bytes]"] == payload].reset_index(drop=True)["Latency [us]"]
        j = [abs(s[i] - s[i - 1]) for i in range(1, len(s))]
        x = s.to_list()
        mj = np.mean(j) if j else float("nan")
        xj = np.max(j) if j else float("nan")
        lines.append("{},{},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f}".format(
            payload, len(x), np.max(x), np.min(x), np.mean(x), np.median(x), np.std(x), mj, xj,
            np.percentile(x, 90), np.percentile(x, 99), np.percentile(x, 99.99)))
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


for name, data in cases.items():
    d = os.path.join("golden", name)
    os.makedirs(d, exist_ok=True)
    rows = []
    if data is None:
        a, b = lat(40), lat(25)
        for i in range(max(len(a), len(b))):
            if i < len(a):
                rows.append((i + 1, 16, a[i]))
            if i < len(b):
                rows.append((i + 1, 32, b[i]))
    else:
        for payload, values in data.items():
            rows += [(i + 1, payload, v) for i, v in enumerate(values)]
    raw = os.path.join(d, f"measurements_{name}.csv")
    with open(raw, "w") as f:
        f.write("Sample,Payload [Bytes],Latency [us]\n")
        f.writelines(f"{s},{p},{v}\n" for s, p, v in rows)
    summarise(raw, os.path.join(d, "want_summary.csv"))
