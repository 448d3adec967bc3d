#!/usr/bin/env bash
# Every speed figure of the project against its target, measured now on this
# machine (targets are for a 2-core machine; a busy machine is slower). A
# missed target is reported and the next benchmark still runs; the script
# exits 1 if any target was missed.
set -uo pipefail
cd "$(dirname "$0")/.."
missed=0

echo "== process: 10 sub-experiments x 11 payloads x 10,000 samples"
bash scripts/bench-process.sh || missed=1

echo
echo "== history: 40 and 1,000 experiments x 10 sub-experiments x 11 payloads, every plot"
go run ./internal/history/bench -n 40,1000 -strict || missed=1

echo
echo "== run: overhead against a minimal C ping-pong (needs gcc and taskset)"
bash bench/overhead.sh || missed=1

echo
echo "== Go benchmarks of the hot paths"
go test -run '^$' -bench . -benchtime 20x ./internal/stats ./internal/measurements ./internal/process | grep -E '^Benchmark'
go test -run '^$' -bench 'PNG|ExperimentPlots' -benchtime 5x ./internal/plots | grep -E '^Benchmark'
go test -run '^$' -bench 'Render' -benchtime 5x ./internal/htmlreport | grep -E '^Benchmark'

exit "$missed"
