#!/usr/bin/env bash
# load-vs-reference.sh: mqgate's one-way load measurement (run load, one
# unpaced publisher and one subscriber, no warm-up) against reference
# clients on the same broker, printing mqgate / reference:
#
#   NATS 16 B        run load -s nats_best_effort            target >= 0.9
#                    vs bench/natsbench: the pub/sub test of `nats bench`
#                    on nats.go (a callback subscriber without pending
#                    limits, messages published back to back); its rate is
#                    messages over first to last delivery, as nats bench's
#                    subscriber reports it.
#   MQTT QoS 0 16 B  run load -s mqtt_best_effort            target >= 1.0
#                    vs mosquitto_pub -l (one message per line of standard
#                    input, QoS 0) -> mosquitto_sub -C N; its rate is the
#                    messages received over the time from starting
#                    mosquitto_pub to the last arrival (mosquitto_sub -F %U).
#   TCP 16 KB        run load -s interprocess_reliable_tcp    target >= 0.5
#                    vs iperf3 -l 16K -n BYTES (receiver Mb/s).
#
# Honest comparison: each round runs mqgate first for DURATION, then the
# reference with the same number of messages (bytes for iperf3) as mqgate
# sent, the same payload and QoS. mqgate's rate is receive_rate of
# load_<type>_summary.json: unique deliveries over the time from its first
# send to its last delivery (formats §9) — the period the references
# measure. Rounds alternate the two, so that the load of a busy machine
# hits both; the ratio is of the medians over ROUNDS rounds.
#
# What mqgate does per message that the references do not: it reads the
# clock at the send and at the arrival and records the message (header,
# sequence tracking, counters, HDR histogram, raw sample: BenchmarkRecord).
# At NATS rates (hundreds of thousands of messages per second on a few
# cores) that work is a large share of a message's cost, and a publisher
# that spends longer per message hands nats-server smaller writes, which it
# handles at a higher CPU cost per message; profile with
# `go test -run '^$' -bench LoadBroker -cpuprofile cpu.out ./internal/load`.
#
# Then the recording cost per delivered message (go test -bench, internal/load).
#
# Environment: NATS_URL and MQTT_URL, brokers to use (default: the
# installed nats-server and mosquitto, each started on a free loopback port
# for the script and stopped after, so that no other traffic shares them);
# ROUNDS (3), DURATION (5s, mqgate's measured period), RUN (a prebuilt run
# binary). A reference that cannot run here (nats-server, mosquitto,
# mosquitto_pub/mosquitto_sub or iperf3 missing) is reported as "skipped"
# with the reason. Exits 1 when a target is missed, else 0.
set -u

cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5s}
TMP=$(mktemp -d)
servers=()
cleanup() {
	for p in "${servers[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

go build -o "$TMP/natsbench" ./bench/natsbench || exit 2
if [ -z "${RUN:-}" ]; then
	go build -o "$TMP/run" ./cmd/run || exit 2
	RUN=$TMP/run
fi

answers() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }
freeport() {
	local port=$((20000 + ($$ + $1) % 30000))
	while answers 127.0.0.1 "$port"; do port=$((port + 1)); done
	echo "$port"
}
# start NAME PORT COMMAND...: starts a server for the script (stopped at
# exit) and waits until it answers on PORT; else sets why. Not to be called
# in a subshell, which would lose the server's process id.
start() {
	local name=$1 port=$2 i=0
	shift 2
	"$@" >"$TMP/$name.log" 2>&1 &
	servers+=($!)
	until answers 127.0.0.1 "$port"; do
		i=$((i + 1))
		if [ "$i" -ge 200 ]; then
			why="$name did not start: $(head -c 300 "$TMP/$name.log")"
			return 1
		fi
		sleep 0.05
	done
}

nats_skip= mqtt_skip= tcp_skip= why=
if [ -n "${NATS_URL:-}" ]; then
	hp=${NATS_URL#*://}
	answers "${hp%:*}" "${hp##*:}" || nats_skip="no NATS server at NATS_URL=$NATS_URL"
elif command -v nats-server >/dev/null; then
	port=$(freeport 0)
	if start nats-server "$port" nats-server -a 127.0.0.1 -p "$port"; then
		NATS_URL=nats://127.0.0.1:$port
	else
		nats_skip=$why
	fi
else
	nats_skip="nats-server is not installed (and NATS_URL is not set)"
fi
for tool in mosquitto_pub mosquitto_sub; do
	command -v "$tool" >/dev/null || mqtt_skip="$tool is not installed (apt-get install mosquitto-clients)"
done
if [ -z "$mqtt_skip" ]; then
	if [ -n "${MQTT_URL:-}" ]; then
		hp=${MQTT_URL#*://}
		answers "${hp%:*}" "${hp##*:}" || mqtt_skip="no MQTT broker at MQTT_URL=$MQTT_URL"
	elif command -v mosquitto >/dev/null; then
		port=$(freeport 7)
		if start mosquitto "$port" mosquitto -p "$port"; then
			MQTT_URL=mqtt://127.0.0.1:$port
		else
			mqtt_skip=$why
		fi
	else
		mqtt_skip="mosquitto is not installed (and MQTT_URL is not set)"
	fi
fi
command -v iperf3 >/dev/null || tcp_skip="iperf3 is not installed (apt-get install iperf3)"

# field FILE NAME: the first value of "NAME" in a summary JSON.
field() { awk -F': ' -v k="\"$2\"" '$1 ~ k { gsub(/[ ,]/, "", $2); print $2; exit }' "$1"; }
# median of the numbers on standard input.
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# mqgate SUB TARGET PAYLOAD: runs run load and leaves its summary in
# $TMP/summary.json and the topic its messages went to in $topic (the base
# topic, the payload and the topic index: TopicName), for the reference to
# publish on: a subject's length is part of every message's cost, in the
# client's and the server's parsers alike.
mqgate() {
	local k=$RANDOM$RANDOM target=()
	[ -z "$2" ] || target=(--target "$2" --topic "mqgate-bench-$k")
	topic=mqgate-bench-$k-$3-0
	"$RUN" load -q --no-plots -s "$1" "${target[@]}" --payloads "$3" --duration "$DURATION" --warmup 0s \
		-o "$TMP/res" --name "r$k" >"$TMP/run.log" 2>&1 || { cat "$TMP/run.log" >&2; return 1; }
	cp "$TMP/res/r$k/load_$1_summary.json" "$TMP/summary.json"
	rm -rf "$TMP/res/r$k"
}
natsref() { # N TOPIC
	"$TMP/natsbench" -url "$NATS_URL" -n "$1" -size 16 -subject "$2" | awk '{ print $2 }'
}
# mqttref N TOPIC: mosquitto_sub gives up 30 s after it started (QoS 0
# messages the broker dropped never come); the rate counts what came.
mqttref() { # N TOPIC
	local hp=${MQTT_URL#*://} topic=$2 got start last
	mosquitto_sub -h "${hp%:*}" -p "${hp##*:}" -t "$topic" -q 0 -C "$1" -W 30 -F %U >"$TMP/sub.out" 2>/dev/null &
	local sub=$!
	sleep 0.5 # subscribed
	start=$(date +%s.%N)
	yes 0123456789abcdef | head -n "$1" | mosquitto_pub -h "${hp%:*}" -p "${hp##*:}" -t "$topic" -q 0 -l
	wait "$sub"
	got=$(wc -l <"$TMP/sub.out")
	last=$(tail -n 1 "$TMP/sub.out")
	awk -v n="$got" -v a="$start" -v b="$last" 'BEGIN { printf "%.0f\n", n / (b - a) }'
}
iperfref() { # BYTES
	local port
	port=$(freeport 13)
	iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
	local srv=$!
	sleep 0.5 # listening (a probe would be its one client)
	iperf3 -c 127.0.0.1 -p "$port" -l 16K -n "$1" -f m | awk '/receiver/ { for (i = 1; i <= NF; i++) if ($i == "Mbits/sec") print $(i - 1) }'
	wait "$srv" 2>/dev/null
}

missed=0
compare() { # NAME TARGET UNIT mqgate-values reference-values
	local name=$1 target=$2 unit=$3 a b ratio
	a=$(tr ' ' '\n' <<<"$4" | median)
	b=$(tr ' ' '\n' <<<"$5" | median)
	ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }')
	printf '%-15s mqgate %10.0f %s   reference %10.0f %s   ratio %s (target >= %s)\n' "$name" "$a" "$unit" "$b" "$unit" "$ratio" "$target"
	printf '%-15s   rounds: mqgate %s; reference %s\n' "" "$4" "$5"
	awk -v r="$ratio" -v t="$target" 'BEGIN { exit !(r >= t) }' || { echo "  MISSED: $name"; missed=1; }
}

nats_m= nats_r= mqtt_m= mqtt_r= tcp_m= tcp_r=
for round in $(seq "$ROUNDS"); do
	echo "round $round of $ROUNDS" >&2
	if [ -z "$nats_skip" ] && mqgate nats_best_effort "$NATS_URL" 16; then
		nats_m+="$(field "$TMP/summary.json" receive_rate) "
		nats_r+="$(natsref "$(field "$TMP/summary.json" messages_sent)" "$topic") "
	fi
	if [ -z "$mqtt_skip" ] && mqgate mqtt_best_effort "$MQTT_URL" 16; then
		mqtt_m+="$(field "$TMP/summary.json" receive_rate) "
		mqtt_r+="$(mqttref "$(field "$TMP/summary.json" messages_sent)" "$topic") "
	fi
	if [ -z "$tcp_skip" ] && mqgate interprocess_reliable_tcp "" 16384; then
		tcp_m+="$(field "$TMP/summary.json" receive_mbps) "
		tcp_r+="$(iperfref "$(field "$TMP/summary.json" bytes_sent)") "
	fi
done
skipline() { printf '%-15s skipped: %s\n' "$1" "$2"; }
if [ -n "$nats_skip" ]; then skipline "NATS 16 B" "$nats_skip"; else compare "NATS 16 B" 0.9 msg/s "${nats_m% }" "${nats_r% }"; fi
if [ -n "$mqtt_skip" ]; then skipline "MQTT QoS0 16 B" "$mqtt_skip"; else compare "MQTT QoS0 16 B" 1.0 msg/s "${mqtt_m% }" "${mqtt_r% }"; fi
if [ -n "$tcp_skip" ]; then skipline "TCP 16 KB" "$tcp_skip"; else compare "TCP 16 KB" 0.5 Mb/s "${tcp_m% }" "${tcp_r% }"; fi

echo "recording cost per delivered message (header, sequence, counters, HDR histogram, raw sample):"
go test -run '^$' -bench 'Record' -benchmem -benchtime 2000000x ./internal/load | grep -E '^Benchmark'
exit "$missed"
