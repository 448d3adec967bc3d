package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/comparecmd"
	"github.com/mqgate/mqgate/internal/exit"
)

// TestHelp checks that --help succeeds and documents the Fast-RTPS flag
// names that job scripts use.
func TestHelp(t *testing.T) {
	var out, errb bytes.Buffer
	code := cliapp.Run(context.Background(), comparecmd.App(), []string{"compare", "--help"}, &out, &errb)
	if code != exit.OK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, flag := range []string{"--reference", "--results", "--plots_directory", "--fail_threshold", "--columns", "--threshold", "--allow-missing", "--junit", "--markdown", "--json", "--html"} {
		if !strings.Contains(out.String(), flag) {
			t.Errorf("--help does not mention %s", flag)
		}
	}
}

func TestUnknownFlag(t *testing.T) {
	var out, errb bytes.Buffer
	code := cliapp.Run(context.Background(), comparecmd.App(), []string{"compare", "--no-such-flag"}, &out, &errb)
	if code != exit.Usage || !strings.Contains(errb.String(), "no-such-flag") {
		t.Errorf("exit %d, stderr %q; want 2 naming the flag", code, errb.String())
	}
}
