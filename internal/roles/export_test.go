package roles

// PromAddr is the address the Prometheus endpoint listens at, "" without
// one.
func (m *Metrics) PromAddr() string { return m.promAddr }
