package roles_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"

	"github.com/mqgate/mqgate/internal/roles"
)

// fakeCgroup lays out files under a directory of the test, name → content,
// and returns the directory.
func fakeCgroup(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const cpuStat = "usage_usec 5000\nuser_usec 3000\nsystem_usec 2000\nnr_periods 0\n"

// TestReadCgroup reads a cgroup v2 the way a container shows it: a
// cgroup of its own (Compose with the host's cgroup namespace, a unit's
// slice), the root of its own namespace (Docker's default, told apart by
// memory.current), a hybrid host's v2 beside v1; a cgroup v1 of a
// container (its cgroup mounted as the root) or of a host; and reports
// none for the host's root cgroup (the machine's counts), v1's included.
func TestReadCgroup(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		want  roles.CgroupUsage
		ok    bool
	}{
		{"own", map[string]string{"proc": "0::/compose/sub\n", "fs/cgroup.controllers": "cpu memory\n",
			"fs/compose/sub/cpu.stat": cpuStat, "fs/compose/sub/memory.current": "1048576\n", "fs/compose/sub/memory.peak": "2097152\n"},
			roles.CgroupUsage{Path: "/compose/sub", CPUUsec: 5000, MemoryBytes: 1 << 20, MemoryPeakBytes: 2 << 20}, true},
		{"namespace root", map[string]string{"proc": "0::/\n", "fs/cgroup.controllers": "cpu memory\n", "fs/cpu.stat": cpuStat, "fs/memory.current": "4096\n"},
			roles.CgroupUsage{Path: "/", CPUUsec: 5000, MemoryBytes: 4096}, true},
		{"hybrid", map[string]string{"proc": "4:memory:/x\n0::/job\n", "fs/unified/cgroup.controllers": "\n", "fs/unified/job/cpu.stat": cpuStat},
			roles.CgroupUsage{Path: "/job", CPUUsec: 5000}, true},
		{"v1 container", map[string]string{"proc": "12:memory:/docker/abc\n3:cpu,cpuacct:/docker/abc\n0::/\n", "fs/cpuacct/cpuacct.usage": "7000123\n",
			"fs/memory/memory.usage_in_bytes": "8192\n", "fs/memory/memory.max_usage_in_bytes": "16384\n", "fs/unified/cgroup.controllers": "\n", "fs/unified/cpu.stat": cpuStat},
			roles.CgroupUsage{Path: "/docker/abc", CPUUsec: 7000, MemoryBytes: 8192, MemoryPeakBytes: 16384}, true},
		{"v1 own", map[string]string{"proc": "3:cpuacct:/job\n", "fs/cpuacct/cpuacct.usage": "1\n", "fs/cpuacct/job/cpuacct.usage": "2000\n"},
			roles.CgroupUsage{Path: "/job", CPUUsec: 2}, true},
		{"host root", map[string]string{"proc": "0::/\n", "fs/cgroup.controllers": "cpu memory\n", "fs/cpu.stat": cpuStat}, roles.CgroupUsage{}, false},
		{"v1 only", map[string]string{"proc": "4:memory:/x\n1:cpu:/\n", "fs/cpu/cpuacct.usage": "1\n"}, roles.CgroupUsage{}, false},
		{"no usage", map[string]string{"proc": "0::/a\n", "fs/cgroup.controllers": "\n", "fs/a/cpu.stat": "nr_periods 0\n"}, roles.CgroupUsage{}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := fakeCgroup(t, c.files)
			roles.SetCgroupFiles(t, filepath.Join(dir, "fs"), filepath.Join(dir, "proc"))
			got, ok := roles.ReadCgroup()
			if ok != c.ok || got != c.want {
				t.Errorf("ReadCgroup() = %+v, %v; want %+v, %v", got, ok, c.want, c.ok)
			}
		})
	}
}

// TestCgroupInReportAndPrometheus: a role in a cgroup of its own ends its
// report with the cgroup's usage at its end and the CPU time used since
// its start (cpu.stat then and now), and serves both at /metrics, read
// at each scrape; without one, neither.
func TestCgroupInReportAndPrometheus(t *testing.T) {
	dir := fakeCgroup(t, map[string]string{"proc": "0::/c\n", "fs/cgroup.controllers": "cpu memory\n",
		"fs/c/cpu.stat": cpuStat, "fs/c/memory.current": "1048576\n"})
	roles.SetCgroupFiles(t, filepath.Join(dir, "fs"), filepath.Join(dir, "proc"))
	start, ok := roles.ReadCgroup()
	if !ok {
		t.Fatal("no cgroup")
	}
	m, err := roles.NewMetrics(roles.Settings{Role: roles.RolePub, RunID: "r1", PromAddr: "127.0.0.1:0", SnapshotInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := os.WriteFile(filepath.Join(dir, "fs/c/cpu.stat"), []byte("usage_usec 1505000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get("http://" + m.PromAddr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, series := range []string{`mqgate_cgroup_cpu_seconds_total{role="pub"} 1.505`, `mqgate_cgroup_memory_bytes{role="pub"} 1.048576e+06`} {
		if !strings.Contains(string(body), series+"\n") {
			t.Errorf("/metrics lacks %s:\n%s", series, body)
		}
	}
	problems, err := promlint.New(strings.NewReader(string(body))).Lint()
	if err != nil || len(problems) > 0 {
		t.Errorf("promlint: %v %v", problems, err)
	}
	b, err := json.Marshal(roles.WithCgroup(roles.QryReport{Queries: 3}, start))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Queries uint64 `json:"queries"`
		Cgroup  struct {
			Path        string `json:"path"`
			CPUUsec     uint64 `json:"cpu_usec"`
			RoleCPUUsec uint64 `json:"role_cpu_usec"`
			MemoryBytes uint64 `json:"memory_bytes"`
		} `json:"cgroup"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if rep.Queries != 3 || rep.Cgroup.Path != "/c" || rep.Cgroup.CPUUsec != 1505000 || rep.Cgroup.RoleCPUUsec != 1500000 || rep.Cgroup.MemoryBytes != 1<<20 ||
		!strings.HasSuffix(string(b), `"role_cpu_usec":1500000}}`) {
		t.Errorf("report %s", b)
	}
	// No cgroup of its own: the report as it was.
	roles.SetCgroupFiles(t, filepath.Join(dir, "none"), filepath.Join(dir, "none"))
	if b2, _ := json.Marshal(roles.WithCgroup(roles.QryReport{Queries: 3}, start)); strings.Contains(string(b2), "cgroup") {
		t.Errorf("report without a cgroup: %s", b2)
	}
}

// procCPUUsec is the CPU time of this process, user and system, from
// /proc/self/stat (fields 14 and 15, in clock ticks of 10 ms).
func procCPUUsec(t testing.TB) uint64 {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	utime, _ := strconv.ParseUint(f[11], 10, 64)
	stime, _ := strconv.ParseUint(f[12], 10, 64)
	return (utime + stime) * 10_000 // USER_HZ is 100 on Linux
}

// cgroupChildEnv makes the test binary the child of TestCgroupAgainstProc.
const cgroupChildEnv = "MQGATE_TEST_CGROUP_CHILD"

// TestCgroupAgainstProc reads a real cgroup holding one process, v2 and
// v1 (cpuacct) where they are mounted: a child of the test that spins for
// 300 ms of CPU once moved into a cgroup made for it. The CPU time
// ReadCgroup gives over the spin is the child's own, by /proc/self/stat,
// within its 10 ms ticks. It needs a cgroup to make (root, or a delegated
// cgroup); without one it skips, saying why.
func TestCgroupAgainstProc(t *testing.T) {
	if os.Getenv(cgroupChildEnv) != "" {
		cgroupChild(t)
		return
	}
	v2 := "/sys/fs/cgroup"
	if _, err := os.Stat(filepath.Join(v2, "cgroup.controllers")); err != nil {
		v2 = filepath.Join(v2, "unified")
	}
	for name, mount := range map[string]string{"v2": v2, "v1": "/sys/fs/cgroup/cpuacct"} {
		t.Run(name, func(t *testing.T) {
			if name == "v1" {
				if _, err := os.Stat(filepath.Join(mount, "cpuacct.usage")); err != nil {
					t.Skipf("no cgroup v1 cpuacct hierarchy at %s", mount)
				}
			}
			cg := filepath.Join(mount, fmt.Sprintf("mqgate-test-%d", os.Getpid()))
			if err := os.Mkdir(cg, 0o755); err != nil {
				t.Skipf("no cgroup to make at %s (%v): ReadCgroup is checked against /proc only where one can be made", mount, err)
			}
			defer os.Remove(cg)
			cgUsec, procUsec, path := spinInCgroup(t, cg)
			if path != "/"+filepath.Base(cg) || procUsec < 250_000 {
				t.Fatalf("child read cgroup %q, spun %d us", path, procUsec)
			}
			if diff := int64(cgUsec) - int64(procUsec); diff < -20_000 || diff > 20_000 {
				t.Errorf("the cgroup's CPU time over the spin %d us, the process's own %d us (/proc/self/stat)", cgUsec, procUsec)
			}
			t.Logf("over the spin: cgroup %d us, /proc/self/stat %d us", cgUsec, procUsec)
		})
	}
}

// spinInCgroup runs the child (cgroupChild) in the cgroup cg and returns
// what it read: the cgroup's CPU time and its own over its spin, and the
// cgroup's path.
func spinInCgroup(t *testing.T, cg string) (cgUsec, procUsec uint64, path string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCgroupAgainstProc$", "-test.v")
	cmd.Env = append(os.Environ(), cgroupChildEnv+"=1")
	in, _ := cmd.StdinPipe()
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cg, "cgroup.procs"), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Skipf("cannot move a process into %s (%v)", cg, err)
	}
	io.WriteString(in, "go\n")
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v\n%s", err, out.String())
	}
	for _, l := range strings.Split(out.String(), "\n") {
		if _, err := fmt.Sscanf(strings.TrimSpace(l), "cgroup %s %d proc %d", &path, &cgUsec, &procUsec); err == nil {
			return cgUsec, procUsec, path
		}
	}
	t.Fatalf("child printed no reading:\n%s", out.String())
	return
}

// cgroupChild waits to be moved into its cgroup, then spins 300 ms of CPU between
// two readings of its cgroup and of /proc/self/stat, and prints both.
func cgroupChild(t *testing.T) {
	bufio.NewReader(os.Stdin).ReadString('\n')
	c0, ok := roles.ReadCgroup()
	if !ok {
		t.Fatal("no cgroup of its own")
	}
	p0 := procCPUUsec(t)
	p1 := p0
	// 300 ms of CPU, however loaded the machine (at most 10 s).
	for start := time.Now(); p1-p0 < 300_000 && time.Since(start) < 10*time.Second; p1 = procCPUUsec(t) {
		for spin := time.Now(); time.Since(spin) < time.Millisecond; {
		}
	}
	c1, _ := roles.ReadCgroup()
	fmt.Printf("cgroup %s %d proc %d\n", c1.Path, c1.CPUUsec-c0.CPUUsec, p1-p0)
}
