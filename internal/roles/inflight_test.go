package roles_test

import (
	"io"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/roles"
)

// scrapeValue returns the value of series on the role's /metrics, "" when it
// is not there.
func scrapeValue(t *testing.T, m *roles.Metrics, series string) string {
	t.Helper()
	resp, err := http.Get("http://" + m.PromAddr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	v := regexp.MustCompile("(?m)^" + regexp.QuoteMeta(series) + ` (\S+)$`).FindSubmatch(body)
	if v == nil {
		return ""
	}
	return string(v[1])
}

// TestReqInFlight: a req serves the queries in flight (sent, not yet
// ended) as a gauge, live, and the time to the last reply of each query
// that had replies as a histogram beside the time to the first.
func TestReqInFlight(t *testing.T) {
	m, err := roles.NewMetrics(roles.Settings{Role: roles.RoleReq, RunID: "r1", PromAddr: "127.0.0.1:0", SnapshotInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	const gauge, last = `mqgate_queries_in_flight{role="req"}`, `mqgate_time_to_last_reply_seconds_count{role="req"}`
	m.Sent(3)
	if v := scrapeValue(t, m, gauge); v != "3" {
		t.Errorf("3 queries sent, none ended: %s %q, want 3", gauge, v)
	}
	m.QueryDone(2, 4_000_000)
	if v, l := scrapeValue(t, m, gauge), scrapeValue(t, m, last); v != "2" || l != "1" {
		t.Errorf("one query ended with 2 replies: %s %q, %s %q; want 2 and 1", gauge, v, last, l)
	}
	m.QueryDone(0, 0)
	m.QueryDone(1, 1_000_000)
	if v, l := scrapeValue(t, m, gauge), scrapeValue(t, m, last); v != "0" || l != "2" {
		t.Errorf("every query ended, one without replies: %s %q, %s %q; want 0 and 2", gauge, v, last, l)
	}
	// A helper counts its role's queries once, sent and ended together.
	m.Count(roles.Snapshot{Sent: 5, Queries: 5, Replies: 5}, nil, []int64{1000, 2000})
	if v, l := scrapeValue(t, m, gauge), scrapeValue(t, m, last); v != "0" || l != "4" {
		t.Errorf("a helper's counts: %s %q, %s %q; want 0 and 4", gauge, v, last, l)
	}
}
