package roles_test

import (
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"

	"github.com/mqgate/mqgate/internal/roles"
)

// TestPrometheusNames scrapes the /metrics each role serves, after it
// counted what that role counts, and lints it with Prometheus' promlint:
// no problems, the families that apply to the role and no others (a sub
// sends nothing, so it serves no sent counter), and no run id on them.
func TestPrometheusNames(t *testing.T) {
	want := map[string][]string{
		roles.RolePub: {"mqgate_build_info", "mqgate_errors_total", "mqgate_messages_sent_total", "mqgate_run_info"},
		roles.RoleSub: {"mqgate_build_info", "mqgate_errors_total", "mqgate_latency_seconds", "mqgate_messages_received_total", "mqgate_run_info"},
		roles.RoleReq: {"mqgate_build_info", "mqgate_errors_total", "mqgate_queries_in_flight", "mqgate_queries_sent_total", "mqgate_query_timeouts_total",
			"mqgate_replies_received_total", "mqgate_run_info", "mqgate_time_to_first_reply_seconds", "mqgate_time_to_last_reply_seconds"},
		roles.RoleQry: {"mqgate_build_info", "mqgate_errors_total", "mqgate_queries_received_total", "mqgate_replies_sent_total", "mqgate_run_info"},
	}
	// counted are series of what the test counts below, as each role counts.
	counted := map[string][]string{
		roles.RolePub: {`mqgate_messages_sent_total{role="pub"} 2`},
		roles.RoleSub: {`mqgate_messages_received_total{role="sub"} 1`, `mqgate_latency_seconds_bucket{role="sub",le="5e-05"} 1`},
		roles.RoleReq: {`mqgate_queries_sent_total{role="req"} 2`, `mqgate_replies_received_total{role="req"} 1`,
			`mqgate_query_timeouts_total{role="req"} 1`, `mqgate_time_to_first_reply_seconds_count{role="req"} 1`},
		roles.RoleQry: {`mqgate_replies_sent_total{role="qry"} 2`, `mqgate_queries_received_total{role="qry"} 1`},
	}
	// No cgroup of its own (in a container the roles also serve its CPU
	// and memory, TestCgroupInReportAndPrometheus).
	roles.SetCgroupFiles(t, t.TempDir(), t.TempDir())
	for _, role := range []string{roles.RolePub, roles.RoleSub, roles.RoleReq, roles.RoleQry} {
		t.Run(role, func(t *testing.T) {
			m, err := roles.NewMetrics(roles.Settings{Role: role, RunID: "r1", PromAddr: "127.0.0.1:0", SnapshotInterval: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			m.Sent(2)
			m.Received(16, 40_000)
			m.Error()
			m.Timeout()
			resp, err := http.Get("http://" + m.PromAddr() + "/metrics")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			problems, err := promlint.New(strings.NewReader(string(body))).Lint()
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range problems {
				t.Errorf("promlint: %s: %s", p.Metric, p.Text)
			}
			for _, line := range append(counted[role], `mqgate_run_info{role="`+role+`",run_id="r1"} 1`, `mqgate_errors_total{role="`+role+`"} 1`, `",version="(devel)"} 1`) {
				if !strings.Contains(string(body), line) {
					t.Errorf("/metrics lacks %s:\n%s", line, body)
				}
			}
			var got []string
			for _, line := range strings.Split(string(body), "\n") {
				if name, ok := strings.CutPrefix(line, "# HELP "); ok {
					if _, help, _ := strings.Cut(name, " "); len(help) < 3 {
						t.Errorf("no HELP: %s", line)
					}
				}
				if name, ok := strings.CutPrefix(line, "# TYPE "); ok {
					got = append(got, strings.Fields(name)[0])
				}
				if strings.Contains(line, "run_id=") && !strings.HasPrefix(line, "mqgate_run_info{") {
					t.Errorf("run id on a series: %s", line)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, want[role]) {
				t.Errorf("families %v, want %v:\n%s", got, want[role], body)
			}
		})
	}
}
