#!/usr/bin/env bash
# The demo: processes the bundled real Fast-RTPS v1.9.2 experiment into
# demo-results/ and prints where the summaries and plots are.
set -euo pipefail
cd "$(dirname "$0")/.."
out=demo-results/fastrtps-v192
rm -rf demo-results
mkdir -p "$out"
cp testdata/fastrtps-v192/measurements_interprocess_reliable.csv "$out/"
bin/process "$out"
echo
echo "Summary:  $out/measurements_interprocess_reliable_summary.csv"
echo "Plots:    $out/plots/"
