#!/usr/bin/env bash
# mqtt-overhead.sh: how much does mqgate add to an MQTT round trip?
#
# On one broker, with the same CPU placement for both, it measures the
# median (p50) 16-byte round trip of `run -s mqtt_best_effort` (pinger and
# echo process pinned with --cpus) and of the minimal ping-pong in
# bench/mqttpingpong (same client library, set-up, topics and QoS, one
# client per end, placed alike: the echo process with taskset, the
# measuring thread of the pinger by its CPU argument), alternating ROUNDS
# times, and prints mqgate's p50 / minimal p50 (target <= 1.10).
#
# Environment: MQTT_URL, a broker to use (default: the installed
# mosquitto, started on a free loopback port for the script with
# set_tcp_nodelay true, and stopped after); VERSION, the protocol, 3.1.1 or
# 5 (default 3.1.1); CPUS="PINGER,ECHOER" placements, space-separated
# (default "0,1"); SERVER_CPUS, taskset list for a broker the script starts
# (default: any); SAMPLES (20000); ROUNDS (3); SIZE (16); RUN (a prebuilt
# run binary; default: go build ./cmd/run).
set -eu

cd "$(dirname "$0")/.."
CPUS=${CPUS:-"0,1"}
VERSION=${VERSION:-3.1.1}
SAMPLES=${SAMPLES:-20000}
ROUNDS=${ROUNDS:-3}
SIZE=${SIZE:-16}
WARMUP=$((SAMPLES / 10))
TMP=$(mktemp -d)
server=
cleanup() {
	[ -z "$server" ] || kill "$server" 2>/dev/null || true
	rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

go build -o "$TMP/mqttpingpong" ./bench/mqttpingpong
if [ -z "${RUN:-}" ]; then
	go build -o "$TMP/run" ./cmd/run
	RUN=$TMP/run
fi

if [ -z "${MQTT_URL:-}" ]; then
	command -v mosquitto >/dev/null || { echo "mosquitto is not installed; set MQTT_URL" >&2; exit 2; }
	answers() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
	port=$((20000 + $$ % 30000))
	while answers "$port"; do port=$((port + 1)); done
	cat >"$TMP/mosquitto.conf" <<-EOF
		listener $port 127.0.0.1
		allow_anonymous true
		persistence false
		set_tcp_nodelay true
		user $(id -un)
	EOF
	if [ -n "${SERVER_CPUS:-}" ]; then
		taskset -c "$SERVER_CPUS" mosquitto -c "$TMP/mosquitto.conf" >"$TMP/server.log" 2>&1 &
	else
		mosquitto -c "$TMP/mosquitto.conf" >"$TMP/server.log" 2>&1 &
	fi
	server=$!
	i=0
	until answers "$port"; do
		i=$((i + 1))
		[ "$i" -lt 200 ] || { echo "mosquitto did not start:" >&2; cat "$TMP/server.log" >&2; exit 2; }
		sleep 0.05
	done
	MQTT_URL=mqtt://127.0.0.1:$port
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

run_mqgate() { # CPUS NAME
	"$RUN" -q -s mqtt_best_effort --mqtt-url "$MQTT_URL" --mqtt-version "$VERSION" --payloads "$SIZE" \
		--samples "$SAMPLES" --warmup "$WARMUP" --latency rtt --cpus "$1" --out "$TMP/results" --name "$2"
	p50ns "$TMP/results/$2/measurements_mqtt_best_effort.csv"
}

run_minimal() { # PINGER_CPU ECHOER_CPU TOPIC
	# On a loaded machine the echo may take seconds to start: up to 5
	# attempts, 30 s each. (echo_pid, not echoer: that is the loop's CPU.)
	attempt=0
	while :; do
		rm -f "$TMP/ready"
		taskset -c "$2" "$TMP/mqttpingpong" echo "$VERSION" "$MQTT_URL" "$3" 0 >"$TMP/ready" &
		echo_pid=$!
		i=0
		while [ ! -s "$TMP/ready" ] && kill -0 "$echo_pid" 2>/dev/null && [ "$i" -lt 3000 ]; do
			i=$((i + 1))
			sleep 0.01
		done
		[ -s "$TMP/ready" ] && break
		kill "$echo_pid" 2>/dev/null || true
		wait "$echo_pid" 2>/dev/null || true
		attempt=$((attempt + 1))
		[ "$attempt" -lt 5 ] || { echo "mqttpingpong echo did not start" >&2; exit 2; }
		sleep 0.2
	done
	"$TMP/mqttpingpong" ping "$VERSION" "$MQTT_URL" "$3" 0 "$SAMPLES" "$SIZE" "$WARMUP" "$1"
	kill "$echo_pid"
	wait "$echo_pid" || true
}

echo "$SIZE-byte MQTT $VERSION round trip (QoS 0) on $MQTT_URL, p50 over $SAMPLES samples, median of $ROUNDS alternating rounds"
printf '%-10s %14s %14s %8s\n' "cpus" "mqgate [ns]" "minimal [ns]" "ratio"
status=0
for placement in $CPUS; do
	pinger=${placement%,*}
	echoer=${placement#*,}
	: >"$TMP/mqgate" && : >"$TMP/minimal"
	for i in $(seq "$ROUNDS"); do
		run_mqgate "$placement" "mqtt-$pinger-$echoer-$i" >>"$TMP/mqgate"
		run_minimal "$pinger" "$echoer" "mqttpingpong/$$/$pinger-$echoer-$i" >>"$TMP/minimal"
	done
	m=$(median <"$TMP/mqgate")
	f=$(median <"$TMP/minimal")
	ratio=$(awk -v a="$m" -v b="$f" 'BEGIN { printf "%.3f", a / b }')
	verdict=$(awk -v r="$ratio" 'BEGIN { print (r <= 1.10) ? "ok" : "ABOVE TARGET" }')
	[ "$verdict" = ok ] || status=1
	printf '%-10s %14s %14s %8s  %s (target <= 1.10)\n' "$placement" "$m" "$f" "$ratio" "$verdict"
	printf '           rounds: mqgate %s| minimal %s\n' "$(tr '\n' ' ' <"$TMP/mqgate")" "$(tr '\n' ' ' <"$TMP/minimal")"
done
exit $status
