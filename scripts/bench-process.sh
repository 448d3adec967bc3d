#!/usr/bin/env bash
# Times process on a generated experiment of 10 sub-experiments x 11 payloads
# x 10,000 samples (1.1 M samples): summaries only, then everything with all
# 224 plots. Targets on a 2-core machine: < 0.2 s and < 3 s.
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/process ./cmd/process
go build -o bin/synthgen ./tools/synthgen
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin/synthgen -out "$work/exp" -samples 10000 -seed 1
best() { # best wall time of 3 runs of "$@", in seconds
  local best=999
  for _ in 1 2 3; do
    local s e
    s=$(date +%s.%N); "$@" >/dev/null; e=$(date +%s.%N)
    best=$(awk -v a="$best" -v b="$(awk -v s="$s" -v e="$e" 'BEGIN{print e-s}')" 'BEGIN{print (b<a)?b:a}')
  done
  echo "$best"
}
summ=$(best bin/process --no-plots "$work/exp")
full=$(best bin/process "$work/exp")
plots=$(find "$work/exp/plots" -name '*.png' | wc -l)
printf 'process --no-plots  1.1 M samples:           %6.3f s  (target < 0.2 s, ratio %.2f)\n' "$summ" "$(awk -v a="$summ" 'BEGIN{print a/0.2}')"
printf 'process (all %d plots) 1.1 M samples:       %6.3f s  (target < 3 s, ratio %.2f)\n' "$plots" "$full" "$(awk -v a="$full" 'BEGIN{print a/3}')"
awk -v s="$summ" -v f="$full" 'BEGIN{exit !(s < 0.2 && f < 3)}' || { echo "process: target missed"; exit 1; }
