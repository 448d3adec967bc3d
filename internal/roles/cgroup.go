package roles

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// cgroupFS is where the cgroup hierarchies are mounted (v2 there, or in
// its "unified" directory on a host that mounts v1's controllers there
// too) and procCgroup the file naming the process's cgroups; tests point
// them at a directory of their own.
var (
	cgroupFS   = "/sys/fs/cgroup"
	procCgroup = "/proc/self/cgroup"
)

// CgroupUsage is what the role's cgroup used, as its files say: the
// container's when the role runs in one (Compose, Kubernetes). CPUUsec is
// the CPU time of every process of the cgroup (v2 cpu.stat's usage_usec,
// v1 cpuacct.usage); MemoryBytes the memory charged to it, page cache
// included (v2 memory.current, v1 memory.usage_in_bytes), MemoryPeakBytes
// its peak (memory.peak, memory.max_usage_in_bytes; 0 where there is none).
type CgroupUsage struct {
	Path            string `json:"path"`
	CPUUsec         uint64 `json:"cpu_usec"`
	MemoryBytes     uint64 `json:"memory_bytes,omitempty"`
	MemoryPeakBytes uint64 `json:"memory_peak_bytes,omitempty"`
}

// cgroupDir is the process's cgroup v2 as /proc/self/cgroup names it
// (path) and its directory, or "" when it has none of its own: no v2
// hierarchy, or the host's root cgroup (whose counts are the whole
// machine's). A container's own namespace shows its cgroup as the root
// "/", told apart by its memory.current, which the host's root has not.
func cgroupDir() (path, dir string) {
	path = procCgroupPath(func(id, controllers string) bool { return id == "0" && controllers == "" })
	if path == "" {
		return "", ""
	}
	root := cgroupFS
	if _, err := os.Stat(filepath.Join(root, "cgroup.controllers")); err != nil {
		root = filepath.Join(cgroupFS, "unified") // a hybrid host: v2 beside v1
	}
	dir = filepath.Join(root, path)
	if path == "/" {
		if _, err := os.Stat(filepath.Join(dir, "memory.current")); err != nil {
			return "", ""
		}
	}
	return path, dir
}

// ReadCgroup reads the role's cgroup usage, v2's or else v1's; ok is
// false when the process has no cgroup of its own (cgroupDir, v1Path) or
// its CPU time cannot be read.
func ReadCgroup() (u CgroupUsage, ok bool) {
	if u, ok := readCgroupV2(); ok {
		return u, true
	}
	return readCgroupV1()
}

// v1Path is the process's cgroup in the v1 hierarchy of controller, ""
// when it has none.
func v1Path(controller string) string {
	return procCgroupPath(func(id, controllers string) bool {
		return slices.Contains(strings.Split(controllers, ","), controller)
	})
}

// procCgroupPath is the cgroup of the first line of /proc/self/cgroup
// (hierarchy-ID:controllers:path) that match accepts, "" when none does.
func procCgroupPath(match func(id, controllers string) bool) string {
	b, _ := os.ReadFile(procCgroup)
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.SplitN(line, ":", 3); len(f) == 3 && match(f[0], f[1]) {
			return f[2]
		}
	}
	return ""
}

// v1Dir is the directory of the cgroup at path in controller's hierarchy:
// under its mount, or the mount itself in a container, which sees its own
// cgroup mounted there.
func v1Dir(controller, path string) string {
	mount := filepath.Join(cgroupFS, controller)
	if d := filepath.Join(mount, path); path != "/" {
		if _, err := os.Stat(d); err == nil {
			return d
		}
	}
	return mount
}

// readCgroupV1 reads a cgroup v1 of the process's own (not the root):
// cpuacct.usage (ns) and the memory controller's usage and peak.
func readCgroupV1() (u CgroupUsage, ok bool) {
	p := v1Path("cpuacct")
	if p == "" || p == "/" {
		return u, false
	}
	ns, err := readUint(filepath.Join(v1Dir("cpuacct", p), "cpuacct.usage"))
	if err != nil {
		return u, false
	}
	u = CgroupUsage{Path: p, CPUUsec: ns / 1000}
	if mp := v1Path("memory"); mp != "" && mp != "/" {
		d := v1Dir("memory", mp)
		u.MemoryBytes, _ = readUint(filepath.Join(d, "memory.usage_in_bytes"))
		u.MemoryPeakBytes, _ = readUint(filepath.Join(d, "memory.max_usage_in_bytes"))
	}
	return u, true
}

// readCgroupV2 reads the process's cgroup v2 (cgroupDir).
func readCgroupV2() (u CgroupUsage, ok bool) {
	path, dir := cgroupDir()
	if dir == "" {
		return u, false
	}
	b, err := os.ReadFile(filepath.Join(dir, "cpu.stat"))
	if err != nil {
		return u, false
	}
	found := false
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "usage_usec "); ok {
			u.CPUUsec, err = strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			found = err == nil
		}
	}
	if !found {
		return u, false
	}
	u.Path = path
	u.MemoryBytes, _ = readUint(filepath.Join(dir, "memory.current"))
	u.MemoryPeakBytes, _ = readUint(filepath.Join(dir, "memory.peak"))
	return u, true
}

// readUint reads a file holding one number; 0 and the error when it
// cannot.
func readUint(path string) (uint64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
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
