package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDeployImageTable: docs/deploy.md's table of the image's contents
// names every program of cmd/, which make static builds into the image's
// /usr/local/bin (./cmd/...), so that a reader learns of each of them.
func TestDeployImageTable(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "deploy.md"))
	if err != nil {
		t.Fatal(err)
	}
	var row string
	for _, line := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(line, "| `/usr/local/bin/run`") {
			row, _, _ = strings.Cut(strings.TrimPrefix(line, "| "), " |")
		}
	}
	if row == "" {
		t.Fatal("docs/deploy.md has no row of the tools in /usr/local/bin")
	}
	entries, err := os.ReadDir(filepath.Join("..", "..", "cmd"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && !strings.Contains(row, "`"+e.Name()+"`") && !strings.Contains(row, "/"+e.Name()+"`") {
			t.Errorf("docs/deploy.md's image table (%s) does not name %s, which make static puts in the image", row, e.Name())
		}
	}
}
