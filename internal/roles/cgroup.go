package roles

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// cgroupFS is where the cgroup v2 hierarchy is mounted ("/sys/fs/cgroup",
// or its "unified" directory on a host that mounts v1 there too) and
// procCgroup the file naming the process's cgroup; tests point them at
// a directory of their own.
var (
	cgroupFS   = "/sys/fs/cgroup"
	procCgroup = "/proc/self/cgroup"
)

// CgroupUsage is what the role's cgroup (v2) used, as its files say: the
// container's when the role runs in one (Compose, Kubernetes). CPUUsec is
// cpu.stat's usage_usec, the CPU time of every process of the cgroup;
// MemoryBytes memory.current, the memory charged to it (page cache
// included), MemoryPeakBytes memory.peak (0 where the kernel has none).
type CgroupUsage struct {
	Path            string `json:"path"`
	CPUUsec         uint64 `json:"cpu_usec"`
	MemoryBytes     uint64 `json:"memory_bytes,omitempty"`
	MemoryPeakBytes uint64 `json:"memory_peak_bytes,omitempty"`
}

// cgroupDir is the directory of the process's cgroup v2, or "" when it
// has none of its own: no v2 hierarchy, or the host's root cgroup (whose
// counts are the whole machine's). A container's own namespace shows its
// cgroup as the root "/", told apart by its memory.current, which the
// host's root has not.
func cgroupDir() string {
	path := cgroupPath()
	if path == "" {
		return ""
	}
	root := cgroupFS
	if _, err := os.Stat(filepath.Join(root, "cgroup.controllers")); err != nil {
		root = filepath.Join(cgroupFS, "unified") // a hybrid host: v2 beside v1
	}
	dir := filepath.Join(root, path)
	if _, err := os.Stat(filepath.Join(dir, "cpu.stat")); err != nil {
		return ""
	}
	if path == "/" {
		if _, err := os.Stat(filepath.Join(dir, "memory.current")); err != nil {
			return ""
		}
	}
	return dir
}

// ReadCgroup reads the role's cgroup usage; ok is false when the process
// has no cgroup of its own (cgroupDir) or its cpu.stat cannot be read.
func ReadCgroup() (u CgroupUsage, ok bool) {
	dir := cgroupDir()
	if dir == "" {
		return u, false
	}
	b, err := os.ReadFile(filepath.Join(dir, "cpu.stat"))
	if err != nil {
		return u, false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	found := false
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "usage_usec "); ok {
			u.CPUUsec, err = strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			found = err == nil
		}
	}
	if !found {
		return u, false
	}
	u.Path = cgroupPath()
	u.MemoryBytes = readUint(filepath.Join(dir, "memory.current"))
	u.MemoryPeakBytes = readUint(filepath.Join(dir, "memory.peak"))
	return u, true
}

// cgroupPath is the process's cgroup as /proc/self/cgroup names it.
func cgroupPath() string {
	b, _ := os.ReadFile(procCgroup)
	for _, line := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			return p
		}
	}
	return ""
}

// readUint reads a file holding one number; 0 when it cannot.
func readUint(path string) uint64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	v, _ := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	return v
}

// withCgroup is report's JSON with a last field "cgroup": the cgroup's
// usage at the end of the role, its CPU time since start (the role's
// share, with the other processes of the cgroup). Without a cgroup of its
// own, the report as it is.
func withCgroup(report any, start CgroupUsage) any {
	end, ok := ReadCgroup()
	if !ok {
		return report
	}
	b, err := json.Marshal(report)
	if err != nil || len(b) < 2 || b[len(b)-1] != '}' {
		return report
	}
	use := cgroupReport{CgroupUsage: end, RoleCPUUsec: end.CPUUsec - min(start.CPUUsec, end.CPUUsec)}
	c, err := json.Marshal(use)
	if err != nil {
		return report
	}
	sep := ","
	if len(b) == 2 {
		sep = ""
	}
	return json.RawMessage(append(append(append(b[:len(b)-1:len(b)-1], sep+`"cgroup":`...), c...), '}'))
}

// cgroupReport is the "cgroup" of a role report: the cgroup's usage at the
// role's end and the CPU time it used while the role ran.
type cgroupReport struct {
	CgroupUsage
	RoleCPUUsec uint64 `json:"role_cpu_usec"`
}
