#!/usr/bin/env bash
# sockperf-vs-run.sh: run's TCP round trip against sockperf's, the
# latency tool users know, in one invocation on one machine.
#
# For each CPU placement it alternates ROUNDS rounds of
#
#   sockperf sr --tcp  (the echo server, pinned with taskset to ECHOER)
#   sockperf pp --tcp -m SIZE -t TIME --full-rtt  (pinned to PINGER)
#   run -s interprocess_reliable_tcp --payloads SIZE --latency rtt --cpus PINGER,ECHOER
#
# and prints, for each side, the median over the rounds of its p50 and of
# its p99 and mean round trip, and run / sockperf for each (target: p50 <=
# 1.05 on one core, placement 0,0; the two-core placement is printed with
# no target). The mean is sockperf's headline ("Round trip is"); on one
# core its round trips fall in two modes, so that its mean and median
# differ, and both are shown. Like with like: both sides report whole round trips (sockperf
# halves them unless --full-rtt, run unless --latency rtt), of SIZE-byte
# messages (sockperf's -m is the whole message, as run's payload is),
# back to back over TCP on the loopback, one connection, Nagle off on
# both, after a warm-up (sockperf's 400 ms, run's WARMUP round trips).
# sockperf's p50, p99 and mean are its own "percentile 50.000", "99.000"
# and avg-rtt; run's are numpy's median and linear p99 of its raw file,
# and its mean.
# Rounds alternate the two so that whatever else the machine runs hits
# both; the load average at the start and the end is printed.
#
# Environment: CPUS="PINGER,ECHOER" placements, space-separated (default
# "0,0 0,1": one core, then across two); ROUNDS (5); SIZE (64); TIME
# (sockperf's seconds per round, 2); SAMPLES (run's round trips per round,
# 60000, about as many as sockperf measures in TIME on one core); RUN (a
# prebuilt run binary; default: go build ./cmd/run). Exits 1 when the
# one-core target is missed, 2 when sockperf or taskset is missing (the
# reason on standard output), else 0.
set -eu

cd "$(dirname "$0")/.."
CPUS=${CPUS:-"0,0 0,1"}
ROUNDS=${ROUNDS:-5}
SIZE=${SIZE:-64}
TIME=${TIME:-2}
SAMPLES=${SAMPLES:-60000}
WARMUP=$((SAMPLES / 10))
for tool in sockperf taskset; do
	if ! command -v "$tool" >/dev/null; then
		echo "$tool is not installed (apt-get install sockperf util-linux)"
		exit 2
	fi
done
TMP=$(mktemp -d)
server=
cleanup() {
	[ -z "$server" ] || kill "$server" 2>/dev/null || true
	rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

if [ -z "${RUN:-}" ]; then
	go build -o "$TMP/run" ./cmd/run
	RUN=$TMP/run
fi

# median of the numbers on standard input
median() {
	sort -g | awk '{ x[NR] = $1 } END { printf "%.3f\n", (NR % 2) ? x[(NR + 1) / 2] : (x[NR / 2] + x[NR / 2 + 1]) / 2 }'
}

# run_rtt CPUS NAME: "p50 p99 mean" of run's round trips in µs (numpy's
# median and linear percentile).
run_rtt() {
	"$RUN" -q -s interprocess_reliable_tcp --payloads "$SIZE" --samples "$SAMPLES" --warmup "$WARMUP" \
		--latency rtt --cpus "$1" --out "$TMP/results" --name "$2"
	tail -n +2 "$TMP/results/$2/measurements_interprocess_reliable_tcp.csv" | cut -d, -f3 | sort -g | awk '
		function q(p,   h, i) { h = (NR - 1) * p; i = int(h); return (i + 1 < NR) ? x[i + 1] + (h - i) * (x[i + 2] - x[i + 1]) : x[NR] }
		{ x[NR] = $1 }
		{ sum += $1 }
		END { printf "%.3f %.3f %.3f\n", q(0.5), q(0.99), sum / NR }'
	rm -rf "$TMP/results/$2"
}

# sockperf_rtt PINGER_CPU ECHOER_CPU: "p50 p99 mean" of sockperf's round trips
# in µs, a server started and stopped for the round.
sockperf_rtt() {
	port=$((20000 + ($$ + 10#$(date +%N | cut -c1-4)) % 30000)) # 10#: a leading 0 is not octal
	while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
	taskset -c "$2" sockperf sr --tcp -i 127.0.0.1 -p "$port" >"$TMP/sr.log" 2>&1 &
	server=$!
	i=0
	until grep -q 'using' "$TMP/sr.log" 2>/dev/null && (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
		i=$((i + 1))
		if [ "$i" -ge 200 ]; then
			echo "sockperf sr did not start: $(head -c 300 "$TMP/sr.log")" >&2
			return 1
		fi
		sleep 0.02
	done
	taskset -c "$1" sockperf pp --tcp -i 127.0.0.1 -p "$port" -m "$SIZE" -t "$TIME" --full-rtt >"$TMP/pp.log" 2>&1 ||
		{ cat "$TMP/pp.log" >&2; return 1; }
	kill "$server" 2>/dev/null || true
	wait "$server" 2>/dev/null || true
	server=
	awk '/percentile 50.000 =/ { p50 = $NF } /percentile 99.000 =/ { p99 = $NF }
		match($0, /avg-rtt=[0-9.]+/) { mean = substr($0, RSTART + 8, RLENGTH - 8) }
		END { if (p50 == "" || p99 == "" || mean == "") exit 1; printf "%.3f %.3f %.3f\n", p50, p99, mean }' "$TMP/pp.log" ||
		{ echo "no percentiles in sockperf's output:" >&2; cat "$TMP/pp.log" >&2; return 1; }
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }

echo "$SIZE-byte TCP round trip (whole round trips on both sides), p50, p99 and mean in µs, median over $ROUNDS alternating rounds"
echo "(sockperf pp -m $SIZE -t $TIME --full-rtt against sockperf sr; run: $SAMPLES round trips of interprocess_reliable_tcp --latency rtt)"
echo "load average (1, 5, 15 min) at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %9s %9s %6s  %9s %9s %6s  %9s %9s %6s\n' "cpus" "run p50" "sp p50" "ratio" "run p99" "sp p99" "ratio" "run mean" "sp mean" "ratio"
status=0
for placement in $CPUS; do
	pinger=${placement%,*}
	echoer=${placement#*,}
	: >"$TMP/run" && : >"$TMP/sp"
	for i in $(seq "$ROUNDS"); do
		sockperf_rtt "$pinger" "$echoer" >>"$TMP/sp"
		run_rtt "$placement" "tcp-$pinger-$echoer-$i" >>"$TMP/run"
	done
	r50=$(cut -d' ' -f1 "$TMP/run" | median)
	r99=$(cut -d' ' -f2 "$TMP/run" | median)
	s50=$(cut -d' ' -f1 "$TMP/sp" | median)
	s99=$(cut -d' ' -f2 "$TMP/sp" | median)
	rmean=$(cut -d' ' -f3 "$TMP/run" | median)
	smean=$(cut -d' ' -f3 "$TMP/sp" | median)
	q50=$(ratio "$r50" "$s50")
	verdict="(no target across cores)"
	if [ "$pinger" = "$echoer" ]; then
		if awk -v r="$q50" 'BEGIN { exit !(r <= 1.05) }'; then
			verdict="ok (target p50 <= 1.05 on one core)"
		else
			verdict="ABOVE TARGET (p50 <= 1.05 on one core)"
			status=1
		fi
	fi
	printf '%-6s %9s %9s %6s  %9s %9s %6s  %9s %9s %6s  %s\n' "$placement" "$r50" "$s50" "$q50" "$r99" "$s99" "$(ratio "$r99" "$s99")" \
		"$rmean" "$smean" "$(ratio "$rmean" "$smean")" "$verdict"
	printf '       rounds (p50 p99 mean): run %s| sockperf %s\n' "$(tr '\n' ',' <"$TMP/run" | sed 's/,$//; s/,/, /g') " "$(tr '\n' ',' <"$TMP/sp" | sed 's/,$//; s/,/, /g')"
done
echo "load average (1, 5, 15 min) at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
