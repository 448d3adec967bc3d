#!/usr/bin/env bash
# calibrate-gates.sh: measure on this machine what the statistical gates do
# (formats §4, §8, §11). It runs RUNS interleaved pairs of runs (run ab): an
# unchanged system, and the same system with an echo delay (a known, real
# regression; by default 10 % of the median round trip of
# interprocess_reliable_tcp, measured by a pilot run), then calibrates
#   compare --calibrate                        on the unchanged runs, and
#   requirements --calibrate --regressed DIR   (statistical requirements and
#                                              a multi-run check) on them,
# with N reference (baseline) and K candidate runs per split, writing text,
# JSON and plots under OUT/calibration.
#
#   scripts/calibrate-gates.sh                       # 20 pairs, 10/10
#   RUNS=40 N=10 K=10 OUT=/tmp/cal scripts/calibrate-gates.sh
#   DELAY=2us SUBEXPERIMENTS=interprocess_reliable_tcp scripts/calibrate-gates.sh
#
# Environment: RUNS (pairs, default 20), N and K (default RUNS/2 each),
# SUBEXPERIMENTS (default intraprocess_reliable,interprocess_reliable_tcp),
# PAYLOADS (16..16384), SAMPLES (2000), WARMUP (500), DELAY (default: 10 % of
# the pilot's median round trip), METHOD (order), SPLITS (1000), OUT
# (default calibration-<UTC time>). Runs are slow on a loaded machine:
# several seconds each; the calibrations take seconds.
set -euo pipefail

RUNS=${RUNS:-20}
N=${N:-$((RUNS / 2))}
K=${K:-$((RUNS / 2))}
SUBEXPERIMENTS=${SUBEXPERIMENTS:-intraprocess_reliable,interprocess_reliable_tcp}
PAYLOADS=${PAYLOADS:-16..16384}
SAMPLES=${SAMPLES:-2000}
WARMUP=${WARMUP:-500}
METHOD=${METHOD:-order}
SPLITS=${SPLITS:-1000}
OUT=${OUT:-calibration-$(date -u +%Y-%m-%d_%H-%M-%S)}

root=$(cd "$(dirname "$0")/.." && pwd)
bin="$OUT/bin"
mkdir -p "$bin"
(cd "$root" && go build -o "$(cd "$OUT" && pwd)/bin/" ./cmd/run ./cmd/process ./cmd/compare ./cmd/requirements)

if [ -z "${DELAY:-}" ]; then
	# The pilot's median round trip: twice the median half round trip of
	# interprocess_reliable_tcp over its payloads (the median of the
	# Median column).
	"$bin/run" -q -o "$OUT/pilot" --name pilot -s interprocess_reliable_tcp --payloads "$PAYLOADS" \
		--samples "$SAMPLES" --warmup "$WARMUP" >/dev/null
	"$bin/process" --no-plots "$OUT/pilot/pilot" >/dev/null
	median=$(awk -F, 'NR > 1 { print $6 }' "$OUT/pilot/pilot/measurements_interprocess_reliable_tcp_summary.csv" | sort -g |
		awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
	# 10 % of the round trip (2 × the half round trip), in nanoseconds.
	DELAY=$(awk -v m="$median" 'BEGIN { printf "%dns", 0.2 * m * 1000 }')
	echo "pilot: median round trip $(awk -v m="$median" 'BEGIN { printf "%.2f", 2 * m }') us; echo delay $DELAY (10 %)"
fi

echo "measuring $RUNS unchanged and $RUNS delayed ($DELAY) runs, interleaved, into $OUT/ab"
"$bin/run" ab --runs "$RUNS" --out "$OUT/ab" --name run --candidate "--echo-delay $DELAY" -- \
	-q -s "$SUBEXPERIMENTS" --payloads "$PAYLOADS" --samples "$SAMPLES" --warmup "$WARMUP"
for d in "$OUT"/ab/*/run-*; do
	"$bin/process" --no-plots "$d" >/dev/null
done

cal="$OUT/calibration"
mkdir -p "$cal"
echo
echo "== compare --calibrate ($N per side)"
"$bin/compare" --calibrate --results "$OUT/ab/reference" --runs-per-side "$N" --splits "$SPLITS" \
	--thresholds 0.05,0.1,0.2,0.5,1 --plots-directory "$cal/compare" --json "$cal/compare.json" | tee "$cal/compare.txt"
echo
echo "== requirements --calibrate --method $METHOD ($N baseline, $K candidate runs; regression: --echo-delay $DELAY)"
"$bin/requirements" --calibrate -e "$OUT/ab/reference" --regressed "$OUT/ab/candidate" --method "$METHOD" \
	--reference-runs "$N" --candidate-runs "$K" --splits "$SPLITS" --margins 0,0.05,0.1,0.2 \
	--plots-directory "$cal/check" --json "$cal/check.json" | tee "$cal/check.txt"
