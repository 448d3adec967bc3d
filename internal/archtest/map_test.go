package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// mapDoc is the architecture page, read once per test.
func mapDoc(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var backticked = regexp.MustCompile("`([^`]+)`")

// pattern turns a name of the page into a regular expression: a <word>
// placeholder stands for one path element or part of one.
func pattern(name string) *regexp.Regexp {
	parts := regexp.MustCompile(`<[a-z]+>`).Split(name, -1)
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, "[^/]+") + "$")
}

// TestMapNamesEveryPackage: every package of internal/ is on the map's
// table of layers, by its path below internal/ or a pattern such as
// driver/<system> (the how-to's internal/<tool>/ names no layer).
func TestMapNamesEveryPackage(t *testing.T) {
	doc := mapDoc(t)
	start, end := strings.Index(doc, "## Layers"), strings.Index(doc, "## Import rules")
	if start < 0 || end < start {
		t.Fatal("docs/architecture.md: the table of layers (## Layers, before ## Import rules) is not found")
	}
	var names []*regexp.Regexp
	for _, m := range backticked.FindAllStringSubmatch(doc[start:end], -1) {
		names = append(names, pattern(strings.TrimSuffix(m[1], "/")))
	}
	for pkg := range graph(t) {
		rel, ok := strings.CutPrefix(pkg, module+"/internal/")
		if !ok {
			continue
		}
		found := false
		for _, n := range names {
			if n.MatchString(rel) || n.MatchString("internal/"+rel) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("internal/%s is not on docs/architecture.md's map: add it to the layer that owns it", rel)
		}
	}
}

// TestHowToLists: every file or folder the "How to add" lists name exists
// (a <placeholder> stands for any one, which must exist at least once).
func TestHowToLists(t *testing.T) {
	doc := mapDoc(t)
	_, howto, ok := strings.Cut(doc, "## How to add")
	if !ok {
		t.Fatal(`docs/architecture.md has no "## How to add" section`)
	}
	n := 0
	for _, line := range strings.Split(howto, "\n") {
		m := regexp.MustCompile(`^\d+\. ` + "`([^`]+)`").FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n++
		name := strings.TrimSuffix(m[1], "/")
		glob := regexp.MustCompile(`<[a-z]+>`).ReplaceAllString(name, "*")
		matches, err := filepath.Glob(filepath.Join("../..", glob))
		if err != nil || len(matches) == 0 {
			t.Errorf("docs/architecture.md names %s to touch: no such file or folder", m[1])
		}
	}
	if n < 8 {
		t.Errorf("docs/architecture.md's How to add lists name %d files; expected the lists of a system, a report format, a statistic and a tool", n)
	}
}
