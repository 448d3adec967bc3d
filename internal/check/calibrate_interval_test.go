package check_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/gate"
)

// TestOrderMethodInterval: a check against distribution-free limits has no
// interval; every report says what it counted instead (runs above the
// limit), never "[n/a, n/a]", and JSON carries the method and the count.
func TestOrderMethodInterval(t *testing.T) {
	root := t.TempDir()
	req := statRequirements(t, root)
	slower := writeRuns(t, filepath.Join(root, "slower"), "run", 3, 3, 1.5)
	md, js := filepath.Join(root, "c.md"), filepath.Join(root, "c.json")
	code, stdout, stderr := runCheck(t, root, append(dirArgs(slower), "--requirements", req, "--markdown", md, "--json", js)...)
	if code != exit.Inconclusive {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	mdText, _ := os.ReadFile(md)
	if strings.Contains(string(mdText), "n/a, n/a") || !strings.Contains(string(mdText), "none (order method): 3 of 3 run(s) above the limit") {
		t.Errorf("Markdown:\n%s", mdText)
	}
	var v gate.Verdict
	b, _ := os.ReadFile(js)
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	st := v.Checks[0].Stats
	if st == nil || st.Method != gate.MethodOrder || st.Over != 3 || st.NoInterval() != "none (order method): 3 of 3 run(s) above the limit" {
		t.Errorf("JSON stats %+v", st)
	}
}
