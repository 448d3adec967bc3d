package check_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/exit"
)

// TestMarginFlag: --margin is a fraction (0.25) or a percentage (25%) in
// [0 %, 100 %); a bare number above 1 was taken as a fraction, so that
// --margin 25 raised every requirement by 2,500 % and let a 2× regression
// pass. Every refused value exits 2 naming the flag and the range, before
// anything is written.
func TestMarginFlag(t *testing.T) {
	for _, tt := range []struct {
		margin string
		code   int
		stderr string
	}{
		{"25", exit.Usage, "--margin: 25 read as a fraction is 2500%: did you mean 25%?"},
		{"50", exit.Usage, "did you mean 50%?"},
		{"1", exit.Usage, "did you mean 1%?"},
		{"150%", exit.Usage, "--margin: 150% is out of range: expected a value at least 0% and below 100%"},
		{"100%", exit.Usage, "at least 0% and below 100%"},
		{"-0.1", exit.Usage, "--margin: -0.1 (-10%) is out of range"},
		{"-5%", exit.Usage, "at least 0% and below 100%"},
		{"1e300", exit.Usage, "did you mean 1e300%?"},
		{"NaN", exit.Usage, `--margin: "NaN" is not a finite number`},
		{"Inf", exit.Usage, `--margin: "Inf" is not a finite number`},
		{"-Inf", exit.Usage, "not a finite number"},
		{"ten", exit.Usage, `--margin: "ten" is not a number`},
		// The fixture fails 4 of 33 checks without margin, and none with 25 %.
		{"0", exit.GateFailed, ""},
		{"0%", exit.GateFailed, ""},
		{"0.25", exit.OK, ""},
		{"25%", exit.OK, ""},
	} {
		t.Run(tt.margin, func(t *testing.T) {
			root := fixture(t)
			exp := filepath.Join(root, "exp")
			code, stdout, stderr := runCheck(t, root, "--requirements", "testdata/requirements.csv", "--experiment-directory", exp,
				"--format", "svg", "--margin", tt.margin, "--json", filepath.Join(root, "verdict.json"))
			if code != tt.code || !strings.Contains(stderr, tt.stderr) {
				t.Fatalf("exit %d, want %d; stderr %q lacks %q\nstdout:\n%s", code, tt.code, stderr, tt.stderr, stdout)
			}
			if code != exit.Usage {
				return
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			entries, _ := os.ReadDir(exp)
			_, jsonErr := os.Stat(filepath.Join(root, "verdict.json"))
			if len(entries) != 1 || jsonErr == nil {
				t.Errorf("a refused --margin wrote files: %d in the experiment, verdict.json: %v", len(entries), jsonErr)
			}
		})
	}
}
