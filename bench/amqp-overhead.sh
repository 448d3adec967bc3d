#!/bin/sh
# amqp-overhead.sh: how much does `run` add to a RabbitMQ round trip?
#
# In one invocation, with the same placement for both, it measures the
# median (p50) 16-byte round trip through RabbitMQ of `run`
# (amqp_best_effort, its echo in a process of its own) and of the minimal
# amqp091 ping-pong in bench/amqppingpong (the same set-up, its echo in a
# process of its own), alternating ROUNDS times, and prints the ratio of
# the medians of the p50s (target <= 1.10). A placement is "none" (nothing
# pinned) or PINGER,ECHOER: run --cpus pins its pinger's thread and its echo
# process; the minimal pinger pins its pinging thread the same way and its
# echo runs under taskset. The broker is not pinned: it is the same for
# both.
#
# Environment: AMQP_URL (default $MQGATE_AMQP_URL, else
# amqp://guest:guest@127.0.0.1:5672/); CPUS, placements, space-separated
# (default "none 0,1"); SAMPLES (20000); ROUNDS (3); RUN (a prebuilt run
# binary; default: go build ./cmd/run).
set -eu

cd "$(dirname "$0")/.."
URL=${AMQP_URL:-${MQGATE_AMQP_URL:-amqp://guest:guest@127.0.0.1:5672/}}
CPUS=${CPUS:-"none 0,1"}
SAMPLES=${SAMPLES:-20000}
ROUNDS=${ROUNDS:-3}
WARMUP=$((SAMPLES / 10))
TMP=$(mktemp -d)
echo_pid=
cleanup() {
	if [ -n "$echo_pid" ]; then kill "$echo_pid" 2>/dev/null || true; fi
	rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

go build -o "$TMP/amqppingpong" ./bench/amqppingpong
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

run_amqp() { # PLACEMENT NAME
	cpus=
	[ "$1" = none ] || cpus="--cpus $1"
	# shellcheck disable=SC2086 # $cpus is empty or two words
	"$RUN" -q -s amqp_best_effort --amqp-url "$URL" --payloads 16 --samples "$SAMPLES" --warmup "$WARMUP" \
		--latency rtt $cpus --out "$TMP/results" --name "$2"
	p50ns "$TMP/results/$2/measurements_amqp_best_effort.csv"
}

minimal() { # PLACEMENT
	rm -f "$TMP/queue"
	if [ "$1" = none ]; then
		"$TMP/amqppingpong" echo "$URL" >"$TMP/queue" &
	else
		taskset -c "${1#*,}" "$TMP/amqppingpong" echo "$URL" >"$TMP/queue" &
	fi
	echo_pid=$!
	while [ ! -s "$TMP/queue" ]; do
		kill -0 "$echo_pid" 2>/dev/null || { echo "amqppingpong echo failed" >&2; exit 2; }
		sleep 0.01
	done
	pin=
	[ "$1" = none ] || pin=${1%,*}
	# shellcheck disable=SC2086 # $pin is empty or one word
	"$TMP/amqppingpong" ping "$URL" "$(head -n 1 "$TMP/queue")" "$SAMPLES" 16 "$WARMUP" $pin
	kill "$echo_pid"
	wait "$echo_pid" || true
	echo_pid=
}

echo "16-byte RabbitMQ round trip (amqp_best_effort), p50 over $SAMPLES samples, median of $ROUNDS alternating rounds"
printf '%-10s %12s %14s %8s\n' "placement" "run [ns]" "minimal [ns]" "ratio"
status=0
for placement in $CPUS; do
	: >"$TMP/run.txt" && : >"$TMP/minimal.txt"
	for i in $(seq "$ROUNDS"); do
		run_amqp "$placement" "amqp-$(echo "$placement" | tr , -)-$i" >>"$TMP/run.txt"
		minimal "$placement" >>"$TMP/minimal.txt"
	done
	r=$(median <"$TMP/run.txt")
	m=$(median <"$TMP/minimal.txt")
	ratio=$(awk -v a="$r" -v b="$m" 'BEGIN { printf "%.3f", a / b }')
	verdict=$(awk -v x="$ratio" 'BEGIN { print (x <= 1.10) ? "ok" : "ABOVE TARGET" }')
	[ "$verdict" = ok ] || status=1
	printf '%-10s %12s %14s %8s  %s (target <= 1.10)\n' "$placement" "$r" "$m" "$ratio" "$verdict"
	printf '           rounds: run %s| minimal %s\n' "$(tr '\n' ' ' <"$TMP/run.txt")" "$(tr '\n' ' ' <"$TMP/minimal.txt")"
done
exit $status
