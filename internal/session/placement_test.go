package session

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/engine"
	"github.com/mqgate/mqgate/internal/meta"
)

// TestDefaultCPUs: two usable CPUs or more give the pinger the first and
// the echo end the second; one gives no placement.
func TestDefaultCPUs(t *testing.T) {
	for _, c := range []struct {
		allowed []int
		want    *meta.CPUs
	}{
		{[]int{0, 1}, &meta.CPUs{Pinger: 0, Ponger: 1, Placement: meta.PlacementDefault}},
		{[]int{2, 5, 7}, &meta.CPUs{Pinger: 2, Ponger: 5, Placement: meta.PlacementDefault}},
		{[]int{3}, nil},
		{nil, nil},
	} {
		got := defaultCPUs(c.allowed)
		if (got == nil) != (c.want == nil) || got != nil && *got != *c.want {
			t.Errorf("defaultCPUs(%v) = %+v, want %+v", c.allowed, got, c.want)
		}
	}
}

// fakeAffinity is an OS that accepts every pin and leaves the threads on
// the CPUs of mask, as a sandbox that ignores sched_setaffinity does.
type fakeAffinity struct {
	mask []int
	sets int
}

func (f *fakeAffinity) Set(int, []int) error   { f.sets++; return nil }
func (f *fakeAffinity) Get(int) ([]int, error) { return slices.Clone(f.mask), nil }
func withAffinity(t *testing.T, a affinity) {
	old := sysAffinity
	sysAffinity = a
	t.Cleanup(func() { sysAffinity = old })
}
func placementConfig(cpus *meta.CPUs, warn *bytes.Buffer) Config {
	return Config{Scenarios: []string{"intraprocess_reliable"}, Engine: engine.Config{Payloads: []int{16}, Samples: 20},
		CPUs: cpus, EchoStderr: warn}
}

// TestPlacementResolved: with two usable CPUs and an OS that honours pins,
// no --cpus places the ends on them; one usable CPU, or an OS that does
// not honour the pins, leaves the run not pinned with a warning; --cpus
// none pins nothing, silently.
func TestPlacementResolved(t *testing.T) {
	ctx := context.Background()
	honours := &honouring{mask: []int{0, 1}}
	for _, c := range []struct {
		name  string
		aff   affinity
		cpus  *meta.CPUs
		want  meta.CPUs
		warns string
	}{
		{"two CPUs", honours, nil, meta.CPUs{Pinger: 0, Ponger: 1, Placement: meta.PlacementDefault}, ""},
		{"one CPU", &honouring{mask: []int{1}}, nil,
			meta.CPUs{Pinger: -1, Ponger: -1, Placement: meta.PlacementNotPinned, Note: "this process may use CPU 1 only: the two ends share it"}, "not pinned: this process may use CPU 1 only"},
		{"not honoured", &fakeAffinity{mask: []int{0, 1}}, nil,
			meta.CPUs{Pinger: -1, Ponger: -1, Placement: meta.PlacementNotPinned, Note: "pinning the ends to CPUs 0 and 1: asked for CPU 0, the OS gave CPUs 0-1"}, "the OS gave CPUs 0-1"},
		{"none", honours, &meta.CPUs{Pinger: -1, Ponger: -1}, meta.CPUs{Pinger: -1, Ponger: -1, Placement: meta.PlacementNone}, ""},
		{"given", honours, &meta.CPUs{Pinger: 1, Ponger: 1}, meta.CPUs{Pinger: 1, Ponger: 1}, ""},
	} {
		withAffinity(t, c.aff)
		var warn bytes.Buffer
		s, err := Prepare(ctx, placementConfig(c.cpus, &warn))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		s.Close()
		if got := s.MetaConfig().CPUs; got == nil || *got != c.want {
			t.Errorf("%s: placement %+v, want %+v", c.name, got, c.want)
		}
		if c.warns == "" && warn.Len() > 0 || !strings.Contains(warn.String(), c.warns) {
			t.Errorf("%s: warnings %q, want %q", c.name, warn.String(), c.warns)
		}
	}
}

// honouring is an OS that honours pins within mask, for the threads of
// this test alone (it pins nothing).
type honouring struct {
	mask []int
	last map[int][]int
}

func (h *honouring) Set(tid int, cpus []int) error {
	if h.last == nil {
		h.last = map[int][]int{}
	}
	h.last[tid] = cpus
	return nil
}

func (h *honouring) Get(tid int) ([]int, error) {
	if c, ok := h.last[tid]; ok {
		delete(h.last, tid)
		return c, nil
	}
	return slices.Clone(h.mask), nil
}

// TestGivenCPUsNotHonoured: --cpus given and not honoured by the OS is
// refused by Prepare, before anything is written, naming what was asked
// and what the OS gave.
func TestGivenCPUsNotHonoured(t *testing.T) {
	withAffinity(t, &fakeAffinity{mask: []int{0, 1}})
	_, err := Prepare(context.Background(), placementConfig(&meta.CPUs{Pinger: 1, Ponger: 0}, nil))
	want := "--cpus 1,0: the pinger's CPU was not honoured: asked for CPU 1, the OS gave CPUs 0-1"
	if err == nil || err.Error() != want {
		t.Errorf("Prepare = %v, want %q", err, want)
	}
}

// TestEchoProcessReadBack: the echo process's threads are read back from
// outside; threads left on other CPUs fail the check, naming them.
func TestEchoProcessReadBack(t *testing.T) {
	withAffinity(t, &fakeAffinity{mask: []int{0, 1}})
	err := checkProcessPinned(os.Getpid(), 1)
	if err == nil || !strings.Contains(err.Error(), "asked for CPU 1, the OS gave CPUs 0-1") {
		t.Errorf("checkProcessPinned = %v, want the mismatch", err)
	}
	withAffinity(t, &fakeAffinity{mask: []int{1}})
	if err := checkProcessPinned(os.Getpid(), 1); err != nil {
		t.Errorf("checkProcessPinned of threads on CPU 1 = %v", err)
	}
}

func TestCPUList(t *testing.T) {
	for in, want := range map[string]string{"": "none", "0": "0", "0,1": "0-1", "0,1,2,5,7,8": "0-2,5,7-8"} {
		var cpus []int
		for _, f := range strings.FieldsFunc(in, func(r rune) bool { return r == ',' }) {
			cpus = append(cpus, int(f[0]-'0'))
		}
		if got := cpuList(cpus); got != want {
			t.Errorf("cpuList(%v) = %q, want %q", cpus, got, want)
		}
	}
}

// TestDefaultPlacementReal: a real run without --cpus, an in-process and a
// subprocess sub-experiment, on this machine's CPUs: meta.json records the
// default placement (the first two CPUs this process may use) and every
// thread of the echo process shows the echo end's CPU in /proc; with one
// usable CPU, it records and warns "not pinned".
func TestDefaultPlacementReal(t *testing.T) {
	allowed, err := osAffinity{}.Get(0)
	if err != nil {
		t.Skipf("no CPU affinity here: %v", err)
	}
	dir := t.TempDir()
	status := filepath.Join(dir, "echo-status")
	t.Setenv(echoStatusEnv, status)
	var warn bytes.Buffer
	cfg := Config{Scenarios: []string{"intraprocess_reliable", "interprocess_reliable_tcp"},
		Engine: engine.Config{Payloads: []int{16}, Samples: 50}, Echo: EchoSubprocess,
		Self: []string{os.Args[0]}, EchoStderr: &warn}
	ctx := context.Background()
	s, err := Prepare(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	exp := filepath.Join(dir, "exp")
	if err := s.Run(ctx, Output{Dir: exp, Meta: &meta.Meta{Experiment: "exp"}}); err != nil {
		t.Fatalf("Run: %v\n%s", err, warn.String())
	}
	b, err := os.ReadFile(filepath.Join(exp, meta.FileName))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Config struct {
			CPUs *meta.CPUs `json:"cpus"`
		} `json:"config"`
	}
	if err := json.Unmarshal(b, &m); err != nil || m.Config.CPUs == nil {
		t.Fatalf("meta.json: no config.cpus (%v):\n%s", err, b)
	}
	got := *m.Config.CPUs
	st, err := os.ReadFile(status)
	if err != nil {
		t.Fatalf("the echo process wrote no /proc status: %v", err)
	}
	if len(allowed) < 2 {
		if got.Placement != meta.PlacementNotPinned || got.Pinger != -1 || !strings.Contains(warn.String(), "not pinned") {
			t.Errorf("one usable CPU: placement %+v, warnings %q; want not pinned, warned", got, warn.String())
		}
		return
	}
	want := meta.CPUs{Pinger: allowed[0], Ponger: allowed[1], Placement: meta.PlacementDefault}
	if got != want {
		t.Errorf("meta.json config.cpus = %+v, want %+v (warnings %q)", got, want, warn.String())
	}
	lines := strings.Split(strings.TrimSpace(string(st)), "\n")
	for _, l := range lines {
		if strings.TrimSpace(strings.TrimPrefix(l, "Cpus_allowed_list:")) != fmt.Sprint(allowed[1]) {
			t.Errorf("echo process thread %q, want CPU %d (all %d threads: %q)", l, allowed[1], len(lines), lines)
		}
	}
	if !strings.Contains(string(b), `"placement": "default"`) {
		t.Errorf("meta.json does not say the placement is the default:\n%s", b)
	}
}
