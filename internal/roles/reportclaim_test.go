package roles_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mqgate/mqgate/internal/roles"
)

// TestReportNeverReplaced: a role's report, roles/<role>-<label>-<instance>.json,
// is never replaced by another role of the run. A second pub given the
// same --instance is refused before it sends (it replaced the first one's
// report, and sent under its publisher ids); one whose instance was drawn
// at random takes the next free instance; a role that fails before it
// measures leaves no report behind.
func TestReportNeverReplaced(t *testing.T) {
	url := embeddedNATS(t)
	out := t.TempDir()
	common := map[string]any{"endpoint": []string{url}, "run-id": "rc", "out-dir": out, "timeout": "5s", "rate": "100", "duration": "300ms"}
	pub := func(extra map[string]any) roles.Outcome {
		return roles.Run(context.Background(), settings(t, roles.RolePub, merged(common, extra)))
	}
	if o := pub(map[string]any{"instance": "5"}); o.Err != nil {
		t.Fatal(o.Err)
	}
	dir := filepath.Join(out, "rc", roles.ReportsDir)
	first, err := os.ReadFile(filepath.Join(dir, "pub-pubsub-5.json"))
	if err != nil {
		t.Fatal(err)
	}
	o := pub(map[string]any{"instance": "5"})
	if o.Err == nil || !strings.Contains(o.Err.Error(), "pub-pubsub-5.json exists: a pub of run rc has --instance 5 already") {
		t.Errorf("second pub of instance 5: %+v", o)
	}
	if now, _ := os.ReadFile(filepath.Join(dir, "pub-pubsub-5.json")); !bytes.Equal(now, first) {
		t.Errorf("the first pub's report was replaced:\n%s", now)
	}
	// Every instance but 200 taken: a drawn one gives way to 200.
	for i := range 256 {
		if p := filepath.Join(dir, fmt.Sprintf("pub-pubsub-%d.json", i)); i != 5 && i != 200 {
			if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if o := pub(nil); o.Err != nil || !strings.Contains(o.Summary, "pub-pubsub-200.json") {
		t.Errorf("a drawn instance did not take the free one: %+v", o)
	}
	if o := pub(nil); o.Err == nil || !strings.Contains(o.Err.Error(), "every instance 0 to 255") {
		t.Errorf("no instance left: %+v", o)
	}
	// A role that fails before it measures leaves no report.
	o = roles.Run(context.Background(), settings(t, roles.RoleQry, merged(common, map[string]any{"instance": "3", "wait-for": []string{"tcp://127.0.0.1:1"}, "wait-timeout": "50ms"})))
	if _, err := os.Stat(filepath.Join(dir, "qry-query-3.json")); o.Err == nil || err == nil {
		t.Errorf("a qry that never served: %+v, its report %v", o, err)
	}
}

// TestFailedRolesWriteNothing: the roles of a run that cannot reach their
// system, failing at once (a Compose topology whose broker port another
// server holds), leave no folder behind: claimed before the wait, their
// reports' folders were made by one role and left by the others.
func TestFailedRolesWriteNothing(t *testing.T) {
	out := t.TempDir()
	common := map[string]any{"endpoint": []string{"nats://127.0.0.1:1"}, "run-id": "down", "out-dir": out, "timeout": "1s",
		"wait-for": []string{"tcp://127.0.0.1:1"}, "wait-timeout": "200ms"}
	var wg sync.WaitGroup
	for _, role := range []string{roles.RolePub, roles.RoleSub, roles.RoleReq, roles.RoleQry} {
		s := settings(t, role, common)
		wg.Go(func() {
			if o := roles.Run(context.Background(), s); o.Err == nil {
				t.Errorf("%s ran with nothing to reach: %+v", role, o)
			}
		})
	}
	wg.Wait()
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("the failed roles left %s in %s", entries[0].Name(), out)
	}
}
