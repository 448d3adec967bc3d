package meta

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Host is the fingerprint of the machine a run measured on.
type Host struct {
	Hostname     string `json:"hostname"`
	OS           string `json:"os"`
	Arch         string `json:"arch"`
	Kernel       string `json:"kernel"`
	CPUModel     string `json:"cpu_model"`
	LogicalCores int    `json:"logical_cores"`
	GOMAXPROCS   int    `json:"gomaxprocs"`
	GoVersion    string `json:"go_version"`
	// Load is the load average at the start and the end of the run; absent
	// where the system has none to read.
	Load *LoadAverage `json:"load_average,omitempty"`
}

// LoadAverage is the host's load average over 1, 5 and 15 minutes
// (/proc/loadavg), at the run's start (HostFingerprint) and at its end
// (Write, once the run's end is after its start).
type LoadAverage struct {
	Start *[3]float64 `json:"start,omitempty"`
	End   *[3]float64 `json:"end,omitempty"`
}

// readLoadAverage reads the load average of this host.
func readLoadAverage() (*[3]float64, bool) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return nil, false
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return nil, false
	}
	var la [3]float64
	for i := range la {
		if la[i], err = strconv.ParseFloat(f[i], 64); err != nil {
			return nil, false
		}
	}
	return &la, true
}

// Fingerprint is the string two hosts must share for their latencies to be
// comparable. The hostname and the load average are left out: identical CI
// runners differ in name, and a host's load in time.
func (h Host) Fingerprint() string {
	return fmt.Sprintf("%s/%s kernel %s, %s, %d logical cores, GOMAXPROCS %d, %s",
		h.OS, h.Arch, h.Kernel, h.CPUModel, h.LogicalCores, h.GOMAXPROCS, h.GoVersion)
}

// HostFingerprint describes the machine this process runs on, and its
// load average now (the start of a run).
func HostFingerprint() Host {
	h := Host{
		OS:           runtime.GOOS,
		Arch:         runtime.GOARCH,
		LogicalCores: runtime.NumCPU(),
		GOMAXPROCS:   runtime.GOMAXPROCS(0),
		GoVersion:    runtime.Version(),
	}
	h.Hostname, _ = os.Hostname()
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		h.Kernel = strings.TrimSpace(string(b))
	} else {
		h.Kernel = unameRelease()
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		h.CPUModel = cpuModel(b)
	}
	h.CPUModel = cmp.Or(h.CPUModel, "unknown "+runtime.GOARCH)
	if la, ok := readLoadAverage(); ok {
		h.Load = &LoadAverage{Start: la}
	}
	return h
}

// cpuModel extracts the CPU model from /proc/cpuinfo content (x86 "model
// name", arm64 "CPU part"/"Hardware"/"Model").
func cpuModel(cpuinfo []byte) string {
	found := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(cpuinfo))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if _, seen := found[k]; !seen && v != "" {
			found[k] = v
		}
	}
	return cmp.Or(found["model name"], found["Hardware"], found["Model"], found["cpu model"], found["CPU part"])
}
