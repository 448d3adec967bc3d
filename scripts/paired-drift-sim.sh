#!/bin/sh
# Simulates the paired and unpaired compare gates on interleaved A/B runs of a
# machine that drifts (2 % per run, common to both sides), without drift, and
# with the baseline runs taken before the candidate runs (0.5 % per run), and
# prints how often each passes, fails and is inconclusive.
# Usage: scripts/paired-drift-sim.sh [REPEATS]   (default 1000)
set -eu
cd "$(dirname "$0")/.."
MQGATE_SIM_REPEATS="${1:-1000}" go test -count=1 -timeout 3h -run 'TestSimPairedCancelsDrift$' -v ./internal/compare |
	grep -E 'pass +[0-9]+, fail'
