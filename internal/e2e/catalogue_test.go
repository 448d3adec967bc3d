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

// catTemplate builds, once per test, the inputs every trial starts from:
// exp/ (a processed experiment), root/r1..r3 (three more) and reqs.csv
// (requirements derived from root/).
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
		writeMeta(t, d, nil)
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
}

// catalogue lists the trials: tool by tool, class by class.
func catalogue() []catalogueTrial {
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
	return trials
}

// TestBadInputCatalogue runs the catalogue: every trial exits 2 within its
// time limit, locates the fault, and changes no file.
func TestBadInputCatalogue(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs every tool; skipped with -short")
	}
	dir := t.TempDir()
	bins := buildTools(t, filepath.Join(dir, "bin"))
	tmpl := filepath.Join(dir, "template")
	catTemplate(t, bins, tmpl)

	trials := catalogue()
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
			cmd := exec.CommandContext(ctx, bins[tr.tool], args...)
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
