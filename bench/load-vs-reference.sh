#!/usr/bin/env bash
# load-vs-reference.sh: mqgate's one-way load measurement (run load,
# unpaced, one publisher and one subscriber) against the reference tools,
# measured alternately in one run, printing mqgate / reference:
#
#   NATS 16 B      run load -s nats_best_effort    vs bench/natsbench (nats bench's
#                  pub/sub test on nats.go)                            target >= 0.9
#   MQTT QoS 0 16 B run load -s mqtt_best_effort   vs mosquitto_pub -l -> mosquitto_sub
#                                                                      target >= 1.0
#   TCP 16 KB      run load -s interprocess_reliable_tcp vs iperf3     target >= 0.5
#
# and the recording cost per delivered message (go test -bench, internal/load).
# Rates are the subscriber's: unique deliveries per second (mqgate:
# receive_rate of load_<type>_summary.json; references: their own report).
#
# Environment: NATS_URL (default nats://127.0.0.1:4222), MQTT_URL (default
# mqtt://127.0.0.1:1883), ROUNDS (3), DURATION (5s, mqgate's measured period),
# N (messages of the references, 1000000), RUN (a prebuilt run binary).
# Exits 1 when a target is missed, 2 when a broker or tool is missing.
set -eu

cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5s}
N=${N:-1000000}
NATS_URL=${NATS_URL:-nats://127.0.0.1:4222}
MQTT_URL=${MQTT_URL:-mqtt://127.0.0.1:1883}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM

for tool in iperf3 mosquitto_pub mosquitto_sub; do
	command -v "$tool" >/dev/null || { echo "$tool is not installed (apt-get install iperf3 mosquitto-clients)" >&2; exit 2; }
done
reachable() { # URL
	local hp=${1#*://}
	(exec 3<>"/dev/tcp/${hp%:*}/${hp##*:}") 2>/dev/null
}
reachable "$NATS_URL" || { echo "no NATS server at $NATS_URL (start one: nats-server -js)" >&2; exit 2; }
reachable "$MQTT_URL" || { echo "no MQTT broker at $MQTT_URL (start one: mosquitto -d)" >&2; exit 2; }

go build -o "$TMP/natsbench" ./bench/natsbench
if [ -z "${RUN:-}" ]; then
	go build -o "$TMP/run" ./cmd/run
	RUN=$TMP/run
fi

# field FILE NAME: the first value of "NAME" in a summary JSON.
field() { awk -F': ' -v k="\"$2\"" '$1 ~ k { gsub(/[ ,]/, "", $2); print $2; exit }' "$1"; }
# median of the numbers on standard input.
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

mqgate() { # SUB TARGET PAYLOAD FIELD
	local k=$BASHPID target=()
	[ -z "$2" ] || target=(--target "$2")
	"$RUN" load -q -s "$1" "${target[@]}" --payloads "$3" --duration "$DURATION" --warmup 1s -o "$TMP/res" --name "r$k" >/dev/null
	field "$TMP/res/r$k/load_$1_summary.json" "$4"
}
natsref() { "$TMP/natsbench" -url "$NATS_URL" -n "$N" -size 16 -subject "mqgate-bench-$$" | awk '{ print $2 }'; }
mqttref() {
	local hp=${MQTT_URL#*://} topic="mqgate-bench-$$-$BASHPID" got start end
	mosquitto_sub -h "${hp%:*}" -p "${hp##*:}" -t "$topic" -q 0 -C "$N" -W 120 >"$TMP/sub.out" &
	local sub=$!
	sleep 0.5
	start=$(date +%s.%N)
	yes 0123456789abcdef | head -n "$N" | mosquitto_pub -h "${hp%:*}" -p "${hp##*:}" -t "$topic" -q 0 -l
	wait "$sub" || true
	end=$(date +%s.%N)
	got=$(wc -l <"$TMP/sub.out")
	awk -v n="$got" -v a="$start" -v b="$end" 'BEGIN { printf "%.0f\n", n / (b - a) }'
}
iperfref() {
	local port=$((20000 + BASHPID % 30000))
	iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
	sleep 0.5
	iperf3 -c 127.0.0.1 -p "$port" -l 16K -t "${DURATION%s}" -f m | awk '/receiver/ { for (i = 1; i <= NF; i++) if ($i == "Mbits/sec") print $(i - 1) }'
	wait || true
}

missed=0
compare() { # NAME TARGET UNIT mqgate-values reference-values
	local name=$1 target=$2 unit=$3 a b ratio
	a=$(tr ' ' '\n' <<<"$4" | median)
	b=$(tr ' ' '\n' <<<"$5" | median)
	ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }')
	printf '%-16s mqgate %12.0f %s   reference %12.0f %s   ratio %s (target >= %s)  [mqgate: %s; reference: %s]\n' \
		"$name" "$a" "$unit" "$b" "$unit" "$ratio" "$target" "$4" "$5"
	awk -v r="$ratio" -v t="$target" 'BEGIN { exit !(r >= t) }' || { echo "  MISSED: $name" >&2; missed=1; }
}

nats_m= nats_r= mqtt_m= mqtt_r= tcp_m= tcp_r=
for round in $(seq "$ROUNDS"); do
	echo "round $round of $ROUNDS" >&2
	nats_m+="$(mqgate nats_best_effort "$NATS_URL" 16 receive_rate) "
	nats_r+="$(natsref) "
	mqtt_m+="$(mqgate mqtt_best_effort "$MQTT_URL" 16 receive_rate) "
	mqtt_r+="$(mqttref) "
	tcp_m+="$(mqgate interprocess_reliable_tcp "" 16384 receive_mbps) "
	tcp_r+="$(iperfref) "
done
compare "NATS 16 B" 0.9 msg/s "${nats_m% }" "${nats_r% }"
compare "MQTT QoS0 16 B" 1.0 msg/s "${mqtt_m% }" "${mqtt_r% }"
compare "TCP 16 KB" 0.5 Mb/s "${tcp_m% }" "${tcp_r% }"

echo "recording cost per delivered message (parse, sequence, counters, HDR, raw sample):"
go test -run '^$' -bench 'Record' -benchtime 2000000x ./internal/load | grep -E '^Benchmark'
exit "$missed"
