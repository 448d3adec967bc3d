package experiment

import "github.com/mqgate/mqgate/internal/result"

// Keys lists the keys of t's rows in file order.
func (t *Throughput) Keys() []result.Key {
	keys := make([]result.Key, len(t.Rows))
	for i, r := range t.Rows {
		keys[i] = r.Key()
	}
	return keys
}

// At returns the row of t with key k, or nil.
func (t *Throughput) At(k result.Key) *result.ThroughputRow {
	for i := range t.Rows {
		if t.Rows[i].Key() == k {
			return &t.Rows[i]
		}
	}
	return nil
}
