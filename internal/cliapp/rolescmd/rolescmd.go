package rolescmd

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/config"
	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/roles"
)

// usage of every setting but those describing each system (systemUsage),
// by key; defaults are roles.Resolve's.
var usage = map[string]string{
	"topic-prefix":      "topics start with this (default mqgate.bench; zenoh: mqgate/bench); data go below <prefix>.data, clock probes to <prefix>.clock",
	"topics":            "pub: publisher i publishes on <prefix>.data.<i mod topics> (default 1)",
	"publishers":        "pub: publishers in this process, each at --rate; sub: publishers expected in all, each ends with an end marker (default 1)",
	"payload":           "pub, req: the message size in bytes, one size, at least 24 (default 64)",
	"rate":              "pub: messages per second per publisher, open loop (default 1000)",
	"duration":          "pub, req: how long to send; qry: how long to serve; sub: how long to wait for a first message, with --timeout (default 10s)",
	"expr":              "sub: what to subscribe to, it and below it unless it has a wildcard (when not given: <prefix>.data); req: the query key (when not given: the first --serve-prefix); zenoh: those keys only",
	"subscribers":       "sub: subscriptions in this process, each counting every message (default 1)",
	"qps":               "req: queries per second, open loop (default 100)",
	"concurrency":       "req: queries in flight at most; a slot that finds them all busy is skipped and counted (default 8)",
	"timeout":           "req: wait for replies; sub: silence that ends the run; pub: flush; every role: a lost peer (default 5s)",
	"agg-window":        "req: after the first reply, gather replies this long, past --replies, up to --timeout (default 0: none, a query ends at --replies)",
	"snapshot-interval": "width of the --csv snapshot windows (default 1s; --agg-window until that name became the gathering window)",
	"serve-prefix":      "qry: answer queries on this key and below, repeatable; keys may not overlap (default <prefix>.query; zenoh: that key only)",
	"reply-size":        "qry: bytes per reply (default 64)",
	"proc-delay":        "qry: processing delay per reply, DELAY or DELAY±JITTER (uniform), e.g. 2ms±500us (default 0)",
	"replies":           "qry: replies per query; req: replies expected per query, fewer within --timeout is a timeout (default 1)",
	"csv":               "write a snapshot per --snapshot-interval to this CSV file; alone (or true): to roles/<role>-<label>-<instance>.csv beside the report",
	"run-id":            "experiment name, shared by every role of one measurement: results go to --out/<name> (default: UTC start time)",
	"out-dir":           "results root (default results)",
	"prom-port":         "serve Prometheus metrics at /metrics on this port of 127.0.0.1, loopback only (default: none); --prom-addr exposes them elsewhere",
	"prom-addr":         "serve Prometheus metrics at /metrics at HOST:PORT instead of --prom-port, e.g. 0.0.0.0:9102 to expose them on every interface (default: none)",
	"log-level":         "debug, info, warn or error (default info)",
	"label":             "sub, req: the sub-experiment is <driver>_<reliability>_<label> (default pubsub, query)",
	"instance":          "pub: this process's publisher ids are instance·256 + i, 0..255; names the role's report, which no other role of the run replaces: one given twice is refused (default, when not given: random, the next free one when taken)",
	"clock-offset":      "sub: estimate each publisher host's clock offset and correct one-way latencies (default true)",
	"clock-probes":      "sub: clock probes per publisher host (default 32)",
	"seed":              "qry: seed of the processing-delay jitter (default 1)",
	"wait-for":          "before connecting, wait until each is ready, repeatable: tcp://HOST:PORT accepts connections (a router, a broker), nats://HOST:PORT?server_name=NAME is the NATS server named NAME (nats-server -n NAME), zenoh://HOST:PORT?zid=ID the Zenoh router of id ID (its configuration's id), http://HOST:PORT/health answers 200 (a sub or qry with --prom-addr, once subscribed or serving): the start barrier of pub and req; a name or id tells a topology's own server from another holding its port",
	"wait-timeout":      "bound on the whole --wait-for wait; past it the role fails naming what was not ready (default 1m)",
}

// roleUsage is each role's line of help, by name.
var roleUsage = map[string]string{
	roles.RolePub: "publish open-loop streams (the sending role of one-way latency)",
	roles.RoleSub: "subscribe and measure one-way latency, corrected by each publisher host's clock offset",
	roles.RoleReq: "send queries open-loop and measure time to first and last reply",
	roles.RoleQry: "answer queries (the queryable role)",
}

// Commands are `run pub`, `run sub`, `run req`, `run qry` and `run wait`.
func Commands() []*cli.Command {
	out := []*cli.Command{waitCommand()}
	for _, role := range []string{roles.RolePub, roles.RoleSub, roles.RoleReq, roles.RoleQry} {
		flags := []cli.Flag{&cli.StringFlag{Name: "config", Usage: configUsage}}
		for _, k := range roles.AllKeys() {
			name, aliases := flagName(k)
			switch {
			case slices.Contains(listKeys, k):
				flags = append(flags, &cli.StringSliceFlag{Name: name, Aliases: aliases, Usage: settingUsage(k)})
			case k == "csv":
				flags = append(flags, &cli.GenericFlag{Name: name, Aliases: aliases, Usage: settingUsage(k), Value: &optionalValue{}})
			default:
				flags = append(flags, &cli.StringFlag{Name: name, Aliases: aliases, Usage: settingUsage(k)})
			}
		}
		out = append(out, &cli.Command{
			Name:  role,
			Usage: roleUsage[role],
			Description: `Roles run as separate processes, on any hosts, and write into one experiment
directory, --out/<name>: sub and req add their raw files (formats §2) and
sub-experiments to its meta.json, every role leaves roles/<role>-<label>-<instance>.json
(formats §9, "Role reports"). Start sub and qry before pub and req.
Every setting may come from --config FILE or an MQ_<SETTING> environment variable
(MQ_TOPIC_PREFIX=…; MQ_ENDPOINTS and MQ_KEY_EXPR also work); a flag wins over the
environment, which wins over the file. The flags are run's (docs/cli.md); the
settings --target, --out, --name and --payloads keep the names endpoint, out-dir,
run-id and payload in files and variables (MQ_ENDPOINT, MQ_OUT_DIR, MQ_RUN_ID,
MQ_PAYLOAD), and those names stay the flags' aliases.
--name, --out, --prom-port, --prom-addr, --log-level and --config may also be given to
run itself, before the role's name (run --name r1 --out /data sub …);
after the name they win over the same flag before it.

Exit codes: 0 done; 2 usage error, or a peer or the system lost (results are
written, meta.json marks them incomplete); 130 interrupted (SIGINT, SIGTERM:
what was measured is written, and one line on standard error names it).
The last line of standard error names the results.

Example (three hosts, a NATS server on 10.0.0.1):
   hostB$ run sub --target nats://10.0.0.1:4222 --name r1 --publishers 2
   hostA$ run pub --target nats://10.0.0.1:4222 --name r1 --publishers 2 --rate 500 --duration 30s`,
			Flags:  flags,
			Action: func(c *cli.Context) error { return action(c, role) },
		})
	}
	return out
}

// waitCommand is `run wait`: the roles' start barrier on its own, for a
// container healthcheck in an image without a shell or curl.
func waitCommand() *cli.Command {
	return &cli.Command{
		Name:      "wait",
		Usage:     "wait until routers, brokers or roles are ready (tcp://HOST:PORT, nats://HOST:PORT?server_name=NAME, zenoh://HOST:PORT?zid=ID, http://HOST:PORT/health): a healthcheck",
		UsageText: "run wait [--timeout D] ADDR...",
		Description: `Exits 0 once every ADDR is ready, as a role's --wait-for waits: tcp://HOST:PORT
accepts a connection; nats://HOST:PORT is a NATS server, which with
?server_name=NAME announces that name in its INFO line (nats-server -n NAME);
zenoh://HOST:PORT is a Zenoh router, which with ?zid=ID answers a client's
InitSyn with that id (the "id" of its configuration); http://HOST:PORT/PATH
answers 200 (a sub's or qry's /health, served with --prom-addr, answers 200
once it subscribed or serves). A server of another name or id at the port
(another broker holding it) is not ready: the wait goes on, and the error at
the bound names both.
Exit codes: 0 ready; 2 not ready within --timeout (the address and the last
error are named) or a malformed address; 130 interrupted.

Example (a Compose healthcheck of a sub serving --prom-addr 127.0.0.1:9201):
   test: ["CMD", "/usr/local/bin/run", "wait", "--timeout", "2s", "http://127.0.0.1:9201/health"]`,
		Flags: []cli.Flag{cliapp.Ranged(&cli.DurationFlag{Name: "timeout", Value: time.Minute, Usage: "give up after this long"}, roles.Ranges["wait-timeout"])},
		Action: func(c *cli.Context) error {
			addrs := c.Args().Slice()
			if len(addrs) == 0 {
				return exit.With(exit.Usage, errors.New("run wait: expected one or more addresses, tcp://HOST:PORT, nats://HOST:PORT?server_name=NAME, zenoh://HOST:PORT?zid=ID or http://HOST:PORT/PATH"))
			}
			if err := roles.WaitReady(c.Context, addrs, c.Duration("timeout")); err != nil {
				if c.Context.Err() != nil {
					return exit.With(exit.Interrupted, errors.New("run wait: interrupted"))
				}
				return exit.With(exit.Usage, err)
			}
			return nil
		},
	}
}

// listKeys are the settings that are repeatable flags.
var listKeys = []string{"endpoint", "wait-for", "serve-prefix"}

// topKeys are the settings `run` itself takes before a role's name (run
// --name X --out D pub …), besides --config.
var topKeys = []string{"run-id", "out-dir", "prom-port", "prom-addr", "log-level"}

// TopFlags are the flags of `run` itself that the roles read: --prom-port,
// --prom-addr, --log-level and --config, and the former spellings --run-id
// and --out-dir (hidden: run's own --name and --out serve the roles,
// ServesRole), given before the role's name. They are command-line flags
// as those after it: they win over MQ_* variables and the file; a flag
// after the role's name wins over the same flag before it.
func TopFlags() []cli.Flag {
	cat := "roles (run pub|sub|req|qry)"
	flags := []cli.Flag{&cli.StringFlag{Name: "config", Category: cat, Usage: "roles: " + configUsage}}
	for _, k := range topKeys {
		_, renamed := flagNames[k]
		flags = append(flags, &cli.StringFlag{Name: k, Category: cat, Usage: "roles: " + settingUsage(k), Hidden: renamed})
	}
	return flags
}

// ServesRole reports whether run's own flag name, given before next, is a
// setting of the role next: --name and --out (run --name r1 --out D sub …).
func ServesRole(next, name string) bool {
	_, role := roleUsage[next]
	return role && slices.ContainsFunc(topKeys, func(k string) bool { return flagNames[k] == name })
}

// settingUsage is the usage of setting k, with its valid range.
func settingUsage(k string) string {
	if r, ok := roles.Ranges[k]; ok {
		return usage[k] + " (valid: " + r.String() + ")"
	}
	if u, ok := systemUsage(k); ok {
		return u
	}
	if u, ok := roles.DriverUsage(k); ok {
		return u
	}
	return usage[k]
}

// systemUsage is the usage of --driver, --target and --reliability,
// made of what each registered system says of itself.
func systemUsage(k string) (string, bool) {
	var what, where, notes, rel []string
	for _, name := range roles.Drivers() {
		t, _ := driver.Lookup(name)
		u := t.(driver.RoleSystem).RoleUsage()
		what = append(what, name+" ("+u.What+")")
		where = append(where, u.Endpoint)
		notes = append(notes, name+": "+u.EndpointNote)
		rel = append(rel, name+": "+u.Reliability)
	}
	switch k {
	case "driver":
		last := len(what) - 1
		return "messaging system: " + strings.Join(what[:last], ", ") + " or " + what[last] + " (default nats)", true
	case "endpoint":
		return "where the system is, repeatable (" + strings.Join(notes, "; ") + "): " + strings.Join(where, ", "), true
	case "reliability":
		return "best_effort (or best) or reliable (default best_effort): " + strings.Join(rel, "; "), true
	}
	return "", false
}

const configUsage = "settings file, YAML or TOML (keys are the settings' names: the flag names, with endpoint, out-dir, run-id and payload for --target, --out, --name and --payloads; a section per role); flags win over MQ_* environment variables, which win over the file"

// CheckTopFlags refuses the roles' flags of `run` itself (TopFlags) before
// anything but a role: the round-trip run and the other subcommands have
// flags of their own (--out, --name), and would ignore them. It is the
// Before of `run`.
func CheckTopFlags(c *cli.Context) error {
	next := c.Args().First()
	if _, ok := roleUsage[next]; ok {
		return nil
	}
	for _, k := range append([]string{"config"}, topKeys...) {
		if !c.IsSet(k) {
			continue
		}
		where := "without a subcommand (the round-trip run takes --out and --name)"
		if next != "" && !strings.HasPrefix(next, "-") {
			where = "before " + next
		}
		return exit.With(exit.Usage, fmt.Errorf("--%s is a setting of the roles (run --%s … pub|sub|req|qry …), not of run %s", k, k, where))
	}
	return nil
}

// topValue is key's value given before the role's name, if it was: by its
// former spelling (--run-id) or by run's flag of the same name (--name).
func topValue(c *cli.Context, key string) (string, bool) {
	for _, p := range c.Lineage()[1:] {
		for _, name := range []string{key, flagNames[key]} {
			if name != "" && p.IsSet(name) {
				return p.String(name), true
			}
		}
	}
	return "", false
}

// aliases are the harness design's spellings of the flags, by setting,
// and -o, which --out is on every other run subcommand.
var aliases = map[string][]string{"expr": {"key-expr"}, "out-dir": {"o"}}

// flagNames are the command-line names of the settings that run's
// vocabulary spells otherwise (docs/cli.md): --target, --out, --name and
// --payloads, as every run subcommand takes them. The setting's own name
// stays the flag's alias, and its name in MQ_* variables and files.
var flagNames = map[string]string{"endpoint": "target", "out-dir": "out", "run-id": "name", "payload": "payloads"}

// flagName is the flag of setting k: its name and its aliases.
func flagName(k string) (string, []string) {
	if name, ok := flagNames[k]; ok {
		return name, append([]string{k}, aliases[k]...)
	}
	return k, aliases[k]
}

// envAliases are the harness design's spellings of MQ_* variables.
var envAliases = map[string]string{"MQ_ENDPOINTS": "MQ_ENDPOINT", "MQ_KEY_EXPR": "MQ_EXPR"}

// environ is the environment, with the design's spellings of variables
// under their names.
func environ() []string {
	env := os.Environ()
	for i, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		if to, ok := envAliases[name]; ok {
			env[i] = to + "=" + value
		}
	}
	return env
}

// optionalValue is the value of --csv, which may come alone: "true".
type optionalValue struct{ v string }

func (o *optionalValue) Set(v string) error { o.v = v; return nil }
func (o *optionalValue) String() string     { return o.v }
func (o *optionalValue) IsBoolFlag() bool   { return true }

// reparse runs the role again when --csv came alone: before another flag
// or last it is "true" (roles.Resolve names the file), and before a word
// the word is its file, at which flag parsing stopped.
func reparse(c *cli.Context) (bool, error) {
	parent := c.Lineage()[1]
	args := parent.Args().Slice() // the role's name, then its arguments
	i := slices.IndexFunc(args, func(a string) bool { return a == "--csv" || a == "-csv" })
	if i < 0 {
		return false, nil
	}
	v := "true"
	if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
		v = args[i+1]
		args = slices.Delete(args, i+1, i+2)
	}
	args[i] = "--csv=" + v
	// The run again sees these arguments as its parent's.
	given := flag.NewFlagSet(args[0], flag.ContinueOnError)
	given.Parse(args)
	again := cli.NewContext(c.App, nil, cli.NewContext(c.App, given, parent))
	again.Command = c.Command
	return true, c.Command.Run(again, args...)
}

// runRole runs a role once its settings are resolved (tests look at the
// settings instead).
var runRole = roles.Run

func action(c *cli.Context, role string) error {
	if again, err := reparse(c); again {
		return err
	}
	if err := cliapp.NoArgs(c); err != nil {
		return err
	}
	set := map[string]any{}
	for _, k := range roles.AllKeys() {
		switch {
		case c.IsSet(k) && slices.Contains(listKeys, k):
			set[k] = c.StringSlice(k)
		case c.IsSet(k):
			set[k] = c.String(k)
		case slices.Contains(topKeys, k):
			if v, ok := topValue(c, k); ok {
				set[k] = v
			}
		}
	}
	file := c.String("config")
	if !c.IsSet("config") {
		file, _ = topValue(c, "config")
	}
	cfg, err := config.Load(config.Sources{File: file, Section: role, Environ: environ(), Flags: set, Known: roles.AllKeys()})
	if err != nil {
		return exit.With(exit.Usage, err)
	}
	s, err := roles.Resolve(role, cfg, time.Now())
	if err != nil {
		return exit.With(exit.Usage, err)
	}
	s.Args = os.Args
	s.Log = newLogger(c.App.ErrWriter, s.LogLevel)
	if c.App.Version != "" {
		roles.Version = c.App.Version
	}
	out := runRole(c.Context, s)
	if out.Interrupted && out.Err == nil {
		// Interrupted: one line, the summary, which names the results.
		return exit.With(exit.Interrupted, errors.New(out.Summary))
	}
	if out.Err == nil || len(out.Paths) > 0 {
		// A role that wrote nothing has only its error to say.
		fmt.Fprintln(c.App.ErrWriter, out.Summary)
	}
	switch {
	case out.Err != nil:
		return exit.With(exit.Usage, out.Err)
	case out.Incomplete:
		return exit.With(exit.Usage, fmt.Errorf("incomplete run (a peer or the system was lost); what was measured is in %s, whose meta.json and role report say why", strings.Join(out.Paths, ", ")))
	}
	return nil
}

// newLogger returns the diagnostics logger of a role: text lines on w at
// level (debug, info, warn, error).
func newLogger(w io.Writer, level string) *slog.Logger {
	var l slog.Level // an unknown level leaves it Info, the zero Level
	l.UnmarshalText([]byte(level))
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l}))
}
