package mqtt_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/checkcmd"
	"github.com/mqgate/mqgate/internal/cliapp/comparecmd"
	"github.com/mqgate/mqgate/internal/cliapp/historycmd"
	"github.com/mqgate/mqgate/internal/cliapp/processcmd"
	"github.com/mqgate/mqgate/internal/cliapp/requirementscmd"
	"github.com/mqgate/mqgate/internal/cliapp/runcmd"
	"github.com/mqgate/mqgate/internal/driver/mqtt"
	"github.com/mqgate/mqgate/internal/driver/secure"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/runapp"
	"github.com/mqgate/mqgate/internal/testenv"
)

// tool runs one of the tools in-process and returns its output; an exit
// code not in want fails the test.
func tool(t *testing.T, app *cli.App, want []int, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	code := cliapp.Run(context.Background(), app, append([]string{app.Name}, args...), &out, &out)
	for _, w := range want {
		if code == w {
			return out.String()
		}
	}
	t.Fatalf("%s %s: exit %d, want one of %v\n%s", app.Name, strings.Join(args, " "), code, want, out.String())
	return ""
}

// runSelf lets run start this test binary as its echo process.
func runSelf(t *testing.T) {
	t.Setenv(runMainEnv, "1")
	t.Setenv(runapp.SelfEnv, os.Args[0])
}

// readMeta reads dir's meta.json, which must be complete.
func readMeta(t *testing.T, dir string, subs int) *meta.Meta {
	t.Helper()
	m, err := meta.ReadFile(filepath.Join(dir, meta.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if !m.Completed || len(m.SubExperiments) != subs {
		t.Fatalf("%s: completed %v, %d sub-experiments, want %d", dir, m.Completed, len(m.SubExperiments), subs)
	}
	return m
}

// TestRunThroughEveryTool measures mqtt_best_effort and mqtt_exactly_once
// with run on an embedded broker (echo processes of this test binary, as
// run places them), over MQTT 3.1.1 and MQTT 5, and takes the files
// through process, requirements, check, compare and history.
func TestRunThroughEveryTool(t *testing.T) {
	if testing.Short() {
		t.Skip("end to end through run and every tool; skipped with -short")
	}
	runSelf(t)
	const samples = 300
	work := t.TempDir()
	base, cand := filepath.Join(work, "baseline"), filepath.Join(work, "candidate")
	types := []string{"mqtt_best_effort", "mqtt_exactly_once"}
	measure := func(out, name, version string) string {
		tool(t, runcmd.App(), []int{0}, "-s", strings.Join(types, ","), "--broker", "embedded",
			"--mqtt-version", version, "--payloads", "16,1024,16384", "--samples", "300", "--warmup", "30",
			"--timeout", "5s", "--out", out, "--name", name, "-q")
		dir := filepath.Join(out, name)
		m := readMeta(t, dir, 2)
		if m.Config.Broker != "embedded" {
			t.Errorf("%s: broker %q", dir, m.Config.Broker)
		}
		for _, s := range m.SubExperiments {
			exactly := s.Type == "mqtt_exactly_once"
			sys := s.System
			if sys == nil || sys.Product != "mochi-mqtt" || sys.Version == "" || !sys.Embedded || !strings.HasPrefix(sys.URL, "mqtt://127.0.0.1:") {
				t.Errorf("%s: system %+v", s.Type, sys)
			} else if want := map[string]string{"3.1.1": "MQTT 3.1.1", "5": "MQTT 5"}[version]; sys.Extra["protocol"] != want {
				t.Errorf("%s: protocol %q, want %q", s.Type, sys.Extra["protocol"], want)
			}
			if s.Acknowledged != exactly || s.Echo != "subprocess" || !strings.HasSuffix(s.Topic, "-"+s.Type) {
				t.Errorf("%s: acknowledged %v, echo %q, topic %q", s.Type, s.Acknowledged, s.Echo, s.Topic)
			}
			if q := map[bool]string{false: "0", true: "2"}[exactly]; s.Params[mqtt.ParamQoS] != q || s.Params[mqtt.ParamVersion] != version {
				t.Errorf("%s: params %v", s.Type, s.Params)
			}
			for _, p := range s.Payloads {
				if p.Samples != samples || !p.Completed || p.Lost != 0 || (exactly && p.MessagesAcked != samples) || p.MessagesRefused != 0 {
					t.Errorf("%s/%d B: %+v", s.Type, p.Bytes, p)
				}
			}
		}
		return dir
	}
	var baseDirs []string
	for i, name := range []string{"run1", "run2", "run3"} {
		dir := measure(base, name, []string{"3.1.1", "5", "3.1.1"}[i])
		tool(t, processcmd.App(), []int{0}, "--no-plots", dir)
		baseDirs = append(baseDirs, dir)
	}
	c := measure(cand, "new", "5")
	tool(t, processcmd.App(), []int{0}, c)

	reqs := filepath.Join(work, "latency_requirements.csv")
	tool(t, requirementscmd.App(), []int{0}, "--experiments-results", base, "--output-file", reqs)
	// Latencies through a broker on a busy machine vary: the verdicts may
	// go either way (exit 0 or 1), errors (exit 2) may not.
	tool(t, checkcmd.App(), []int{0, 1}, "--requirements", reqs, "--experiment-directory", c)
	comparison := filepath.Join(work, "comparison")
	tool(t, comparecmd.App(), []int{0, 1}, "--reference", baseDirs[0], "--results", c, "--plots-directory", comparison, "--fail-threshold", "0.5")
	hist := filepath.Join(work, "history")
	tool(t, historycmd.App(), []int{0}, "--experiments-results", base, "--requirements", reqs, "--plots-directory", hist)

	var want []string
	for _, typ := range types {
		want = append(want,
			filepath.Join(c, experiment.RawFileName(typ)),
			filepath.Join(c, strings.TrimSuffix(experiment.RawFileName(typ), ".csv")+"_summary.csv"),
			filepath.Join(c, "checks_"+typ+".csv"),
			filepath.Join(comparison, typ+"_comparison.csv"),
		)
	}
	for _, f := range want {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("the chain did not write %s: %v", f, err)
		}
	}
	histCSV, err := os.ReadFile(filepath.Join(hist, "history.csv"))
	if err != nil {
		t.Fatalf("history wrote no history.csv: %v", err)
	}
	reqData, _ := os.ReadFile(reqs)
	for _, typ := range types {
		if !strings.Contains(string(histCSV), typ) {
			t.Errorf("history.csv has no %s rows", typ)
		}
		if !strings.Contains(string(reqData), typ) {
			t.Errorf("%s has no requirement for %s", reqs, typ)
		}
	}
}

// TestRunSecurityEmbedded measures the _security sub-experiments with run
// on an embedded broker serving TLS with the run's generated certificates.
func TestRunSecurityEmbedded(t *testing.T) {
	runSelf(t)
	out := t.TempDir()
	types := []string{"mqtt_best_effort_security", "mqtt_reliable_security", "mqtt_exactly_once_security"}
	tool(t, runcmd.App(), []int{0}, "-s", strings.Join(types, ","), "--broker", "embedded", "--mqtt-version", "5",
		"--payloads", "16,16384", "--samples", "100", "--warmup", "10", "--timeout", "5s", "--out", out, "--name", "tls", "-q")
	m := readMeta(t, filepath.Join(out, "tls"), 3)
	for _, s := range m.SubExperiments {
		if s.System == nil || !strings.HasPrefix(s.System.URL, "mqtts://127.0.0.1:") || !strings.HasPrefix(s.System.Extra["tls"], "TLS 1.") {
			t.Errorf("%s: system %+v", s.Type, s.System)
		}
		if s.Acknowledged != (s.Type != "mqtt_best_effort_security") {
			t.Errorf("%s: acknowledged %v", s.Type, s.Acknowledged)
		}
	}
}

// TestRunMosquitto measures mqtt_best_effort through the installed
// Mosquitto with run, the echo in this process, and checks that meta.json
// names the broker and its version, and holds no password.
func TestRunMosquitto(t *testing.T) {
	url := testenv.Service(t, "Mosquitto", testenv.Getenv("MQGATE_MQTT_URL", mqtt.DefaultURL), "start it with: mosquitto -d")
	runSelf(t)
	out := t.TempDir()
	tool(t, runcmd.App(), []int{0}, "-s", "mqtt_best_effort", "--mqtt-url", url, "--echo", "inprocess",
		"--mqtt-username", "mqgate", "--mqtt-password", "s3cret-unused", "--payloads", "16,1024", "--samples", "100", "--warmup", "10",
		"--timeout", "5s", "--out", out, "--name", "m", "-q")
	dir := filepath.Join(out, "m")
	m := readMeta(t, dir, 1)
	s := m.SubExperiments[0]
	if s.System == nil || s.System.Product != "mosquitto" || s.System.Version == "" || s.System.Embedded || s.Echo != "in-process" {
		t.Errorf("system %+v, echo %q", s.System, s.Echo)
	}
	doc, _ := os.ReadFile(filepath.Join(dir, meta.FileName))
	if strings.Contains(string(doc), "s3cret-unused") {
		t.Errorf("meta.json holds the password:\n%s", doc)
	}
}

// TestRunSecurityMosquitto follows the README: certificates from
// tools/certgen's generator, a Mosquitto TLS listener configured with the
// broker's side, and run given the client's side with an mqtt:// URL and
// --mqtt-tls-port.
func TestRunSecurityMosquitto(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tls")
	if _, _, err := secure.GenerateFiles(dir); err != nil {
		t.Fatal(err)
	}
	m := mqtt.StartMosquitto(t, "allow_anonymous true",
		"cafile "+filepath.Join(dir, secure.CAFileName),
		"certfile "+filepath.Join(dir, secure.EchoCertName),
		"keyfile "+filepath.Join(dir, secure.EchoKeyName),
		"require_certificate false")
	runSelf(t)
	out := t.TempDir()
	_, port, _ := strings.Cut(strings.TrimPrefix(m.URL("mqtts"), "mqtts://"), ":")
	tool(t, runcmd.App(), []int{0}, "-s", "mqtt_reliable_security,mqtt_exactly_once_security",
		"--mqtt-url", "mqtt://127.0.0.1:1883", "--mqtt-tls-port", port,
		"--ca", filepath.Join(dir, secure.CAFileName), "--cert", filepath.Join(dir, secure.PingerCertName), "--key", filepath.Join(dir, secure.PingerKeyName),
		"--payloads", "16,16384", "--samples", "100", "--warmup", "10", "--timeout", "5s", "--out", out, "--name", "tls", "-q")
	meta := readMeta(t, filepath.Join(out, "tls"), 2)
	for _, s := range meta.SubExperiments {
		if s.System == nil || s.System.URL != m.URL("mqtts") || s.System.Product != "mosquitto" || !strings.HasPrefix(s.System.Extra["tls"], "TLS 1.") {
			t.Errorf("%s: system %+v", s.Type, s.System)
		}
		for _, p := range s.Payloads {
			if p.Samples != 100 || p.MessagesAcked != 100 {
				t.Errorf("%s/%d B: %+v", s.Type, p.Bytes, p)
			}
		}
	}
}
