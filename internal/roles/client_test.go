package roles_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/amqp"
	"github.com/mqgate/mqgate/internal/driver/nats"
	"github.com/mqgate/mqgate/internal/driver/secure"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/roles"
)

// engineDialer is a role system whose client is opened from the Options
// of run's ends.
type engineDialer interface {
	driver.StreamTransport
	DialClient(ctx context.Context, endpoints []string, opts driver.Options, timeout time.Duration) (driver.Client, error)
}

// TestOneClientPerSystem: every system whose roles run in this process
// opens their client from the driver.Options its Publisher and
// Subscriber take, and that client reports the system as the Publisher
// opened with the same Options does: one client per system, not a
// second one that ignores the flags. Systems whose roles run in a helper
// of their own (driver.RoleRunner) have no client here. A system not in
// the tables below is reached as TestRoleClientAppliesTheFlags reaches it
// (systemAddr), so that a new one needs no edit here.
func TestOneClientPerSystem(t *testing.T) {
	urls := map[string]func(t *testing.T) string{
		"nats": embeddedNATS,
		"mqtt": endpoints["mqtt"],
		"amqp": endpoints["amqp"],
	}
	// The settings a role sets from its --timeout when not given, given,
	// and the role's topic exchange named for the publisher.
	params := map[string]map[string]string{
		"nats": {nats.FlagConnectTimeout: "10s"},
		"mqtt": {"mqtt-version": "5", "mqtt-keepalive": "5s"},
		"amqp": {amqp.FlagHeartbeat: "3s", amqp.FlagExchange: "amq.topic", amqp.FlagPrefetch: "7"},
	}
	for _, name := range roles.Drivers() {
		tr, _ := driver.Lookup(name)
		if _, ok := tr.(driver.RoleRunner); ok {
			continue
		}
		t.Run(name, func(t *testing.T) {
			d, ok := tr.(engineDialer)
			if !ok {
				m, _ := reflect.TypeOf(tr).MethodByName("DialClient")
				t.Fatalf("%s: the roles' client is not opened from the ends' driver.Options (DialClient %v)", name, m.Type)
			}
			var url string
			if u := urls[name]; u != nil {
				url = u(t)
			} else {
				url = systemAddr(t, name, tr) // a new system: its URL flag, or its own embedded server
			}
			// NATS's roles are core NATS in both reliabilities (its
			// RoleUsage): its reliable publisher is JetStream's.
			opts := driver.Options{Reliable: name != "nats", Topic: "mqgate.one." + strconv.FormatInt(time.Now().UnixNano(), 36), Params: params[name]}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			c, err := d.DialClient(ctx, []string{url}, opts, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			p, err := d.Publish(ctx, url, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			ir, ok := any(c).(driver.InfoReporter)
			if !ok {
				t.Fatalf("%s's role client does not report the system as its ends do (driver.InfoReporter)", name)
			}
			got, want := ir.SystemInfo(), p.(driver.InfoReporter).SystemInfo()
			if got.Product != want.Product || got.Version != want.Version || got.URL != want.URL {
				t.Errorf("role client reached %+v, the publisher %+v", got, want)
			}
			for k, v := range want.Extra {
				if got.Extra[k] != v {
					t.Errorf("%s: role client %q, publisher %q", k, got.Extra[k], v)
				}
			}
		})
	}
}

// TestRolesTakeTheDriversFlags runs a qry and a req over RabbitMQ with
// --amqp-exchange naming a topic exchange of the test's, and
// --amqp-prefetch: the queries travel through that exchange (a queue of
// the test's bound to it counts them), and meta.json records the exchange
// and the flags, as run's ends do.
func TestRolesTakeTheDriversFlags(t *testing.T) {
	url := endpoints["amqp"](t)
	conn, err := amqp091.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	tag := strconv.FormatInt(time.Now().UnixNano(), 36)
	exchange, witness := "mqgate.test.x."+tag, "mqgate.test.witness."+tag
	if err := ch.ExchangeDeclare(exchange, "topic", false, true, false, false, nil); err != nil {
		t.Fatal(err)
	}
	defer ch.ExchangeDelete(exchange, false, false)
	if _, err := ch.QueueDeclare(witness, false, true, false, false, nil); err != nil {
		t.Fatal(err)
	}
	defer ch.QueueDelete(witness, false, false, false)
	if err := ch.QueueBind(witness, "mqgate.flags."+tag+".#", exchange, false, nil); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	common := []string{"--driver", "amqp", "--target", url, "--out", out, "--name", "x", "--timeout", "5s",
		"--reliability", "reliable", "--topic-prefix", "mqgate.flags." + tag, "--amqp-exchange", exchange, "--amqp-prefetch", "7"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	qry := make(chan int, 1)
	go func() {
		code, stderr := runApp(ctx, t, nil, append([]string{"qry", "--duration", "1m"}, common...)...)
		if code != 130 {
			t.Errorf("qry: exit %d: %s", code, stderr)
		}
		qry <- code
	}()
	time.Sleep(2 * time.Second)
	code, stderr := runApp(context.Background(), t, nil, append([]string{"req", "--qps", "50", "--duration", "1s"}, common...)...)
	cancel()
	<-qry
	if code != 0 {
		t.Fatalf("req: exit %d: %s", code, stderr)
	}
	q, err := ch.QueueDeclarePassive(witness, false, true, false, false, nil)
	if err != nil || q.Messages == 0 {
		t.Errorf("the queries did not go through --amqp-exchange %s: %d messages in a queue bound to it (%v)", exchange, q.Messages, err)
	}
	m, err := meta.ReadFile(filepath.Join(out, "x", meta.FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, sub := range m.SubExperiments {
		if sub.System == nil || sub.System.Extra["exchange"] != exchange || sub.Params[amqp.FlagPrefetch] != "7" {
			t.Errorf("%s: system %+v, params %v: want exchange %s and %s 7", sub.Type, sub.System, sub.Params, exchange, amqp.FlagPrefetch)
		}
	}
}

// TestRolesOverTLS runs a sub and a pub over NATS and MQTT servers that
// take TLS only, with --ca, --cert and --key as run takes them: both
// complete, and meta.json says the link was TLS.
func TestRolesOverTLS(t *testing.T) {
	for _, name := range []string{"nats", "mqtt"} {
		t.Run(name, func(t *testing.T) {
			srv, cli, err := secure.GenerateFiles(filepath.Join(t.TempDir(), "pki"))
			if err != nil {
				t.Fatal(err)
			}
			tr, _ := driver.Lookup(name)
			url, stop, err := tr.(driver.Embedder).StartEmbedded(context.Background(), driver.Options{Security: &srv})
			if err != nil {
				t.Fatal(err)
			}
			defer stop()
			out := t.TempDir()
			common := []string{"--driver", name, "--target", url, "--out", out, "--name", "tls", "--timeout", "3s",
				"--ca", cli.CAFile, "--cert", cli.CertFile, "--key", cli.KeyFile}
			if name == "mqtt" {
				common = append(common, "--topic-prefix", "mqgate/tls")
			}
			sub := make(chan string, 1)
			go func() {
				code, stderr := runApp(context.Background(), t, nil, append([]string{"sub", "--duration", "20s"}, common...)...)
				if code != 0 {
					t.Errorf("sub: exit %d: %s", code, stderr)
				}
				sub <- stderr
			}()
			time.Sleep(time.Second)
			code, stderr := runApp(context.Background(), t, nil, append([]string{"pub", "--rate", "200", "--duration", "1s"}, common...)...)
			if code != 0 {
				t.Fatalf("pub: exit %d: %s", code, stderr)
			}
			<-sub
			m, err := meta.ReadFile(filepath.Join(out, "tls", meta.FileName))
			if err != nil {
				t.Fatal(err)
			}
			if len(m.SubExperiments) != 1 {
				t.Fatalf("sub-experiments %+v", m.SubExperiments)
			}
			if tls := m.SubExperiments[0].System.Extra["tls"]; tls == "" || tls == "false" {
				t.Errorf("system %+v: want a TLS link", m.SubExperiments[0].System)
			}
		})
	}
}

// TestRoleClientRefusals: a flag of another system, TLS files without a
// CA and a value the driver refuses are usage errors before anything
// connects or is written.
func TestRoleClientRefusals(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sub", "--amqp-prefetch", "5"}, "--amqp-prefetch is a setting of --driver amqp, not of --driver nats"},
		{[]string{"sub", "--cert", "c.pem", "--key", "k.pem"}, "which needs --ca"},
		{[]string{"sub", "--ca", filepath.Join(out, "missing.pem")}, "--ca " + filepath.Join(out, "missing.pem")},
		{[]string{"pub", "--driver", "amqp", "--amqp-prefetch", "many"}, `amqp: --amqp-prefetch "many": expected a whole number, 0 to 65535`},
		{[]string{"pub", "--driver", "mqtt", "--mqtt-version", "3.1.1", "--target", "mqtt://127.0.0.1:1"}, "the roles use MQTT 5"},
	} {
		code, stderr := runApp(context.Background(), t, nil, append(c.args, "--out", out, "--timeout", "1s")...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, stderr, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%v: %s was created", c.args, out)
		}
	}
}
