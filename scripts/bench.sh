#!/usr/bin/env bash
# Every speed figure of the project, each against its target, measured now
# on this machine. Targets are for a 2-core machine; a busy machine is slower.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== process (10 sub-experiments x 11 payloads x 10,000 samples)"
bash scripts/bench-process.sh
