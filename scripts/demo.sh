#!/usr/bin/env bash
# The demo: measures the ten built-in sub-experiments on this machine (no
# broker needed), then summarises and plots them, and prints where the
# results are. About half a minute with the default 5,000 samples per payload.
set -euo pipefail
cd "$(dirname "$0")/.."
samples=${SAMPLES:-5000}
name=$(date -u +%Y-%m-%d_%H-%M-%S)
root=demo-results
exp="$root/$name"
echo "== run: 10 sub-experiments x 11 payloads x $samples samples"
bin/run --samples "$samples" --warmup $((samples / 10)) --out "$root" --name "$name"
echo
echo "== process"
bin/process --html "$exp/report.html" "$exp"
echo
echo "Results:  $exp/"
echo "  raw samples   $exp/measurements_<type>.csv, $exp/meta.json"
echo "  summaries     $exp/measurements_<type>_summary.csv"
echo "  plots         $exp/plots/"
echo "  report        $exp/report.html (one self-contained page)"
