#!/usr/bin/env bash
# The demo: measures the ten built-in sub-experiments on this machine, then
# NATS and MQTT on brokers started inside run (embedded nats-server and
# mochi-mqtt: nothing to install), summarises and plots both experiments,
# and prints where the results are. It builds the tools first, saying what
# it compiles: the first build compiles every dependency (5 to 10 minutes on
# a 2-core machine, said before it starts), later ones take seconds. Each run prints its progress
# and, per sub-experiment, a table of every payload.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
echo "== build: the six tools into bin/. A cold build (empty Go build cache) compiles about 560 packages: 5 to 10 minutes on 2 cores; later builds take seconds"
mkdir -p bin
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$SECONDS
$GO build -v -ldflags "${LDFLAGS:-}" -o bin/ ./cmd/... 2>"$log" &
pid=$!
while kill -0 "$pid" 2>/dev/null; do
	sleep 10
	if kill -0 "$pid" 2>/dev/null; then
		echo "   building: $(grep -c . "$log" || true) packages compiled, $((SECONDS - start)) s"
	fi
done
if ! wait "$pid"; then
	grep -v '^[a-z0-9.]*[./][^ ]*$' "$log" >&2 || cat "$log" >&2
	exit 1
fi
echo "   built in $((SECONDS - start)) s ($(grep -c . "$log" || true) packages compiled)"
samples=${SAMPLES:-5000}
name=$(date -u +%Y-%m-%d_%H-%M-%S)
root=demo-results
exp="$root/$name"
brokers="$root/${name}_brokers"
echo "== run: 10 built-in sub-experiments x 11 payloads x $samples samples"
bin/run --samples "$samples" --warmup $((samples / 10)) --out "$root" --name "$name"
echo
echo "== run: NATS and MQTT on embedded brokers x 11 payloads x $samples samples"
bin/run -s nats_best_effort,nats_reliable,mqtt_best_effort,mqtt_reliable --broker embedded \
	--samples "$samples" --warmup $((samples / 10)) --out "$root" --name "${name}_brokers"
echo
echo "== process"
bin/process --html "$exp/report.html" "$exp"
bin/process --html "$brokers/report.html" "$brokers"
echo
for e in "$exp" "$brokers"; do
	echo "Results:  $e/"
	echo "  raw samples   $e/measurements_<type>.csv, $e/meta.json"
	echo "  summaries     $e/measurements_<type>_summary.csv"
	echo "  plots         $e/plots/"
	echo "  report        $e/report.html (one self-contained page)"
done
