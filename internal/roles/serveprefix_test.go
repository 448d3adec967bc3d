package roles_test

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/config"
	"github.com/mqgate/mqgate/internal/roles"
)

// TestServePrefixRepeated: a qry given --serve-prefix twice answers queries
// on both keys and below them (not only the last given), and its report
// names both.
func TestServePrefixRepeated(t *testing.T) {
	url := embeddedNATS(t)
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	qs := settings(t, roles.RoleQry, map[string]any{"endpoint": []string{url}, "run-id": "sp", "out-dir": out,
		"serve-prefix": []string{"svc.a", "svc.b"}, "duration": "2m"})
	qdone := make(chan roles.Outcome, 1)
	go func() { qdone <- roles.Run(ctx, qs) }()
	time.Sleep(300 * time.Millisecond)
	for _, expr := range []string{"svc.a", "svc.b.deep"} {
		label := strings.ReplaceAll(expr, ".", "")
		req := settings(t, roles.RoleReq, map[string]any{"endpoint": []string{url}, "run-id": "sp", "out-dir": out, "label": label,
			"expr": expr, "qps": "50", "duration": "300ms", "timeout": "2s"})
		roles.Run(context.Background(), req)
		var rr roles.ReqReport
		readJSON(t, filepath.Join(out, "sp", roles.ReportsDir, "req-"+label+"-"+strconv.Itoa(req.Instance)+".json"), &rr)
		if rr.Queries == 0 || rr.Complete != rr.Queries {
			t.Errorf("req on %s (the qry serves svc.a and svc.b): %d queries, %d complete, %d timeouts", expr, rr.Queries, rr.Complete, rr.Timeouts)
		}
	}
	cancel()
	<-qdone
	var qr map[string]any
	readJSON(t, filepath.Join(out, "sp", roles.ReportsDir, "qry-query-"+strconv.Itoa(qs.Instance)+".json"), &qr)
	if got, _ := qr["serve_prefixes"].([]any); len(got) != 2 || got[0] != "svc.a" || got[1] != "svc.b" || qr["serve_prefix"] != "svc.a" {
		t.Errorf("qry report: serve_prefix %v, serve_prefixes %v; want svc.a and [svc.a svc.b]", qr["serve_prefix"], qr["serve_prefixes"])
	}
}

// TestServePrefixRefused: prefixes that would answer a query twice (the
// same, or one below another) and prefixes or keys the Zenoh helper would
// not use are refused, naming the setting and where it came from.
func TestServePrefixRefused(t *testing.T) {
	for _, tc := range []struct {
		role  string
		flags map[string]any
		want  string
	}{
		{roles.RoleQry, map[string]any{"serve-prefix": []string{"svc.a", "svc.a"}}, `--serve-prefix "svc.a" is given twice`},
		{roles.RoleQry, map[string]any{"serve-prefix": []string{"svc", "svc.a.b"}}, `--serve-prefix "svc.a.b" is below --serve-prefix "svc"`},
		{roles.RoleQry, map[string]any{"serve-prefix": []string{"svc.a.b", "svc"}}, `--serve-prefix "svc.a.b" is below --serve-prefix "svc"`},
		{roles.RoleQry, map[string]any{"driver": "zenoh", "serve-prefix": "svc/a"}, `--serve-prefix "svc/a": the zenoh helper serves mqgate/bench/query only`},
		{roles.RoleReq, map[string]any{"driver": "zenoh", "expr": "other/query"}, `--expr "other/query": the zenoh helper queries mqgate/bench/query only`},
		{roles.RoleSub, map[string]any{"driver": "zenoh", "expr": "x/data"}, `--expr "x/data": the zenoh helper subscribes to mqgate/bench/data only`},
	} {
		c, err := config.Load(config.Sources{Flags: tc.flags, Known: roles.Keys})
		if err != nil {
			t.Fatal(err)
		}
		_, err = roles.Resolve(tc.role, c, time.Now())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: %v, want an error containing %q", tc.role, tc.flags, err, tc.want)
		}
	}
	// The defaults, and the Zenoh defaults given explicitly, are accepted.
	for _, flags := range []map[string]any{{"driver": "zenoh"}, {"driver": "zenoh", "serve-prefix": "mqgate/bench/query", "expr": "mqgate/bench/query"},
		{"serve-prefix": []string{"svc.a", "svc.ab"}}} {
		c, _ := config.Load(config.Sources{Flags: flags, Known: roles.Keys})
		if _, err := roles.Resolve(roles.RoleReq, c, time.Now()); err != nil {
			t.Errorf("%v: %v", flags, err)
		}
	}
}
