package runapp_test

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/runcmd"
	"github.com/mqgate/mqgate/internal/driver/drivertest/hub"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/meta/metatest"
)

// The broker tests use the hub (internal/driver/drivertest/hub), a small
// broker registered by these tests only, to exercise what every broker
// driver relies on: URLs, driver flags, secrets, embedded brokers, echo
// placement, topics, acknowledgements and broker failures.

// readMeta reads an experiment's meta.json and its raw bytes.
func readMeta(t *testing.T, dir string) (*meta.Meta, string) {
	t.Helper()
	m, err := meta.ReadFile(filepath.Join(dir, meta.FileName))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(dir, meta.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if missing, err := metatest.MissingFields(doc); err != nil || len(missing) > 0 {
		t.Errorf("meta.json lacks formats §6 fields %v (%v)", missing, err)
	}
	return m, string(doc)
}

// noDir fails the test if dir exists.
func noDir(t *testing.T, dir string) {
	t.Helper()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s exists (%v); a failure found before measuring must create nothing", dir, err)
	}
}

// TestBrokerEmbedded measures the hub's sub-experiments on an embedded
// hub with every local echo placement, secure included, and checks what
// meta.json records: the system, its URL without the password, the
// topics, the acknowledgements and the driver's settings without secrets.
func TestBrokerEmbedded(t *testing.T) {
	for _, echo := range []string{"inprocess", "subprocess"} {
		t.Run(echo, func(t *testing.T) {
			out := t.TempDir()
			subs := []string{"hub_reliable", "hub_best_effort", "hub_reliable_security"}
			code, _, stderr := run(t, "-s", strings.Join(subs, ","), "--broker", "embedded", "--echo", echo,
				"--payloads", "16,1024", "--samples", "200", "--warmup", "10", "--timeout", "10s",
				"--hub-tag", "blue", "--hub-password", "s3cret-flag", "--out", out, "--name", "e", "-q")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			m, doc := readMeta(t, filepath.Join(out, "e"))
			if strings.Contains(doc, "s3cret-flag") {
				t.Errorf("meta.json holds the secret flag's value:\n%s", doc)
			}
			if !m.Completed || m.Config.Broker != "embedded" || m.Config.Params["hub-tag"] != "blue" {
				t.Errorf("config: completed %v broker %q params %v", m.Completed, m.Config.Broker, m.Config.Params)
			}
			if _, ok := m.Config.Params["hub-password"]; ok {
				t.Errorf("the secret flag is in config.params: %v", m.Config.Params)
			}
			topics := map[string]bool{}
			for i, s := range m.SubExperiments {
				wantEcho := map[string]string{"inprocess": "in-process", "subprocess": "subprocess"}[echo]
				if s.Type != subs[i] || s.Echo != wantEcho || !s.Completed || topics[s.Topic] || !strings.HasSuffix(s.Topic, "-"+s.Type) {
					t.Errorf("sub-experiment %+v", s)
				}
				topics[s.Topic] = true
				sys := s.System
				if sys == nil || sys.Product != "mqgate test hub" || !sys.Embedded || !strings.Contains(sys.URL, "mqgate:xxxxx@127.0.0.1:") {
					t.Errorf("%s: system %+v", s.Type, sys)
				}
				if s.Params["hub-tag"] != "blue" || s.Params["hub-password"] != "" || s.Params["hub-url"] != sys.URL {
					t.Errorf("%s: params %v", s.Type, s.Params)
				}
				reliable := s.Type != "hub_best_effort"
				if s.Acknowledged != reliable {
					t.Errorf("%s: acknowledged %v", s.Type, s.Acknowledged)
				}
				for _, p := range s.Payloads {
					if reliable && (p.MessagesAcked != 200 || p.Lost != 0 || p.Samples != 200) {
						t.Errorf("%s/%d: %+v; want 200 samples, all acknowledged", s.Type, p.Bytes, p)
					}
					if !reliable && p.MessagesAcked != 0 {
						t.Errorf("%s/%d: %d acknowledged on an unacknowledged link", s.Type, p.Bytes, p.MessagesAcked)
					}
				}
				summarise(t, filepath.Join(out, "e", experiment.RawFileName(s.Type)))
			}
			if strings.Join(m.System.Scopes, ",") != "hub" {
				t.Errorf("scopes %v", m.System.Scopes)
			}
		})
	}
}

// TestBrokerURL reaches an external hub with credentials by --target, by
// the driver's URL flag, by its environment variable, and with the
// password in a secret flag; no form leaves the password in meta.json.
func TestBrokerURL(t *testing.T) {
	h, err := hub.Start("alice", "pw-in-url", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	addr := strings.TrimPrefix(h.URL(), "hub://alice:pw-in-url@")
	tests := []struct {
		name string
		args []string
		env  string
	}{
		{"target", []string{"--target", h.URL()}, ""},
		{"transport-target", []string{"--target", "hub=" + h.URL()}, ""},
		{"url-flag", []string{"--hub-url", h.URL()}, ""},
		{"env", nil, h.URL()},
		{"secret-flag", []string{"--hub-url", "hub://alice@" + addr, "--hub-password", "pw-in-url"}, ""},
	}
	out := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.env != "" {
				t.Setenv("MQGATE_HUB_URL", tt.env)
			}
			args := append([]string{"-s", "hub_reliable", "--payloads", "16", "--samples", "50", "--warmup", "5",
				"--out", out, "--name", tt.name, "-q"}, tt.args...)
			code, _, stderr := run(t, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			m, doc := readMeta(t, filepath.Join(out, tt.name))
			if strings.Contains(doc, "pw-in-url") {
				t.Errorf("meta.json holds the password:\n%s", doc)
			}
			if got := m.SubExperiments[0].Params["hub-url"]; got != "hub://alice:xxxxx@"+addr && got != "hub://alice@"+addr {
				t.Errorf("params record hub-url %q, not the URL used", got)
			}
			if s := m.SubExperiments[0]; s.System == nil || s.System.URL != "hub://alice@"+addr && s.System.URL != "hub://alice:xxxxx@"+addr || s.System.Embedded {
				t.Errorf("system %+v", s.System)
			}
		})
	}
}

// TestBrokerUnreachable: a broker that is not there, or refuses the
// credentials, is reported before the experiment directory is created,
// naming the URL without its password.
func TestBrokerUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	h, err := hub.Start("alice", "right", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	wrong := strings.Replace(h.URL(), ":right@", ":wrong@", 1)
	out := t.TempDir()
	for _, tt := range []struct {
		name, url string
		want      []string
	}{
		{"closed", "hub://" + closed, []string{"hub_reliable: cannot reach the broker at hub://" + closed, "connection refused"}},
		{"credentials", wrong, []string{"cannot reach the broker at " + strings.Replace(wrong, ":wrong@", ":xxxxx@", 1), "authentication failed"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := run(t, "-s", "hub_reliable", "--target", tt.url, "--out", out, "--name", tt.name)
			if code != exit.Usage {
				t.Errorf("exit %d, want 2: %s", code, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q: %s", w, stderr)
				}
			}
			if strings.Contains(stderr, "wrong@") {
				t.Errorf("stderr shows the password: %s", stderr)
			}
			noDir(t, filepath.Join(out, tt.name))
		})
	}
}

// TestBrokerDies closes the hub in the middle of a run whose timeout is a
// minute: run stops at once with exit 2, says where, keeps what it
// measured and marks meta.json incomplete.
func TestBrokerDies(t *testing.T) {
	for _, echo := range []string{"inprocess", "subprocess"} {
		t.Run(echo, func(t *testing.T) {
			h, err := hub.Start("", "", nil)
			if err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			type result struct {
				code   int
				stderr string
			}
			done := make(chan result, 1)
			go func() {
				var o, e bytes.Buffer
				code := cliapp.Run(context.Background(), runcmd.App(), []string{"run", "-s", "hub_reliable", "--target", h.URL(),
					"--echo", echo, "--payloads", "16", "--samples", "10000000", "--warmup", "0", "--timeout", "60s",
					"--max-lost-in-row", "1000", "--out", out, "--name", "d", "-q"}, &o, &e)
				done <- result{code, e.String()}
			}()
			waitFor(t, "messages through the hub", func() bool { return h.Published() > 2000 })
			h.Close()
			var r result
			select {
			case r = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("run did not stop within 30 s of the broker's death (timeout 60 s)")
			}
			if r.code != exit.Usage || !strings.Contains(r.stderr, "hub_reliable: payload 16 B, round trip") || !strings.Contains(r.stderr, "incomplete") {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			m, _ := readMeta(t, filepath.Join(out, "d"))
			p := m.SubExperiments[0].Payloads[0]
			if m.Completed || m.Interrupted || m.Error == "" || p.Samples == 0 || p.Completed {
				t.Errorf("meta: completed %v interrupted %v error %q payload %+v", m.Completed, m.Interrupted, m.Error, p)
			}
			rows := summarise(t, filepath.Join(out, "d", experiment.RawFileName("hub_reliable")))
			if len(rows) != 1 || rows[0].Samples != p.Samples {
				t.Errorf("summary %+v, meta %+v", rows, p)
			}
		})
	}
}

// startBrokerEcho starts `run echo` for the hub as a separate process.
func startBrokerEcho(t *testing.T, url, topic string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "echo", "--transport", "hub", "--listen", url, "--topic", topic, "--reliable")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("no address: %v; stderr %s", err, stderr.String())
	}
	if strings.Contains(line, "pw") {
		t.Errorf("run echo printed the password: %q", line)
	}
}

// TestBrokerRemoteEcho measures against a `run echo` subscribed to a topic
// on the hub; a topic nobody echoes fails before anything is created.
func TestBrokerRemoteEcho(t *testing.T) {
	h, err := hub.Start("bob", "pw", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	startBrokerEcho(t, h.URL(), "remote-topic")
	out := t.TempDir()
	code, _, stderr := run(t, "-s", "hub_reliable", "--target", h.URL(), "--echo", "remote", "--topic", "remote-topic",
		"--payloads", "16,100", "--samples", "100", "--out", out, "--name", "r", "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m, _ := readMeta(t, filepath.Join(out, "r"))
	if s := m.SubExperiments[0]; s.Echo != "remote" || s.Topic != "remote-topic" || m.Config.Topic != "remote-topic" || m.Config.Echo != "remote" {
		t.Errorf("sub-experiment %+v, config %+v", s, m.Config)
	}
	code, _, stderr = run(t, "-s", "hub_reliable", "--target", h.URL(), "--echo", "remote", "--topic", "nobody-echoes",
		"--connect-timeout", "500ms", "--out", out, "--name", "n")
	if code != exit.Usage || !strings.Contains(stderr, "did not echo within --connect-timeout 500ms") {
		t.Errorf("no echo on the topic: exit %d, %s", code, stderr)
	}
	noDir(t, filepath.Join(out, "n"))
}

// TestBrokerUsageErrors: broker settings that cannot work are refused
// before anything is created.
func TestBrokerUsageErrors(t *testing.T) {
	out := t.TempDir()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-s", "hub_reliable"}, "hub_reliable: no broker URL: give --target hub://HOST:PORT, --hub-url (or MQGATE_HUB_URL), or --broker embedded"},
		{[]string{"-s", "hub_reliable", "--hub-url", "127.0.0.1:1"}, "expected a URL such as hub://HOST:PORT"},
		{[]string{"-s", "hub_reliable", "--target", "hub=127.0.0.1:1"}, "transport hub reaches a broker: expected a URL"},
		{[]string{"-s", "hub_reliable", "--target", "gopher://127.0.0.1:70"}, "no registered transport takes gopher:// URLs"},
		{[]string{"-s", "hub_reliable", "--hub-url", "hub://127.0.0.1:1", "--target", "hub=hub://127.0.0.1:1", "--target", "udp=127.0.0.1:2"}, `no selected sub-experiment uses transport "udp"`},
		{[]string{"-s", "hub_reliable", "--target", "tcp=hub://127.0.0.1:1"}, "a hub:// URL is for transport hub, not tcp"},
		{[]string{"-s", "hub_reliable", "--broker", "embedded", "--target", "hub://127.0.0.1:1"}, "--broker embedded and --target"},
		{[]string{"-s", "hub_reliable", "--broker", "sometimes"}, `--broker "sometimes"`},
		{[]string{"-s", "hub_reliable", "--broker", "embedded", "--echo", "remote", "--topic", "x"}, "a remote echo cannot reach it"},
		{[]string{"-s", "hub_reliable", "--target", "hub://127.0.0.1:1", "--echo", "remote"}, "needs --topic"},
		{[]string{"-s", "hub_reliable", "--echo", "elsewhere"}, `--echo "elsewhere"`},
		{[]string{"-s", "interprocess_reliable", "--echo", "remote"}, "--echo remote needs --target"},
		{[]string{"-s", "interprocess_reliable", "--echo", "subprocess", "--target", "127.0.0.1:1"}, "the echo placement is not remote"},
		{[]string{"-s", "hub_reliable", "--broker", "embedded", "--payloads", "2000000"}, "payload 2000000 B is larger than the 1048576-byte maximum message of transport hub (sub-experiment hub_reliable)"},
		{[]string{"-s", "hub_reliable_security", "--target", "hubs://127.0.0.1:1"}, "needs --ca"},
	}
	for _, tt := range tests {
		args := append([]string{"--out", out, "--name", "u"}, tt.args...)
		code, _, stderr := run(t, args...)
		if code != exit.Usage || !strings.Contains(stderr, tt.want) {
			t.Errorf("run %v: exit %d, stderr %q; want 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
	noDir(t, filepath.Join(out, "u"))
}

// TestList shows the registered sub-experiments, brokers included, and
// each transport's declared capabilities, and the unknown-name error
// points to it.
func TestList(t *testing.T) {
	code, stdout, stderr := run(t, "--list")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"SUB-EXPERIMENT", "interprocess_reliable_tcp_security", "hub_reliable_security", "broker (hub, hubs)", "65507 B"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("--list lacks %q:\n%s", want, stdout)
		}
	}
	for _, want := range []string{
		`(?m)^TRANSPORT +CAPABILITIES$`,
		`(?m)^hub +broker \(hub, hubs\), echo delay$`,
		`(?m)^intraprocess +process-bound, echo delay$`,
		`(?m)^external +process-bound$`,
		`(?m)^udp +echo delay$`,
		`(?m)^zenoh +-$`,
	} {
		if !regexp.MustCompile(want).MatchString(stdout) {
			t.Errorf("--list lacks a line matching %s:\n%s", want, stdout)
		}
	}
	code, _, stderr = run(t, "-s", "nosuch_reliable")
	if code != exit.Usage || !strings.Contains(stderr, "hub_best_effort") || !strings.Contains(stderr, "run --list") {
		t.Errorf("unknown sub-experiment: exit %d, %s", code, stderr)
	}
	if !strings.Contains(runcmd.App().Description, "hub_reliable") {
		t.Error("the help does not list the registered sub-experiments")
	}
}

// TestDriverFlagsInEcho: the transports' flags reach `run echo` too.
func TestDriverFlagsInEcho(t *testing.T) {
	for _, f := range runcmd.App().Commands[0].Flags {
		if f.Names()[0] == "hub-url" {
			return
		}
	}
	t.Error("run echo has no --hub-url")
}
