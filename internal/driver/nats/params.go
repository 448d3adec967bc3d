package nats

import (
	"cmp"
	"fmt"
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
	{Name: FlagReplicas, Default: "1", Range: driver.IntRange(1, 5), Usage: "JetStream stream replicas (a clustered server may take 3 or 5)"},
	{Name: FlagDoubleAck, Default: "false", Boolean: true,
		Usage: "JetStream consumers wait for the server to confirm each acknowledgement (double ack)"},
	{Name: FlagPullBatch, Default: "500", Range: driver.IntRange(1, 1_000_000),
		Usage: "messages a JetStream consumer asks the server for ahead of time (pull batch)"},
	{Name: FlagWriteBuffer, Default: "32768", Range: driver.IntRange(1, 1<<30),
		Usage: "bytes nats.go buffers before writing to the socket; 1 writes each message from the sending goroutine instead of the library's flusher goroutine"},
	{Name: FlagConnectTimeout, Default: "5s", Range: driver.DurationRange(time.Millisecond, time.Hour), Usage: "how long to wait for the server when connecting"},
}

// params are the parsed Options.Params, defaults filled in.
type params struct {
	url            string
	user, password string
	token          string
	creds, nkey    string
	storage        string // "file" or "memory"
	replicas       int
	doubleAck      bool
	pullBatch      int
	writeBuffer    int
	connectTimeout time.Duration
}

// parseParams reads opts.Params against the flags (driver.ParseParams:
// defaults for what is missing, ranges checked) and says which flag holds a
// value it cannot use.
func parseParams(p map[string]string) (params, error) {
	ps, err := driver.ParseParams(flags, p)
	if err != nil {
		return params{}, fmt.Errorf("nats: %w", err)
	}
	r := params{
		url: cmp.Or(ps.String(FlagURL), DefaultURL), user: ps.String(FlagUser), password: ps.String(FlagPassword),
		token: ps.String(FlagToken), creds: ps.String(FlagCreds), nkey: ps.String(FlagNKey),
		replicas: ps.Int(FlagReplicas), doubleAck: ps.Bool(FlagDoubleAck),
		pullBatch: ps.Int(FlagPullBatch), writeBuffer: ps.Int(FlagWriteBuffer), connectTimeout: ps.Duration(FlagConnectTimeout),
		storage: ps.String(FlagStorage),
	}
	if r.storage != "file" && r.storage != "memory" {
		return r, fmt.Errorf("nats: --%s %q: want file or memory", FlagStorage, r.storage)
	}
	if r.token != "" && (r.user != "" || r.creds != "" || r.nkey != "") {
		return r, fmt.Errorf("nats: --%s cannot be combined with --%s, --%s or --%s", FlagToken, FlagUser, FlagCreds, FlagNKey)
	}
	if r.password != "" && r.user == "" {
		return r, fmt.Errorf("nats: --%s needs --%s", FlagPassword, FlagUser)
	}
	return r, nil
}
