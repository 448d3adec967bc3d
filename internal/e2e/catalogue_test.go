package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/meta"
)

// The bad-input catalogue: every tool is fed the classes of bad input of
// formats §5 (bad flags, missing files, things that are not regular files,
// malformed CSV and JSON, inconsistent data, outputs that would replace
// inputs) and must exit 2, name where the input is wrong (file and line, or
// the flag), and leave every file as it was: an error never half-writes.

const (
	catType = "intraprocess_reliable"
	catRaw  = "measurements_" + catType + ".csv"
	catSum  = "measurements_" + catType + "_summary.csv"
)

// catRawCSV is a small raw file of two payloads whose latencies are
// multiplied by factor.
func catRawCSV(factor float64) string {
	var b strings.Builder
	b.WriteString("Sample,Payload [Bytes],Latency [us]\n")
	for _, p := range []int{16, 1024} {
		for i := 1; i <= 60; i++ {
			lat := (10 + float64(p)/256 + float64((i*37)%13)) * factor
			fmt.Fprintf(&b, "%d,%d,%.4f\n", i, p, lat)
		}
	}
	return b.String()
}

// catListed lists in a meta.json what run records of the catalogue's runs:
// the sub-experiment and its payloads, so that the tools check each file
// of the folder against it (formats §6).
func catListed(m *meta.Meta) {
	m.Config.SubExperiments = []string{catType}
	m.Config.Payloads = []int{16, 1024}
	m.SubExperiments = []meta.SubExperiment{{Type: catType, Transport: "intraprocess", Reliable: true, Echo: "in-process",
		Completed: true, Start: m.Start, End: m.End,
		Payloads: []meta.Payload{{Bytes: 16, Samples: 60, Completed: true}, {Bytes: 1024, Samples: 60, Completed: true}}}}
}

// catTemplate builds, once per test, the inputs every trial starts from:
// exp/ (a processed experiment), root/r1..r3 (three more), each with a
// meta.json listing what it holds, and reqs.csv (requirements derived
// from root/).
func catTemplate(t *testing.T, bins map[string]string, dir string) {
	t.Helper()
	mk := func(d string, factor float64) {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, catRaw), []byte(catRawCSV(factor)), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, _, stderr := gateRun(t, bins["process"], "--quiet", "--no-plots", d); code != 0 {
			t.Fatalf("process %s: exit %d\n%s", d, code, stderr)
		}
		writeMeta(t, d, catListed)
	}
	mk(filepath.Join(dir, "exp"), 1)
	for i, f := range []float64{1, 0.98, 1.02} {
		mk(filepath.Join(dir, "root", fmt.Sprintf("r%d", i+1)), f)
	}
	if code, _, stderr := gateRun(t, bins["requirements"], "-e", filepath.Join(dir, "root"), "-o", filepath.Join(dir, "reqs.csv")); code != 0 {
		t.Fatalf("requirements: exit %d\n%s", code, stderr)
	}
}

// copyTree copies src to dst keeping modification times, so that no
// summary becomes older than its raw file (formats §3).
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.WriteFile(target, b, info.Mode().Perm()); err != nil {
			return err
		}
		return os.Chtimes(target, info.ModTime(), info.ModTime())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// treeState maps every entry under dir to its kind and, for regular files,
// the SHA-256 of its content.
func treeState(t *testing.T, dir string) map[string]string {
	t.Helper()
	state := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		switch {
		case d.Type()&fs.ModeNamedPipe != 0:
			state[rel] = "fifo"
		case d.IsDir():
			state[rel] = "dir"
		case d.Type().IsRegular():
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			state[rel] = fmt.Sprintf("%x", sha256.Sum256(b))
		default:
			state[rel] = d.Type().String()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return state
}

// replace rewrites a file of the trial with content.
func replace(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// edit applies f to a file of the trial.
func edit(t *testing.T, path string, f func(string) string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	replace(t, path, f(string(b)))
}

// catalogueTrial is one bad input given to one tool.
type catalogueTrial struct {
	tool  string
	class string
	name  string
	// setup prepares the bad input in the trial's copy d of the template
	// and returns the tool's arguments.
	setup func(t *testing.T, d string) []string
	// where is what stderr must contain to locate the fault: a regular
	// expression (file and line, or the flag).
	where string
	// outputs are the files of the trial (relative) the tool may remove:
	// its own outputs that no longer describe their input (formats §1).
	outputs []string
	// program, when set, is the program to run instead of the tool's
	// build: a copy of it placed by setup.
	program func(d string) string
}

// catalogue lists the trials: tool by tool, class by class. bins are the
// built tools, which some setups run to make their inputs.
func catalogue(bins map[string]string) []catalogueTrial {
	var trials []catalogueTrial
	add := func(tool, class, name, where string, setup func(t *testing.T, d string) []string) {
		trials = append(trials, catalogueTrial{tool: tool, class: class, name: name, setup: setup, where: where})
	}
	addOut := func(tool, class, name, where string, outputs []string, setup func(t *testing.T, d string) []string) {
		trials = append(trials, catalogueTrial{tool: tool, class: class, name: name, setup: setup, where: where, outputs: outputs})
	}
	exp := func(d string) string { return filepath.Join(d, "exp") }
	root := func(d string) string { return filepath.Join(d, "root") }
	reqs := func(d string) string { return filepath.Join(d, "reqs.csv") }
	raw := func(d string) string { return filepath.Join(d, "exp", catRaw) }
	sum := func(d string) string { return filepath.Join(d, "exp", catSum) }
	rootSum := func(d string) string { return filepath.Join(d, "root", "r2", catSum) }
	rootMeta := func(d string) string { return filepath.Join(d, "root", "r2", "meta.json") }
	expMeta := func(d string) string { return filepath.Join(d, "exp", "meta.json") }

	// Each tool's call on the trial's good inputs; the trials change one
	// input or one flag.
	calls := map[string]func(d string, extra ...string) []string{
		"process": func(d string, extra ...string) []string {
			return append(append([]string{"--quiet", "--no-plots"}, extra...), exp(d))
		},
		"check": func(d string, extra ...string) []string {
			return append([]string{"-r", reqs(d), "-e", exp(d)}, extra...)
		},
		"compare": func(d string, extra ...string) []string {
			return append([]string{"--reference", filepath.Join(root(d), "r1"), "--results", exp(d), "-p", filepath.Join(d, "cmp")}, extra...)
		},
		"requirements": func(d string, extra ...string) []string {
			return append([]string{"-e", root(d), "-o", filepath.Join(d, "new_reqs.csv")}, extra...)
		},
		"history": func(d string, extra ...string) []string {
			return append([]string{"-e", root(d), "-r", reqs(d), "-p", filepath.Join(d, "hist")}, extra...)
		},
	}
	// What each tool reads of a broken summary or meta.json: process reads
	// raw files, the others summaries.
	readsSum := map[string]func(string) string{"check": sum, "compare": sum, "requirements": rootSum, "history": rootSum}
	readsMeta := map[string]func(string) string{"check": expMeta, "compare": expMeta, "requirements": rootMeta, "history": rootMeta}

	// --- bad flags: every tool -------------------------------------------
	for _, tool := range []string{"run", "process", "check", "compare", "requirements", "history"} {
		tool := tool
		add(tool, "bad flag", "unknown flag", `--no-such-flag`, func(t *testing.T, d string) []string {
			return []string{"--no-such-flag", exp(d)}
		})
	}

	// --- missing files and directories -----------------------------------
	add("process", "missing file", "no experiment", `nope`, func(t *testing.T, d string) []string {
		return []string{filepath.Join(d, "nope")}
	})
	add("process", "missing file", "no raw file", `nope\.csv`, func(t *testing.T, d string) []string {
		return []string{"--raw-csv", filepath.Join(d, "nope.csv")}
	})
	add("check", "missing file", "no requirements", `nope\.csv`, func(t *testing.T, d string) []string {
		return []string{"-r", filepath.Join(d, "nope.csv"), "-e", exp(d)}
	})
	add("check", "missing file", "no experiment", `nope`, func(t *testing.T, d string) []string {
		return []string{"-r", reqs(d), "-e", filepath.Join(d, "nope")}
	})
	add("check", "missing file", "no summary", `process`, func(t *testing.T, d string) []string {
		if err := os.Remove(sum(d)); err != nil {
			t.Fatal(err)
		}
		return calls["check"](d)
	})
	add("compare", "missing file", "no reference", `nope`, func(t *testing.T, d string) []string {
		return []string{"--reference", filepath.Join(d, "nope"), "--results", exp(d), "-p", filepath.Join(d, "cmp")}
	})
	add("requirements", "missing file", "no root", `nope`, func(t *testing.T, d string) []string {
		return []string{"-e", filepath.Join(d, "nope"), "-o", filepath.Join(d, "new_reqs.csv")}
	})
	add("history", "missing file", "no requirements", `nope\.csv`, func(t *testing.T, d string) []string {
		return []string{"-e", root(d), "-r", filepath.Join(d, "nope.csv"), "-p", filepath.Join(d, "hist")}
	})

	// --- not a regular file where a file is expected ---------------------
	add("process", "not a regular file", "raw file is a FIFO", regexp.QuoteMeta(catRaw), func(t *testing.T, d string) []string {
		if err := os.Remove(raw(d)); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(raw(d), 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		return calls["process"](d)
	})
	add("process", "not a regular file", "raw file is a directory", `measurements_intraprocess_best_effort\.csv`, func(t *testing.T, d string) []string {
		if err := os.Mkdir(filepath.Join(exp(d), "measurements_intraprocess_best_effort.csv"), 0o755); err != nil {
			t.Fatal(err)
		}
		return calls["process"](d)
	})
	add("check", "not a regular file", "requirements is a directory", `reqdir`, func(t *testing.T, d string) []string {
		if err := os.Mkdir(filepath.Join(d, "reqdir"), 0o755); err != nil {
			t.Fatal(err)
		}
		return []string{"-r", filepath.Join(d, "reqdir"), "-e", exp(d)}
	})
	add("check", "not a regular file", "requirements is a FIFO", `reqfifo`, func(t *testing.T, d string) []string {
		if err := syscall.Mkfifo(filepath.Join(d, "reqfifo"), 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		return []string{"-r", filepath.Join(d, "reqfifo"), "-e", exp(d)}
	})
	add("history", "not a regular file", "requirements is a FIFO", `reqfifo`, func(t *testing.T, d string) []string {
		if err := syscall.Mkfifo(filepath.Join(d, "reqfifo"), 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		return []string{"-e", root(d), "-r", filepath.Join(d, "reqfifo"), "-p", filepath.Join(d, "hist")}
	})
	for _, tool := range []string{"check", "compare", "requirements", "history"} {
		tool := tool
		add(tool, "not a regular file", "meta.json is a FIFO", `meta\.json`, func(t *testing.T, d string) []string {
			m := readsMeta[tool](d)
			if err := os.Remove(m); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(m, 0o644); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			return calls[tool](d)
		})
	}

	// --- malformed raw CSV (process) -------------------------------------
	rawCases := []struct{ name, where string }{
		{"header", catRaw + `:1\b`},
		{"not a number", catRaw + `:4\b`},
		{"negative", catRaw + `:4\b`},
		{"NaN", catRaw + `:4\b`},
		{"infinite", catRaw + `:4\b`},
		{"missing column", catRaw + `:4\b`},
		{"extra column", catRaw + `:4\b`},
		{"payload zero", catRaw + `:4\b`},
		{"non-UTF-8", catRaw + `:4\b`},
		{"sample repeated", catRaw + `:4\b`},
		{"sample gap", catRaw + `:4\b`},
		{"empty file", catRaw},
	}
	for _, c := range rawCases {
		c := c
		// The earlier summary of a raw file process cannot read no longer
		// describes it: process may remove it, nothing else.
		addOut("process", "malformed CSV", "raw: "+c.name, c.where, []string{filepath.Join("exp", catSum)}, func(t *testing.T, d string) []string {
			edit(t, raw(d), func(s string) string {
				lines := strings.Split(s, "\n")
				switch c.name {
				case "header":
					lines[0] = "Sample,Payload,Latency"
				case "not a number":
					lines[3] = "3,16,12.5x"
				case "negative":
					lines[3] = "3,16,-1.5"
				case "NaN":
					lines[3] = "3,16,NaN"
				case "infinite":
					lines[3] = "3,16,Inf"
				case "missing column":
					lines[3] = "3,16"
				case "extra column":
					lines[3] = "3,16,12.5,7"
				case "payload zero":
					lines[3] = "3,0,12.5"
				case "non-UTF-8":
					lines[3] = "3,16,12.5\xff"
				case "sample repeated":
					lines[3] = "2,16,12.5"
				case "sample gap":
					lines[3] = "5,16,12.5"
				case "empty file":
					return ""
				}
				return strings.Join(lines, "\n")
			})
			return calls["process"](d)
		})
	}

	// --- malformed summary CSV (the tools that read summaries) -----------
	for _, tool := range []string{"check", "compare", "requirements", "history"} {
		tool := tool
		sumCases := []struct {
			name string
			f    func(lines []string)
		}{
			{"header", func(l []string) { l[0] = strings.Replace(l[0], "Median", "Mediane", 1) }},
			{"not a number", func(l []string) { l[1] = strings.Replace(l[1], ",", ",x", 3) }},
			{"impossible row", func(l []string) {
				f := strings.Split(l[1], ",")
				f[2], f[3] = f[3], f[2] // Max below Min
				l[1] = strings.Join(f, ",")
			}},
		}
		for _, c := range sumCases {
			c := c
			where := catSum + `:2\b`
			if c.name == "header" {
				where = catSum + `:1\b`
			}
			add(tool, "malformed CSV", "summary: "+c.name, where, func(t *testing.T, d string) []string {
				path := readsSum[tool](d)
				info, err := os.Stat(path)
				if err != nil {
					t.Fatal(err)
				}
				edit(t, path, func(s string) string {
					lines := strings.Split(s, "\n")
					c.f(lines)
					return strings.Join(lines, "\n")
				})
				// Keep the summary as new as before: the fault is its content.
				if err := os.Chtimes(path, info.ModTime(), info.ModTime()); err != nil {
					t.Fatal(err)
				}
				return calls[tool](d)
			})
		}
	}

	// --- malformed requirements CSV (check, history) ---------------------
	for _, tool := range []string{"check", "history"} {
		tool := tool
		reqCases := []struct {
			name, where string
			f           func(lines []string) []string
		}{
			{"header", `reqs\.csv:1\b`, func(l []string) []string { l[0] = "Type,Bytes,Median,99%,Max"; return l }},
			{"not a number", `reqs\.csv:2\b`, func(l []string) []string { l[1] = strings.Replace(l[1], ",16,", ",sixteen,", 1); return l }},
			{"duplicate row", `reqs\.csv:\d+\b`, func(l []string) []string { return append(l[:2], l[1:]...) }},
			{"negative limit", `reqs\.csv:2\b`, func(l []string) []string {
				f := strings.Split(l[1], ",")
				f[2] = "-" + f[2]
				l[1] = strings.Join(f, ",")
				return l
			}},
		}
		for _, c := range reqCases {
			c := c
			add(tool, "malformed CSV", "requirements: "+c.name, c.where, func(t *testing.T, d string) []string {
				edit(t, reqs(d), func(s string) string { return strings.Join(c.f(strings.Split(s, "\n")), "\n") })
				return calls[tool](d)
			})
		}
	}

	// --- malformed meta.json (the tools that read experiments) -----------
	for _, tool := range []string{"check", "compare", "requirements", "history"} {
		tool := tool
		metaCases := []struct {
			name, where string
			f           func(s string) string
		}{
			{"trailing garbage", `meta\.json:\d+:\d+`, func(s string) string { return s + "garbage\n" }},
			{"second object", `meta\.json:\d+:\d+`, func(s string) string { return s + "{}\n" }},
			{"non-UTF-8 byte", `meta\.json:\d+:\d+`, func(s string) string { return strings.Replace(s, `"mqgate-builtin"`, "\"mqgate-\xffbuiltin\"", 1) }},
			{"wrong type", `meta\.json:\d+:\d+`, func(s string) string {
				return regexp.MustCompile(`"completed": *true`).ReplaceAllString(s, `"completed": "yes"`)
			}},
			{"null", `meta\.json:\d+:\d+`, func(string) string { return "null\n" }},
			{"unknown schema", `meta\.json:\d+:\d+`, func(s string) string {
				return regexp.MustCompile(`"schema": *\d+`).ReplaceAllString(s, `"schema": 99`)
			}},
			{"unknown latency", `meta\.json:\d+:\d+`, func(s string) string {
				return regexp.MustCompile(`"latency": *"[^"]*"`).ReplaceAllString(s, `"latency": "two-way"`)
			}},
			{"truncated", `meta\.json:\d+:\d+`, func(s string) string { return s[:len(s)/2] }},
		}
		for _, c := range metaCases {
			c := c
			add(tool, "malformed JSON", "meta.json: "+c.name, c.where, func(t *testing.T, d string) []string {
				edit(t, readsMeta[tool](d), c.f)
				return calls[tool](d)
			})
		}
	}

	// --- inconsistent data ------------------------------------------------
	for _, tool := range []string{"check", "compare", "requirements", "history"} {
		tool := tool
		add(tool, "inconsistent data", "stale summary", regexp.QuoteMeta(catSum)+`: stale`, func(t *testing.T, d string) []string {
			path := readsSum[tool](d)
			rawPath := filepath.Join(filepath.Dir(path), catRaw)
			later := time.Now().Add(time.Hour)
			if err := os.Chtimes(rawPath, later, later); err != nil {
				t.Fatal(err)
			}
			return calls[tool](d)
		})
		add(tool, "inconsistent data", "latency definitions mixed", `meta\.json|rtt`, func(t *testing.T, d string) []string {
			edit(t, readsMeta[tool](d), func(s string) string {
				return regexp.MustCompile(`"latency": *"[^"]*"`).ReplaceAllString(s, `"latency": "rtt"`)
			})
			return calls[tool](d)
		})
	}

	// --- outputs that would replace a file of an experiment --------------
	add("process", "output over an input", "--output-csv another file's meta.json", `--output-csv`, func(t *testing.T, d string) []string {
		return []string{"--raw-csv", raw(d), "--output-csv", expMeta(d)}
	})
	add("process", "output over an input", "--html another experiment's meta.json", `--html`, func(t *testing.T, d string) []string {
		return []string{"--quiet", "--no-plots", "--html", rootMeta(d), exp(d)}
	})
	add("check", "output over an input", "--json another experiment's summary", `--json`, func(t *testing.T, d string) []string {
		return calls["check"](d, "--json", rootSum(d))
	})
	add("compare", "output over an input", "-p an experiment", `--plots-directory`, func(t *testing.T, d string) []string {
		return []string{"--reference", filepath.Join(root(d), "r1"), "--results", exp(d), "-p", filepath.Join(root(d), "r3")}
	})
	add("requirements", "output over an input", "-o inside an input experiment", `--output-file`, func(t *testing.T, d string) []string {
		return []string{"-e", root(d), "-o", filepath.Join(root(d), "r3", "latency_requirements.csv")}
	})
	add("history", "output over an input", "-p the results root", `--plots-directory`, func(t *testing.T, d string) []string {
		return []string{"-e", root(d), "-r", reqs(d), "-p", root(d)}
	})
	add("history", "output over an input", "-p an experiment", `--plots-directory`, func(t *testing.T, d string) []string {
		return []string{"-e", root(d), "-r", reqs(d), "-p", filepath.Join(root(d), "r1")}
	})

	// --- flag values out of range -----------------------------------------
	flagCases := []struct {
		tool, flag, value string
	}{
		{"process", "--jobs", "0"},
		{"process", "--jobs", "1000000000"},
		{"process", "--format", "gif"},
		{"check", "--margin", "25"},
		{"check", "--margin", "-0.5"},
		{"check", "--columns", "Mean,Bogus"},
		{"compare", "--fail-threshold", "50"},
		{"compare", "--fail-threshold", "NaN"},
		{"compare", "--false-fail", "2"},
		{"requirements", "--percentile", "150"},
		{"requirements", "--false-fail", "0"},
		{"history", "--significance", "1.5"},
		{"history", "--permutations", "0"},
		{"history", "--gate-threshold", "20"},
	}
	for _, c := range flagCases {
		c := c
		add(c.tool, "flag value", c.flag+" "+c.value, regexp.QuoteMeta(c.flag), func(t *testing.T, d string) []string {
			if c.tool == "process" {
				return calls["process"](d, c.flag, c.value)
			}
			return calls[c.tool](d, c.flag, c.value)
		})
	}
	runCases := []struct {
		name, where string
		args        []string
	}{
		{"--samples 0", `--samples`, []string{"--samples", "0"}},
		{"--timeout 0", `--timeout`, []string{"--timeout", "0"}},
		{"--payloads 16-1024", `--payloads`, []string{"--payloads", "16-1024"}},
		{"unknown sub-experiment", `nats_besteffort`, []string{"-s", "nats_besteffort"}},
		{"load --rate 1e308", `--rate`, []string{"load", "--rate", "1e308"}},
		{"load --duration 0", `--duration`, []string{"load", "--duration", "0"}},
		{"missing --ca", `--ca`, []string{"-s", "interprocess_reliable_tcp_security", "--ca", "nope.pem"}},
	}
	for _, c := range runCases {
		c := c
		add("run", "flag value", c.name, c.where, func(t *testing.T, d string) []string {
			out := filepath.Join(d, "runs")
			if len(c.args) > 0 && c.args[0] == "load" {
				return append([]string{"load", "--out", out, "-s", "intraprocess_best_effort"}, c.args[1:]...)
			}
			return append([]string{"--out", out, "-s", "intraprocess_reliable"}, c.args...)
		})
	}
	// --config is the roles' settings file (run --config FILE pub|sub|req|qry).
	add("run", "malformed config", "--config TOML syntax", `cfg\.toml:3\b`, func(t *testing.T, d string) []string {
		replace(t, filepath.Join(d, "cfg.toml"), "topics = 1\nrate = 100\nduration = = 3\n")
		return []string{"--config", filepath.Join(d, "cfg.toml"), "pub", "--out-dir", filepath.Join(d, "runs")}
	})
	add("run", "malformed config", "--config YAML syntax", `cfg\.yaml:3\b`, func(t *testing.T, d string) []string {
		replace(t, filepath.Join(d, "cfg.yaml"), "topics: 1\nrate:\n\t- 100\n")
		return []string{"--config", filepath.Join(d, "cfg.yaml"), "sub", "--out-dir", filepath.Join(d, "runs")}
	})
	add("run", "not a regular file", "--config is a FIFO", `cfg\.toml: is a named pipe`, func(t *testing.T, d string) []string {
		if err := syscall.Mkfifo(filepath.Join(d, "cfg.toml"), 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		return []string{"--config", filepath.Join(d, "cfg.toml"), "pub", "--out-dir", filepath.Join(d, "runs")}
	})
	add("run", "not a regular file", "--ca is a FIFO", `ca\.pem: is a named pipe`, func(t *testing.T, d string) []string {
		if err := syscall.Mkfifo(filepath.Join(d, "ca.pem"), 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		return []string{"--out", filepath.Join(d, "runs"), "-s", "interprocess_reliable_tcp_security", "--ca", filepath.Join(d, "ca.pem")}
	})
	add("run", "malformed config", "--config unknown setting", `cfg\.toml:2\b`, func(t *testing.T, d string) []string {
		replace(t, filepath.Join(d, "cfg.toml"), "topics = 1\nrat = 100\n")
		return []string{"--config", filepath.Join(d, "cfg.toml"), "pub", "--out-dir", filepath.Join(d, "runs")}
	})

	// The trials below are the classes of bad input found since: each
	// setup makes the one fault; the tools that make inputs run first.
	prep := func(t *testing.T, tool string, args ...string) {
		t.Helper()
		if code, stdout, stderr := gateRun(t, bins[tool], args...); code != 0 {
			t.Fatalf("setup: %s %s: exit %d\n%s%s", tool, strings.Join(args, " "), code, stdout, stderr)
		}
	}
	// small is a run's measurement kept short.
	small := []string{"-s", catType, "--payloads", "64", "--samples", "100", "-q"}
	// ref20 copies root's runs into ref/r01..r20, 20 reference runs.
	ref20 := func(t *testing.T, d string) string {
		ref := filepath.Join(d, "ref")
		for i := 1; i <= 20; i++ {
			copyTree(t, filepath.Join(root(d), fmt.Sprintf("r%d", (i-1)%3+1)), filepath.Join(ref, fmt.Sprintf("r%02d", i)))
		}
		return ref
	}
	// keepTime rewrites a file with f, keeping its modification time:
	// the fault is its content, not its age.
	keepTime := func(t *testing.T, path string, f func(string) string) {
		t.Helper()
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		edit(t, path, f)
		if err := os.Chtimes(path, info.ModTime(), info.ModTime()); err != nil {
			t.Fatal(err)
		}
	}

	// --- outputs over inputs: run ab, requirements --calibrate -----------
	add("requirements", "output over an input", "--calibrate --json a run's meta.json", `--json .*meta\.json lies in the experiment`, func(t *testing.T, d string) []string {
		return []string{"--calibrate", "-e", root(d), "--json", rootMeta(d), "--plots-directory", filepath.Join(d, "cal")}
	})
	add("requirements", "output over an input", "--calibrate --regressed the unchanged runs", `--regressed .* is the folder of --experiments-results`, func(t *testing.T, d string) []string {
		return []string{"--calibrate", "-e", root(d), "--regressed", root(d) + "/.", "--plots-directory", filepath.Join(d, "cal")}
	})
	add("run", "output over an input", "ab --json a run's meta.json", `--json .*old/meta\.json lies in the experiment .*where it is the run's meta\.json`, func(t *testing.T, d string) []string {
		prep(t, "run", append([]string{"--out", d, "--name", "old"}, small...)...)
		return []string{"ab", "--max-runs", "2", "--out", filepath.Join(d, "ab"), "--name", "x", "--candidate", "--echo-delay 1ms",
			"--json", filepath.Join(d, "old", "meta.json"), "--", "-s", catType, "--payloads", "64", "-q"}
	})

	// --- outputs in use or in the way -------------------------------------
	add("compare", "output taken", "-p a folder another compare holds", `--plots-directory .*cmp is in use`, func(t *testing.T, d string) []string {
		cmp := filepath.Join(d, "cmp")
		if err := os.Mkdir(cmp, 0o755); err != nil {
			t.Fatal(err)
		}
		replace(t, filepath.Join(cmp, catType+"_comparison.csv"), "an earlier comparison\n")
		f, err := os.Open(cmp)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		// As a compare still writing there holds it.
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			t.Skipf("flock: %v", err)
		}
		return calls["compare"](d)
	})
	add("run", "output taken", "--name an existing folder", `taken exists already`, func(t *testing.T, d string) []string {
		if err := os.Mkdir(filepath.Join(d, "taken"), 0o755); err != nil {
			t.Fatal(err)
		}
		return append([]string{"--out", d, "--name", "taken"}, small...)
	})
	add("requirements", "output taken", "drift report path is a directory", `the drift report beside --output-file: cannot write .*reqs_drift\.csv: it is a directory`, func(t *testing.T, d string) []string {
		drift := filepath.Join(d, "reqs_drift.csv")
		if err := os.Remove(drift); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(drift, 0o755); err != nil {
			t.Fatal(err)
		}
		return []string{"-e", root(d), "-o", reqs(d)}
	})

	// --- flags that do not apply to the mode ------------------------------
	add("compare", "flag not for the mode", "--paired with --fail-threshold", `--fail-threshold does not apply to the paired gate`, func(t *testing.T, d string) []string {
		copyTree(t, root(d), filepath.Join(d, "cand"))
		return []string{"--reference", root(d), "--results", filepath.Join(d, "cand"), "--paired", "--fail-threshold", "50%", "-p", filepath.Join(d, "cmp")}
	})

	// --- the same input on both sides -------------------------------------
	add("compare", "same input twice", "--results is --reference", `different runs on the two sides`, func(t *testing.T, d string) []string {
		return []string{"--reference", exp(d), "--results", exp(d) + "/", "-p", filepath.Join(d, "cmp")}
	})

	// --- meta.json against the folder's files -----------------------------
	for _, tool := range []string{"check", "compare", "requirements", "history"} {
		tool := tool
		// An earlier check's reports lie in the experiment: they stay.
		earlier := func(t *testing.T, d string) {
			if tool == "check" {
				prep(t, "check", calls["check"](d)...)
			}
		}
		add(tool, "meta.json vs files", "sub-experiment not listed", `measurements_x_reliable_summary\.csv: sub-experiment x_reliable is not in .*meta\.json`, func(t *testing.T, d string) []string {
			earlier(t, d)
			s := readsSum[tool](d)
			copied := filepath.Join(filepath.Dir(s), "measurements_x_reliable_summary.csv")
			copyTree(t, s, copied)
			return calls[tool](d)
		})
		add(tool, "meta.json vs files", "payload not listed", regexp.QuoteMeta(catSum)+`:4: payload 99999 B of sub-experiment `+catType+` is not in .*meta\.json`, func(t *testing.T, d string) []string {
			earlier(t, d)
			keepTime(t, readsSum[tool](d), func(s string) string {
				lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
				last := lines[len(lines)-1]
				return s + "99999" + last[strings.Index(last, ","):] + "\n"
			})
			return calls[tool](d)
		})
	}

	// --- strict JSON and UTF-8 --------------------------------------------
	add("process", "malformed JSON", "load summary: data after the object", `load_intraprocess_best_effort_summary\.json:\d+:1: unexpected data after the JSON object`, func(t *testing.T, d string) []string {
		b, err := os.ReadFile(filepath.Join("testdata", "load_intraprocess_best_effort_summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		replace(t, filepath.Join(exp(d), "load_intraprocess_best_effort_summary.json"), string(b)+"}\n")
		// meta.json lists the load's sub-experiment: the one fault is the
		// data after the object.
		writeMeta(t, exp(d), func(m *meta.Meta) {
			catListed(m)
			m.Config.SubExperiments = append(m.Config.SubExperiments, "intraprocess_best_effort")
		})
		return calls["process"](d)
	})
	for _, c := range []struct{ name, note, where string }{
		{"byte not UTF-8", "caf\xe9", `acks\.csv:2:\d+: byte 0xE9 is not UTF-8`},
		{"NUL byte", "ca\x00fe", `acks\.csv:2:\d+: NUL byte`},
	} {
		c := c
		add("history", "malformed CSV", "acknowledgements: "+c.name, c.where, func(t *testing.T, d string) []string {
			replace(t, filepath.Join(d, "acks.csv"), "sub-experiment,payload,metric,experiment,note\n*,*,*,r2,"+c.note+"\n")
			return []string{"-e", root(d), "-p", filepath.Join(d, "hist"), "--gate", "--acknowledged", filepath.Join(d, "acks.csv")}
		})
	}

	// A damaged per-message summary beside good files: refused before any
	// summary or plot of the folder is written.
	add("process", "malformed CSV", "per-message summary: a count that is not one", `permessage_nats_best_effort_summary\.csv:6: column "Count": "many" is not a count`, func(t *testing.T, d string) []string {
		b, err := os.ReadFile(filepath.Join("..", "process", "testdata", "permessage", "permessage_nats_best_effort_summary.csv"))
		if err != nil {
			t.Fatal(err)
		}
		bad := strings.Replace(string(b), "16,RT [msg/s],19900,", "16,RT [msg/s],many,", 1)
		if bad == string(b) {
			t.Fatal("the fixture no longer has the row the trial damages")
		}
		replace(t, filepath.Join(exp(d), "permessage_nats_best_effort_summary.csv"), bad)
		return []string{"--quiet", exp(d)}
	})

	// A damaged burst file beside good raw files: every input is read and
	// checked before any summary or plot is written.
	add("process", "malformed CSV", "burst file: a time that is not a number", `burst_nats_best_effort\.csv:3: column "Publication time \[us\]": "28x3887" is not a finite number ≥ 0`, func(t *testing.T, d string) []string {
		b, err := os.ReadFile(filepath.Join("..", "process", "testdata", "fastrtps-throughput", "results_all_2019-11-04_15-39-11.csv"))
		if err != nil {
			t.Fatal(err)
		}
		bad := strings.Replace(string(b), ",2883887,", ",28x3887,", 1)
		if bad == string(b) {
			t.Fatal("the fixture no longer has the cell the trial damages")
		}
		replace(t, filepath.Join(exp(d), "burst_intraprocess_best_effort.csv"), string(b))
		replace(t, filepath.Join(exp(d), "burst_nats_best_effort.csv"), bad)
		writeMeta(t, exp(d), func(m *meta.Meta) {
			catListed(m)
			m.Config.SubExperiments = append(m.Config.SubExperiments, "intraprocess_best_effort", "nats_best_effort")
		})
		return []string{"--quiet", "--html", filepath.Join(exp(d), "report.html"), exp(d)}
	})

	// --- run ab's sides and the echo CPU checks ---------------------------
	for _, c := range []struct {
		name, where string
		args        []string
	}{
		{"sides pinned differently", `--cpus differs (0,0 and none)`,
			[]string{"ab", "--runs", "4", "--reference", "--cpus 0,0", "--candidate", "--cpus none", "--", "-s", "intraprocess_reliable", "--payloads", "64", "--samples", "100"}},
		{"--cpu-margin outside the interleaved design", `--cpu-margin: only --design interleave`,
			[]string{"ab", "--max-runs", "4", "--design", "random", "--cpu-margin", "2%", "--candidate", "--echo-delay 1ms", "--", "-s", "intraprocess_reliable"}},
	} {
		c := c
		add("run", "flag value", "ab: "+c.name, regexp.QuoteMeta(c.where), func(t *testing.T, d string) []string {
			// --out before the sides: run ab's own flags end at "--".
			return append([]string{c.args[0], "--out", filepath.Join(d, "about")}, c.args[1:]...)
		})
	}
	add("run", "flag value", "--echo-work on a remote echo", regexp.QuoteMeta(`--echo-work applies to the echoes this run starts`), func(t *testing.T, d string) []string {
		return []string{"-s", "interprocess_reliable_tcp", "--echo", "remote", "--target", "127.0.0.1:1", "--echo-work", "1us", "--out", filepath.Join(d, "remote")}
	})

	// --- message sizes: a payload over a transport's limit, an echo's
	// largest message out of range ----------------------------------------
	add("run", "flag value", "--payloads over the transport's largest message", regexp.QuoteMeta(`payload 2000000 B is larger than the 1048576-byte maximum message of transport nats (sub-experiment nats_best_effort); choose smaller --payloads`), func(t *testing.T, d string) []string {
		return []string{"-s", "nats_best_effort", "--broker", "embedded", "--payloads", "2000000", "--samples", "10", "--out", filepath.Join(d, "big")}
	})
	add("run", "flag value", "echo --max-message-size below a header", regexp.QuoteMeta(`--max-message-size 8: expected 16 to 1073741824`), func(t *testing.T, d string) []string {
		return []string{"echo", "--transport", "tcp", "--max-message-size", "8"}
	})

	// --- what a transport declares it can do, and the round of a gate ---
	for _, c := range []struct {
		name, where string
		args        func(d string) []string
	}{
		{"an echo of a process-bound transport", `--transport intraprocess: its two ends share one process, so it cannot be a separate echo`,
			func(string) []string { return []string{"echo", "--transport", "intraprocess"} }},
		{"--echo-delay on a transport that does not apply it", `zenoh_best_effort: transport zenoh does not apply --echo-delay`,
			func(d string) []string {
				return []string{"-s", "zenoh_best_effort", "--echo-delay", "1ms", "--out", filepath.Join(d, "zd")}
			}},
		{"--target with a scheme no transport takes", `--target "foo://127.0.0.1:1": no registered transport takes foo:// URLs`,
			func(d string) []string {
				return []string{"-s", "nats_best_effort", "--target", "foo://127.0.0.1:1", "--out", filepath.Join(d, "foo")}
			}},
		{"--echo remote with only in-process echoes", `--echo remote: no selected sub-experiment has its echo there`,
			func(d string) []string {
				return []string{"-s", "intraprocess_reliable", "--echo", "remote", "--out", filepath.Join(d, "er")}
			}},
		{"--topic with no broker", `--topic "foo": no selected sub-experiment goes through a broker`,
			func(d string) []string {
				return []string{"-s", "intraprocess_reliable", "--topic", "foo", "--out", filepath.Join(d, "tf")}
			}},
		{"--payloads range doubling does not reach", `payload range "20..100": doubling 20 does not reach 100`,
			func(d string) []string {
				return []string{"-s", "intraprocess_reliable", "--payloads", "20..100", "--out", filepath.Join(d, "pr")}
			}},
		{"ab --blocks 0", `--blocks 0: expected 1 to 10000`,
			func(d string) []string {
				return []string{"ab", "--max-runs", "5", "--blocks", "0", "--out", filepath.Join(d, "ab0"), "--", "-s", "intraprocess_reliable"}
			}},
		{"zenoh req --agg-window below a millisecond", `--agg-window 500µs: expected 0 (none) or 1ms to 1h`,
			func(d string) []string {
				return []string{"req", "--driver", "zenoh", "--endpoint", "tcp/127.0.0.1:1", "--name", "bic", "--out", filepath.Join(d, "zr"), "--agg-window", "500us"}
			}},
		{"a role's driver setting out of range", `nats: --nats-replicas 9: expected 1 to 5`,
			func(d string) []string {
				return []string{"pub", "--driver", "nats", "--nats-replicas", "9", "--out", filepath.Join(d, "rn"), "--timeout", "1s"}
			}},
		{"a role's keep alive under a second", `mqtt: --mqtt-keepalive 500ms: expected 1s to 18h12m15s`,
			func(d string) []string {
				return []string{"sub", "--driver", "mqtt", "--mqtt-keepalive", "500ms", "--out", filepath.Join(d, "rm"), "--timeout", "1s"}
			}},
		{"a role's true-or-false setting neither", `amqp: --amqp-mandatory "maybe": expected true or false`,
			func(d string) []string {
				return []string{"pub", "--driver", "amqp", "--amqp-mandatory", "maybe", "--out", filepath.Join(d, "ra"), "--timeout", "1s"}
			}},
		{"zenoh qry serving a prefix the helper does not", `--serve-prefix "a/x": the zenoh helper serves mqgate/bench/query only`,
			func(d string) []string {
				return []string{"qry", "--driver", "zenoh", "--endpoint", "tcp/127.0.0.1:1", "--name", "bic", "--out", filepath.Join(d, "zq"), "--serve-prefix", "a/x", "--serve-prefix", "b/y"}
			}},
	} {
		c := c
		add("run", "flag value", c.name, regexp.QuoteMeta(c.where), func(t *testing.T, d string) []string { return c.args(d) })
	}

	// --- the roles' client takes the systems' flags, checked before it
	// connects or writes -----------------------------------------------------
	for _, c := range []struct {
		name, where string
		args        []string
	}{
		{"another system's flag", `--amqp-prefetch is a setting of --driver amqp, not of --driver nats`, []string{"sub", "--amqp-prefetch", "5"}},
		{"a driver flag's value", `amqp: --amqp-prefetch "many": expected a whole number, 0 to 65535`, []string{"pub", "--driver", "amqp", "--amqp-prefetch", "many"}},
		{"a certificate without --ca", `which needs --ca`, []string{"sub", "--cert", "c.pem", "--key", "k.pem"}},
	} {
		c := c
		add("run", "flag value", "roles: "+c.name, regexp.QuoteMeta(c.where), func(t *testing.T, d string) []string {
			return append(c.args, "--out", filepath.Join(d, "roleout"), "--timeout", "1s")
		})
	}

	// --- the series file of run ab against its runs -----------------------
	add("compare", "series file", "Experiment cells of two runs swapped", `x-series\.csv:\d+: column "Experiment": reference/x-02 is run 2 of its side, but column "Run" says 1`, func(t *testing.T, d string) []string {
		ab := filepath.Join(d, "ab")
		prep(t, "run", append([]string{"ab", "--runs", "3", "--out", ab, "--name", "x", "--candidate", "--echo-delay 20us", "--"}, small...)...)
		for _, side := range []string{"reference", "candidate"} {
			for i := 1; i <= 3; i++ {
				prep(t, "process", "--quiet", "--no-plots", filepath.Join(ab, side, fmt.Sprintf("x-%02d", i)))
			}
		}
		edit(t, filepath.Join(ab, "x-series.csv"), func(s string) string {
			return strings.NewReplacer(",reference/x-01,", ",reference/x-02,", ",reference/x-02,", ",reference/x-01,").Replace(s)
		})
		return []string{"--reference", filepath.Join(ab, "reference"), "--results", filepath.Join(ab, "candidate"), "--plots-directory", filepath.Join(d, "cmp")}
	})

	// --- the other tools a program starts ---------------------------------
	trials = append(trials, catalogueTrial{tool: "requirements", class: "missing program", name: "--runs built alone, nothing on PATH",
		where:   `cannot find the run tool: neither run nor mqgate is beside this program`,
		program: func(d string) string { return filepath.Join(d, "alone", "requirements") },
		setup: func(t *testing.T, d string) []string {
			empty := filepath.Join(d, "empty")
			for _, dir := range []string{filepath.Join(d, "alone"), empty} {
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			copyTree(t, bins["requirements"], filepath.Join(d, "alone", "requirements"))
			t.Setenv("PATH", empty)
			return []string{"--runs", "1", "--out", filepath.Join(d, "pool"), "--", "-s", catType}
		}})
	add("mqgate", "missing program", "run --echo-command not a program", `--echo-command "/nonexistent/run" cannot be executed`, func(t *testing.T, d string) []string {
		return []string{"run", "-s", "interprocess_reliable_tcp", "--echo-command", "/nonexistent/run", "-o", filepath.Join(d, "results")}
	})

	// --- values out of range ----------------------------------------------
	for _, c := range []struct {
		name, where string
		args        []string
	}{
		{"permessage --window --count", `--window 100: expected 1 to --count − 1 \(99\)`, []string{"permessage", "-s", catType, "--count", "100", "--window", "100"}},
		{"throughput --windows 1", `--windows 1: expected 2 to 1000000`, []string{"throughput", "-s", catType, "--windows", "1"}},
		{"permessage --rate -5", `--rate -5: expected 0 \(back to back\) to 1000000000`, []string{"permessage", "-s", catType, "--count", "1000", "--rate", "-5"}},
		{"load --rate 2000000000", `--rate 2000000000: expected 0 \(as fast as possible\) to 1000000000`, []string{"load", "-s", "intraprocess_best_effort", "--rate", "2000000000", "--duration", "1s"}},
		{"load --payloads 8", `payload 8 B is smaller than the 16-byte message header`, []string{"load", "-s", "intraprocess_best_effort", "--payloads", "8", "--duration", "1s"}},
		{"ab --false-fail 0.6", `--false-fail: 0\.6 .*out of range.*below 50%`, append([]string{"ab", "--max-runs", "40", "--false-fail", "0.6", "--candidate", "--echo-delay 1ms", "--"}, small...)},
		{"ab --pass-margin above --fail-margin", `--pass-margin 10% above --fail-margin 5%`, append([]string{"ab", "--max-runs", "40", "--pass-margin", "0.1", "--fail-margin", "0.05", "--candidate", "--echo-delay 1ms", "--"}, small...)},
		{"ab --candidate --samples 0", `candidate side: --samples 0: expected 1 to 1000000000`, []string{"ab", "--runs", "2", "--candidate", "--samples 0", "--", "-s", catType}},
	} {
		c := c
		add("run", "flag value", c.name, c.where, func(t *testing.T, d string) []string {
			// An empty --out stays empty.
			out := filepath.Join(d, "bad")
			if err := os.Mkdir(out, 0o755); err != nil {
				t.Fatal(err)
			}
			return append([]string{c.args[0], "--out", out, "--name", "x"}, c.args[1:]...)
		})
	}
	add("compare", "flag value", "--paired with one pair", `a paired comparison needs at least 2 pairs`, func(t *testing.T, d string) []string {
		return calls["compare"](d, "--paired", "--json", filepath.Join(d, "out.json"))
	})
	for _, c := range []struct{ rank, where string }{
		{"0", `--order-rank 0 is out of range: expected 1 to 10000`},
		{"25", `distribution-free limits at the 25-th largest run need at least 25 runs`},
	} {
		c := c
		add("requirements", "flag value", "--order-rank "+c.rank+" of 20 runs", c.where, func(t *testing.T, d string) []string {
			ref := ref20(t, d)
			out := filepath.Join(d, "out.csv")
			prep(t, "requirements", "-e", ref, "-o", out)
			return []string{"-e", ref, "-o", out, "--order-rank", c.rank}
		})
	}
	add("check", "inconsistent data", "requirements order:25 of 20 runs", `bad\.csv:2: column "Median method": "order:25": the 25-th largest of 20 runs does not exist`, func(t *testing.T, d string) []string {
		bad := filepath.Join(d, "bad.csv")
		prep(t, "requirements", "-e", ref20(t, d), "-o", bad, "--false-fail", "0.05")
		edit(t, bad, func(s string) string {
			lines := strings.Split(s, "\n")
			lines[1] = strings.Replace(lines[1], "order:2,", "order:25,", 1)
			return strings.Join(lines, "\n")
		})
		return []string{"-r", bad, "-e", exp(d), "-e", filepath.Join(root(d), "r1")}
	})
	return trials
}

// TestBadInputCatalogue runs the catalogue: every trial exits 2 within its
// time limit, locates the fault, and changes no file.
func TestBadInputCatalogue(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs every tool; skipped with -short")
	}
	dir := t.TempDir()
	bins := buildTools(t, filepath.Join(dir, "bin"), "mqgate")
	bins["mqgate"] = filepath.Join(dir, "bin", "mqgate")
	tmpl := filepath.Join(dir, "template")
	catTemplate(t, bins, tmpl)

	trials := catalogue(bins)
	type outcome struct{ trials, ok int }
	table := map[[2]string]*outcome{}
	for i, tr := range trials {
		tr := tr
		key := [2]string{tr.tool, tr.class}
		if table[key] == nil {
			table[key] = &outcome{}
		}
		table[key].trials++
		t.Run(fmt.Sprintf("%s/%s", tr.tool, tr.name), func(t *testing.T) {
			d := filepath.Join(dir, fmt.Sprintf("t%03d", i))
			copyTree(t, tmpl, d)
			args := tr.setup(t, d)
			before := treeState(t, d)

			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			prog := bins[tr.tool]
			if tr.program != nil {
				prog = tr.program(d)
			}
			cmd := exec.CommandContext(ctx, prog, args...)
			cmd.Dir = d
			cmd.WaitDelay = 2 * time.Second
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			var ee *exec.ExitError
			switch {
			case ctx.Err() != nil:
				t.Fatalf("%s %s: still running after 20 s (a hang on bad input)", tr.tool, strings.Join(args, " "))
			case errors.As(err, &ee):
				code = ee.ExitCode()
			case err != nil:
				t.Fatalf("%s: %v", tr.tool, err)
			}
			failed := false
			if code != 2 {
				t.Errorf("%s %s: exit %d, want 2\nstdout:\n%s\nstderr:\n%s", tr.tool, strings.Join(args, " "), code, stdout.String(), stderr.String())
				failed = true
			}
			if !regexp.MustCompile(tr.where).MatchString(stderr.String()) {
				t.Errorf("%s %s: stderr does not locate the fault (want /%s/):\n%s", tr.tool, strings.Join(args, " "), tr.where, stderr.String())
				failed = true
			}
			after := treeState(t, d)
			var changed []string
			for p, h := range before {
				if _, ok := after[p]; !ok && slices.Contains(tr.outputs, p) {
					continue // an output of the tool's that it may remove
				}
				if after[p] != h {
					changed = append(changed, p+" (changed or removed)")
				}
			}
			for p := range after {
				if _, ok := before[p]; !ok {
					changed = append(changed, p+" (written)")
				}
			}
			sort.Strings(changed)
			if len(changed) > 0 {
				t.Errorf("%s %s: files changed by a refused call:\n  %s", tr.tool, strings.Join(args, " "), strings.Join(changed, "\n  "))
				failed = true
			}
			if !failed {
				table[key].ok++
			}
			_ = os.RemoveAll(d)
		})
	}
	var keys [][2]string
	for k := range table {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][0] != keys[j][0] {
			return keys[i][0] < keys[j][0]
		}
		return keys[i][1] < keys[j][1]
	})
	var b strings.Builder
	fmt.Fprintf(&b, "%d trials\n%-13s %-22s %s\n", len(trials), "tool", "class", "exit 2, located, nothing changed")
	for _, k := range keys {
		fmt.Fprintf(&b, "%-13s %-22s %d/%d\n", k[0], k[1], table[k].ok, table[k].trials)
	}
	t.Log("\n" + b.String())
}
