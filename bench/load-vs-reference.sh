#!/usr/bin/env bash
# load-vs-reference.sh: mqgate's one-way load measurement (run load, one
# unpaced publisher and one subscriber, no warm-up) against the benchmark
# clients users run, on the same broker, with the same message size and
# count, printing mqgate's rate, the peer's and mqgate / peer:
#
#   NATS 16 B        run load -s nats_best_effort            target >= 0.9
#                    vs nats-bench, the nats.go example (-np 1 -ns 1 -ms 16
#                    -n N): its "Sub stats" rate, messages over first to
#                    last delivery. Built from the nats.go version mqgate
#                    uses (go.mod), so that both sides run one client
#                    library; NATS_BENCH names a prebuilt one.
#   MQTT QoS 0 16 B  run load -s mqtt_best_effort            target >= 1.0
#                    vs mosquitto_pub -l (one message per line of standard
#                    input, QoS 0) -> mosquitto_sub -C N; its rate is the
#                    messages received over the time from starting
#                    mosquitto_pub to the last arrival (mosquitto_sub -F %U).
#   AMQP 16 B        run load -s amqp_best_effort            (no target yet)
#                    vs RabbitMQ PerfTest (com.rabbitmq:perf-test from Maven
#                    Central, -x 1 -y 1 -s 16 -C N -D N, auto-ack, transient
#                    messages): its "receiving rate avg", and beside it
#                    (no target) the median of its per-second receiving
#                    rates after the first second: the Java client runs
#                    interpreted until its JIT compiler warms up, which
#                    weighs on a run of a few seconds.
#   TCP 16 KB        run load -s interprocess_reliable_tcp    target >= 0.5
#                    vs iperf3 -l 16K -n BYTES (receiver Mb/s).
#
# Honest comparison: each round runs mqgate first for DURATION, then the
# peer with the number of messages (bytes for iperf3) mqgate sent, the same
# payload, QoS and a topic of the same length. mqgate's rate is
# receive_rate_to_last_delivery of load_<type>_summary.json: unique
# deliveries over the time from its first send to its last delivery
# (formats §9), the period the peers measure (its receive_rate, the
# MQTT-bench spec's formula, leaves out the drain: a broker that queues,
# as RabbitMQ does under an unpaced publisher, would be credited with
# deliveries made after the period it divides by). Rounds alternate the two, so that the load of a busy
# machine hits both; the ratio is of the medians over ROUNDS rounds, and
# every round's figures are printed.
#
# What mqgate does per message that the peers do not: it reads the clock
# at the send and at the arrival and records every message (header,
# sequence tracking, counters, HDR histogram, raw sample: BenchmarkRecord,
# and its two clock readings, each of the monotonic clock alone:
# BenchmarkClockNow send and arrival, printed at the end; arrival-receive
# is what a Receiver's arrival costs, which run load's NATS and MQTT
# subscribers, consumers, do not take). Profile the path with
# `go test -run '^$' -bench LoadBroker/nats -cpuprofile cpu.out ./internal/load`.
#
# Environment: NATS_URL, MQTT_URL and AMQP_URL, the brokers to use
# (default: the installed nats-server and mosquitto, each started on a free
# loopback port for the script and stopped after, so that no other traffic
# shares them; RabbitMQ at $MQGATE_AMQP_URL, else
# amqp://guest:guest@127.0.0.1:5672/); ROUNDS (5), DURATION (3s, mqgate's
# measured period), RUN (a prebuilt run binary), NATS_BENCH (a prebuilt
# nats-bench), PERFTEST_VERSION (2.22.1), PEERS (the comparisons to run,
# of "nats mqtt amqp tcp", all by default). A peer that cannot run here
# (its broker, client or Java/Maven missing) is reported as "skipped" with
# the reason. Exits 1 when a target is missed, else 0.
set -u

cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5}
PEERS=${PEERS:-nats mqtt amqp tcp}
DURATION=${DURATION:-3s}
PERFTEST_VERSION=${PERFTEST_VERSION:-2.22.1}
TMP=$(mktemp -d)
servers=()
cleanup() {
	for p in "${servers[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

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
# reachable URL: whether the host:port of URL answers.
reachable() {
	local hp=${1#*://}
	hp=${hp#*@}
	hp=${hp%%/*}
	answers "${hp%:*}" "${hp##*:}"
}

nats_skip= mqtt_skip= amqp_skip= tcp_skip= why=
for peer in nats mqtt amqp tcp; do
	case " $PEERS " in
	*" $peer "*) ;;
	*) printf -v "${peer}_skip" 'not in PEERS="%s"' "$PEERS" ;;
	esac
done
# nats-bench of the nats.go version in go.mod.
natsgo=$(go list -m -f '{{.Version}}' github.com/nats-io/nats.go) || exit 2
if [ -n "$nats_skip" ]; then
	:
elif [ -z "${NATS_BENCH:-}" ]; then
	NATS_BENCH=$(go env GOPATH)/bin/nats-bench
	if ! go version -m "$NATS_BENCH" 2>/dev/null | grep -q "github.com/nats-io/nats.go[[:space:]]*$natsgo"; then
		NATS_BENCH=$TMP/nats-bench
		GOBIN=$TMP go install "github.com/nats-io/nats.go/examples/nats-bench@$natsgo" 2>"$TMP/install.log" ||
			nats_skip="cannot install nats-bench@$natsgo: $(tail -n 1 "$TMP/install.log")"
	fi
fi
if [ -n "$nats_skip" ]; then
	:
elif [ -n "${NATS_URL:-}" ]; then
	reachable "$NATS_URL" || nats_skip="no NATS server at NATS_URL=$NATS_URL"
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
	[ -n "$mqtt_skip" ] || command -v "$tool" >/dev/null || mqtt_skip="$tool is not installed (apt-get install mosquitto-clients)"
done
if [ -n "$mqtt_skip" ]; then
	:
elif [ -n "${MQTT_URL:-}" ]; then
	reachable "$MQTT_URL" || mqtt_skip="no MQTT broker at MQTT_URL=$MQTT_URL"
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
AMQP_URL=${AMQP_URL:-${MQGATE_AMQP_URL:-amqp://guest:guest@127.0.0.1:5672/}}
if [ -n "$amqp_skip" ]; then
	:
elif ! command -v java >/dev/null || ! command -v mvn >/dev/null; then
	amqp_skip="PerfTest needs java and mvn (apt-get install default-jre maven)"
elif ! reachable "$AMQP_URL"; then
	amqp_skip="no AMQP broker at AMQP_URL=${AMQP_URL/\/\/*@/\/\/}"
else
	# PerfTest's class path, from Maven Central (or the local repository).
	cat >"$TMP/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>mqgate.bench</groupId><artifactId>perftest-classpath</artifactId><version>0</version>
<dependencies><dependency><groupId>com.rabbitmq</groupId><artifactId>perf-test</artifactId><version>$PERFTEST_VERSION</version></dependency></dependencies>
</project>
EOF
	mvn -q -f "$TMP/pom.xml" dependency:build-classpath -Dmdep.outputFile="$TMP/perftest.cp" >"$TMP/mvn.log" 2>&1 ||
		amqp_skip="cannot resolve com.rabbitmq:perf-test:$PERFTEST_VERSION: $(grep -m1 ERROR "$TMP/mvn.log")"
fi
[ -n "$tcp_skip" ] || command -v iperf3 >/dev/null || tcp_skip="iperf3 is not installed (apt-get install iperf3)"

# field FILE NAME: the first value of "NAME" in a summary JSON.
field() { awk -F': ' -v k="\"$2\"" '$1 ~ k { gsub(/[ ,]/, "", $2); print $2; exit }' "$1"; }
# median of the numbers on standard input.
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# mqgate SUB TARGET PAYLOAD: runs run load and leaves its summary in
# $TMP/summary.json and the topic its messages went to in $topic (the base
# topic, the payload and the topic index: TopicName), for the peer to use:
# a subject's length is part of every message's cost, in the client's and
# the server's parsers alike.
mqgate() {
	local k=$RANDOM$RANDOM target=()
	[ -z "$2" ] || target=(--target "$2" --topic "mqgate-bench-$k")
	topic=mqgate-bench-$k-$3-0
	"$RUN" load -q --no-plots -s "$1" "${target[@]}" --payloads "$3" --duration "$DURATION" --warmup 0s \
		-o "$TMP/res" --name "r$k" >"$TMP/run.log" 2>&1 || { cat "$TMP/run.log" >&2; return 1; }
	cp "$TMP/res/r$k/load_$1_summary.json" "$TMP/summary.json"
	rm -rf "$TMP/res/r$k"
}
# natsref N TOPIC: nats-bench's subscriber rate; its publisher rate is
# left in $TMP/natspub.
natsref() {
	"$NATS_BENCH" -s "$NATS_URL" -np 1 -ns 1 -n "$1" -ms 16 "$2" >"$TMP/nats-bench.out" 2>&1
	awk '/^ *Pub stats:/ { gsub(",", "", $3); print $3 }' "$TMP/nats-bench.out" >"$TMP/natspub"
	awk '/^ *Sub stats:/ { gsub(",", "", $3); print $3 }' "$TMP/nats-bench.out"
}
# mqttref N TOPIC: mosquitto_sub gives up 30 s after it started (QoS 0
# messages the broker dropped never come); the rate counts what came.
mqttref() {
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
# amqpref N TOPIC: PerfTest's average receiving rate, one producer and one
# consumer of an auto-deleted queue named like mqgate's. The Java client
# reads a bare trailing slash as the empty virtual host, Go's as "/": the
# slash is dropped for it.
amqpref() {
	timeout 300 java -cp "$(cat "$TMP/perftest.cp")" com.rabbitmq.perf.PerfTest -h "${AMQP_URL%/}" -x 1 -y 1 -s 16 \
		-C "$1" -D "$1" -a -u "$2" -ad true >"$TMP/perftest.out" 2>&1
	awk '/, time [0-9.]+ s, .*received: / && $4 + 0 > 1.5 { for (i = 1; i <= NF; i++) if ($i == "received:") print $(i + 1) }' "$TMP/perftest.out" >"$TMP/amqpsteady"
	if [ -s "$TMP/amqpsteady" ]; then median <"$TMP/amqpsteady" >"$TMP/amqpsteady.m"; else : >"$TMP/amqpsteady.m"; fi
	mv "$TMP/amqpsteady.m" "$TMP/amqpsteady"
	awk '/receiving rate avg:/ { for (i = 1; i <= NF; i++) if ($i == "msg/s") print $(i - 1) }' "$TMP/perftest.out"
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
# compare NAME PEER TARGET UNIT mqgate-values peer-values: a target of "-"
# is none (the ratio is printed, never missed).
compare() {
	local name=$1 peer=$2 target=$3 unit=$4 a b ratio goal="no target"
	if [ -z "$5" ] || [ -z "$6" ]; then
		printf '%-15s failed: no figure (mqgate: %s; %s: %s)\n' "$name" "${5:-none}" "$peer" "${6:-none}"
		missed=1
		return
	fi
	a=$(tr ' ' '\n' <<<"$5" | median)
	b=$(tr ' ' '\n' <<<"$6" | median)
	ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }')
	[ "$target" = - ] || goal="target >= $target"
	printf '%-15s mqgate %10.0f %s   %s %10.0f %s   ratio %s (%s)\n' "$name" "$a" "$unit" "$peer" "$b" "$unit" "$ratio" "$goal"
	printf '%-15s   rounds: mqgate %s; %s %s\n' "" "$5" "$peer" "$6"
	[ "$target" = - ] || awk -v r="$ratio" -v t="$target" 'BEGIN { exit !(r >= t) }' || { echo "  MISSED: $name"; missed=1; }
}

load0=$(cut -d' ' -f1-3 /proc/loadavg)
nats_m= nats_r= nats_ms= nats_rs= mqtt_m= mqtt_r= amqp_m= amqp_r= amqp_rs= tcp_m= tcp_r=
for round in $(seq "$ROUNDS"); do
	echo "round $round of $ROUNDS" >&2
	if [ -z "$nats_skip" ] && mqgate nats_best_effort "$NATS_URL" 16; then
		nats_m+="$(printf '%.0f' "$(field "$TMP/summary.json" receive_rate_to_last_delivery)") "
		nats_ms+="$(field "$TMP/summary.json" send_rate) "
		nats_r+="$(natsref "$(field "$TMP/summary.json" messages_sent)" "$topic") "
		nats_rs+="$(cat "$TMP/natspub") "
	fi
	if [ -z "$mqtt_skip" ] && mqgate mqtt_best_effort "$MQTT_URL" 16; then
		mqtt_m+="$(printf '%.0f' "$(field "$TMP/summary.json" receive_rate_to_last_delivery)") "
		mqtt_r+="$(mqttref "$(field "$TMP/summary.json" messages_sent)" "$topic") "
	fi
	if [ -z "$amqp_skip" ] && mqgate amqp_best_effort "$AMQP_URL" 16; then
		amqp_m+="$(printf '%.0f' "$(field "$TMP/summary.json" receive_rate_to_last_delivery)") "
		amqp_r+="$(amqpref "$(field "$TMP/summary.json" messages_sent)" "$topic") "
		[ ! -s "$TMP/amqpsteady" ] || amqp_rs+="$(cat "$TMP/amqpsteady") "
	fi
	if [ -z "$tcp_skip" ] && mqgate interprocess_reliable_tcp "" 16384; then
		tcp_m+="$(awk -v r="$(field "$TMP/summary.json" receive_rate_to_last_delivery)" 'BEGIN { printf "%.1f", r * 16384 * 8 / 1e6 }') "
		tcp_r+="$(iperfref "$(field "$TMP/summary.json" bytes_sent)") "
	fi
done
skipline() { printf '%-15s skipped: %s\n' "$1" "$2"; }
if [ -n "$nats_skip" ]; then
	skipline "NATS 16 B" "$nats_skip"
else
	compare "NATS 16 B" nats-bench 0.9 msg/s "${nats_m% }" "${nats_r% }"
	compare "  (sent)" "nats-bench pub" - msg/s "${nats_ms% }" "${nats_rs% }"
fi
if [ -n "$mqtt_skip" ]; then skipline "MQTT QoS0 16 B" "$mqtt_skip"; else compare "MQTT QoS0 16 B" mosquitto 1.0 msg/s "${mqtt_m% }" "${mqtt_r% }"; fi
if [ -n "$amqp_skip" ]; then
	skipline "AMQP 16 B" "$amqp_skip"
else
	compare "AMQP 16 B" PerfTest - msg/s "${amqp_m% }" "${amqp_r% }"
	if [ -n "$amqp_rs" ]; then
		compare "  (after 1 s)" "PerfTest" - msg/s "${amqp_m% }" "${amqp_rs% }"
	else
		skipline "  (after 1 s)" "PerfTest's runs lasted under 2 s: no per-second rate after the first (raise DURATION)"
	fi
fi
if [ -n "$tcp_skip" ]; then skipline "TCP 16 KB" "$tcp_skip"; else compare "TCP 16 KB" iperf3 0.5 Mb/s "${tcp_m% }" "${tcp_r% }"; fi

echo "load average (1, 5, 15 min): $(cut -d' ' -f1-3 /proc/loadavg) at the end, $load0 at the start; a busy machine lowers either side's rate by chance, the CPU time per message below far less"
echo "mqgate's own cost per message: recording a delivery (header, sequence, counters, HDR histogram, raw sample), publishing one (clock, header, counters), and one of the two clock readings each message takes (send, arrival), which the peers do not:"
go test -run '^$' -bench 'Record|Publish$|ClockNow' -benchmem -benchtime 2000000x ./internal/load | grep -E '^Benchmark'
if [ -z "$nats_skip" ] || [ -z "$mqtt_skip" ]; then
	go test -c -o "$TMP/load.test" ./internal/load || exit 2
fi
if [ -z "$nats_skip" ]; then
	echo "CPU time per NATS message, run load's path (LoadBroker/nats) and nats-bench's loops (NATSBench) in one test process, alternating:"
	for _ in 1 2 3; do
		(cd internal/load && MQGATE_NATS_URL=$NATS_URL "$TMP/load.test" -test.run '^$' -test.bench 'LoadBroker/nats$|NATSBench' -test.benchtime 30x) | grep -E '^Benchmark'
	done
fi
# The MQTT peers are C programs on libmosquitto; mqgate's MQTT 3.1.1
# client is paho.mqtt.golang. A plain client of that library (MQTTPlain)
# says how much of the difference is the library's.
if [ -z "$mqtt_skip" ]; then
	echo "CPU time per MQTT QoS 0 message, run load's path (LoadBroker/mqtt-qos0) and a plain paho.mqtt.golang client's loops (MQTTPlain) in one test process, alternating:"
	for _ in 1 2 3; do
		(cd internal/load && MQGATE_MQTT_URL=$MQTT_URL "$TMP/load.test" -test.run '^$' -test.bench 'LoadBroker/mqtt-qos0$|MQTTPlain' -test.benchtime 30x) | grep -E '^Benchmark'
	done
fi
exit "$missed"
