package roles

// PromAddr is the address the Prometheus endpoint listens at, "" without
// one.
func (m *Metrics) PromAddr() string { return m.promAddr }

// SetCgroupFiles points the cgroup reading at fs (the v2 mount) and proc
// (the /proc/self/cgroup file) until the test ends.
func SetCgroupFiles(t interface{ Cleanup(func()) }, fs, proc string) {
	oldFS, oldProc := cgroupFS, procCgroup
	cgroupFS, procCgroup = fs, proc
	t.Cleanup(func() { cgroupFS, procCgroup = oldFS, oldProc })
}

// WithCgroup is withCgroup, for tests.
var WithCgroup = withCgroup
