#!/bin/sh
# overhead.sh: how much does `run` add to the round trip it measures?
#
# In one invocation, with the same CPU placement for both, it measures the
# median (p50) 16-byte TCP round trip of `run` (interprocess_reliable_tcp,
# pinger and echo process pinned with --cpus) and of the minimal C
# ping-pong in bench/pingpong.c (pinned with taskset), alternating ROUNDS
# times, and prints the ratio of the medians of the p50s (target <= 1.10).
# It also prints the in-process p50 half round trip (target < 1 us).
#
# Environment: CPUS="PINGER,ECHOER" placements to measure, space-separated
# (default "0,0 0,1": shared core, then across cores); INTRA_CPUS, the
# placement of the in-process measurement (default 0,1); SAMPLES (20000);
# ROUNDS (3); RUN (a prebuilt run binary; default: go build ./cmd/run).
set -eu

cd "$(dirname "$0")/.."
CPUS=${CPUS:-"0,0 0,1"}
SAMPLES=${SAMPLES:-20000}
ROUNDS=${ROUNDS:-3}
WARMUP=$((SAMPLES / 10))
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM

gcc -O2 -Wall -Wextra -o "$TMP/pingpong" bench/pingpong.c
go build -o "$TMP/gopingpong" ./bench/gopingpong
if [ -z "${RUN:-}" ]; then
	go build -o "$TMP/run" ./cmd/run
	RUN=$TMP/run
fi

# p50 of the Latency column of a raw file, in ns, numpy's median.
p50ns() {
	tail -n +2 "$1" | cut -d, -f3 | sort -g | awk '{ x[NR] = $1 } END {
		m = (NR % 2) ? x[(NR + 1) / 2] : (x[NR / 2] + x[NR / 2 + 1]) / 2
		printf "%.0f\n", m * 1000 }'
}

# median of the numbers on standard input
median() {
	sort -g | awk '{ x[NR] = $1 } END { printf "%.0f\n", (NR % 2) ? x[(NR + 1) / 2] : (x[NR / 2] + x[NR / 2 + 1]) / 2 }'
}

run_tcp() { # CPUS NAME
	"$RUN" -q -s interprocess_reliable_tcp --payloads 16 --samples "$SAMPLES" --warmup "$WARMUP" \
		--latency rtt --cpus "$1" --out "$TMP/results" --name "$2"
	p50ns "$TMP/results/$2/measurements_interprocess_reliable_tcp.csv"
}

c_tcp() { # PINGER_CPU ECHOER_CPU CLIENT
	rm -f "$TMP/port"
	taskset -c "$2" "$TMP/pingpong" server >"$TMP/port" &
	server=$!
	while [ ! -s "$TMP/port" ]; do sleep 0.01; done
	port=$(head -n 1 "$TMP/port")
	if [ "$3" = go ]; then
		taskset -c "$1" "$TMP/gopingpong" "$port" "$SAMPLES" 16 "$WARMUP"
	else
		taskset -c "$1" "$TMP/pingpong" client 127.0.0.1 "$port" "$SAMPLES" 16 "$WARMUP"
	fi
	wait "$server"
}

echo "16-byte TCP round trip, p50 over $SAMPLES samples, median of $ROUNDS alternating rounds"
echo "(Go floor: the C client rewritten in Go, blocking syscalls on a locked thread, no transport or engine)"
printf '%-10s %12s %12s %8s %14s\n' "cpus" "run [ns]" "C [ns]" "ratio" "Go floor [ns]"
status=0
for placement in $CPUS; do
	pinger=${placement%,*}
	echoer=${placement#*,}
	: >"$TMP/go" && : >"$TMP/c" && : >"$TMP/floor"
	for i in $(seq "$ROUNDS"); do
		run_tcp "$placement" "tcp-$pinger-$echoer-$i" >>"$TMP/go"
		c_tcp "$pinger" "$echoer" c >>"$TMP/c"
		c_tcp "$pinger" "$echoer" go >>"$TMP/floor"
	done
	go=$(median <"$TMP/go")
	c=$(median <"$TMP/c")
	floor=$(median <"$TMP/floor")
	ratio=$(awk -v a="$go" -v b="$c" 'BEGIN { printf "%.3f", a / b }')
	verdict=$(awk -v r="$ratio" 'BEGIN { print (r <= 1.10) ? "ok" : "ABOVE TARGET" }')
	[ "$verdict" = ok ] || status=1
	printf '%-10s %12s %12s %8s %14s  %s (target <= 1.10)\n' "$placement" "$go" "$c" "$ratio" "$floor" "$verdict"
	printf '           rounds: run %s| C %s| Go floor %s\n' "$(tr '\n' ' ' <"$TMP/go")" "$(tr '\n' ' ' <"$TMP/c")" "$(tr '\n' ' ' <"$TMP/floor")"
done

first=${INTRA_CPUS:-0,1}
"$RUN" -q -s intraprocess_reliable --payloads 16 --samples "$SAMPLES" --warmup "$WARMUP" \
	--cpus "$first" --out "$TMP/results" --name intra
intra=$(p50ns "$TMP/results/intra/measurements_intraprocess_reliable.csv")
verdict=$(awk -v n="$intra" 'BEGIN { print (n < 1000) ? "ok" : "ABOVE TARGET" }')
[ "$verdict" = ok ] || status=1
printf 'intraprocess p50 half round trip (cpus %s): %s ns  %s (target < 1000 ns)\n' "$first" "$intra" "$verdict"
exit $status
