package nats

import (
	"fmt"
	"strconv"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
)

// Flag names: the keys of Options.Params.
const (
	FlagURL            = "nats-url"
	FlagUser           = "nats-user"
	FlagPassword       = "nats-password"
	FlagToken          = "nats-token"
	FlagCreds          = "nats-creds"
	FlagNKey           = "nats-nkey"
	FlagStorage        = "nats-storage"
	FlagReplicas       = "nats-replicas"
	FlagDoubleAck      = "nats-double-ack"
	FlagPullBatch      = "nats-pull-batch"
	FlagWriteBuffer    = "nats-write-buffer"
	FlagConnectTimeout = "nats-connect-timeout"
)

// DefaultURL is where the transport looks for a server when given none.
const DefaultURL = "nats://127.0.0.1:4222"

// DefaultMaxPayload is nats-server's default max_payload (1 MiB), the
// largest message a server accepts unless configured otherwise. Connected
// ends check the run's messages against the server's own value and report
// it in their SystemInfo (max_payload).
const DefaultMaxPayload = 1 << 20

// Valid ranges of the numeric flags (driver.Flag.Range).
var (
	replicasRange       = driver.IntRange(1, 5)
	pullBatchRange      = driver.IntRange(1, 1_000_000)
	writeBufferRange    = driver.IntRange(1, 1<<30)
	connectTimeoutRange = driver.DurationRange(time.Millisecond, time.Hour)
)

var flags = []driver.Flag{
	{Name: FlagURL, Default: DefaultURL, EnvVar: "MQGATE_NATS_URL",
		Usage: "NATS server URL (nats:// or tls://; user:password@ or token@ in the URL are accepted)"},
	{Name: FlagUser, EnvVar: "MQGATE_NATS_USER", Usage: "NATS user name (with --nats-password)"},
	{Name: FlagPassword, EnvVar: "MQGATE_NATS_PASSWORD", Secret: true, Usage: "NATS password"},
	{Name: FlagToken, EnvVar: "MQGATE_NATS_TOKEN", Secret: true, Usage: "NATS authentication token"},
	{Name: FlagCreds, EnvVar: "MQGATE_NATS_CREDS", Usage: "NATS credentials file (user JWT and NKey seed)"},
	{Name: FlagNKey, EnvVar: "MQGATE_NATS_NKEY", Usage: "file holding an NKey seed to authenticate with"},
	{Name: FlagStorage, Default: "file",
		Usage: "JetStream storage of the nats_reliable streams: file (persisted) or memory"},
	{Name: FlagReplicas, Default: "1", Range: replicasRange, Usage: "JetStream stream replicas (a clustered server may take 3 or 5)"},
	{Name: FlagDoubleAck, Default: "false",
		Usage: "JetStream consumers wait for the server to confirm each acknowledgement (double ack)"},
	{Name: FlagPullBatch, Default: "500", Range: pullBatchRange,
		Usage: "messages a JetStream consumer asks the server for ahead of time (pull batch)"},
	{Name: FlagWriteBuffer, Default: "32768", Range: writeBufferRange,
		Usage: "bytes nats.go buffers before writing to the socket; 1 writes each message from the sending goroutine instead of the library's flusher goroutine"},
	{Name: FlagConnectTimeout, Default: "5s", Range: connectTimeoutRange, Usage: "how long to wait for the server when connecting"},
}

// params are the parsed Options.Params, defaults filled in.
type params struct {
	url            string
	user, password string
	token          string
	creds, nkey    string
	memory         bool
	replicas       int
	doubleAck      bool
	pullBatch      int
	writeBuffer    int
	connectTimeout time.Duration
}

// parseParams reads opts.Params, using each flag's default for what is
// missing, and says which flag holds a value it cannot use.
func parseParams(p map[string]string) (params, error) {
	get := func(name string) string {
		if v, ok := p[name]; ok {
			return v
		}
		for _, f := range flags {
			if f.Name == name {
				return f.Default
			}
		}
		return ""
	}
	bad := func(name, want string) error {
		return fmt.Errorf("nats: --%s %q: want %s", name, get(name), want)
	}
	var r params
	r.url = get(FlagURL)
	if r.url == "" {
		r.url = DefaultURL
	}
	r.user, r.password, r.token = get(FlagUser), get(FlagPassword), get(FlagToken)
	r.creds, r.nkey = get(FlagCreds), get(FlagNKey)
	switch get(FlagStorage) {
	case "file":
	case "memory":
		r.memory = true
	default:
		return r, bad(FlagStorage, "file or memory")
	}
	var err error
	if r.replicas, err = strconv.Atoi(get(FlagReplicas)); err != nil || !replicasRange.Contains(int64(r.replicas)) {
		return r, bad(FlagReplicas, "a count from 1 to 5")
	}
	if r.doubleAck, err = strconv.ParseBool(get(FlagDoubleAck)); err != nil {
		return r, bad(FlagDoubleAck, "true or false")
	}
	if r.pullBatch, err = strconv.Atoi(get(FlagPullBatch)); err != nil || !pullBatchRange.Contains(int64(r.pullBatch)) {
		return r, bad(FlagPullBatch, "a number of messages from 1 to 1000000")
	}
	if r.writeBuffer, err = strconv.Atoi(get(FlagWriteBuffer)); err != nil || !writeBufferRange.Contains(int64(r.writeBuffer)) {
		return r, bad(FlagWriteBuffer, "a number of bytes from 1 to 1073741824")
	}
	if r.connectTimeout, err = time.ParseDuration(get(FlagConnectTimeout)); err != nil || !connectTimeoutRange.Contains(int64(r.connectTimeout)) {
		return r, bad(FlagConnectTimeout, "a duration from 1ms to 1h0m0s such as 5s")
	}
	if r.token != "" && (r.user != "" || r.creds != "" || r.nkey != "") {
		return r, fmt.Errorf("nats: --%s cannot be combined with --%s, --%s or --%s", FlagToken, FlagUser, FlagCreds, FlagNKey)
	}
	if r.password != "" && r.user == "" {
		return r, fmt.Errorf("nats: --%s needs --%s", FlagPassword, FlagUser)
	}
	return r, nil
}
