package roles_test

import (
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/roles"
)

// TestSnapshotColumns writes one window of known counts: the loss,
// duplicates, out-of-order arrivals, latency percentiles, time to the last
// reply and replies per query (formats §9) come out as counted.
func TestSnapshotColumns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.csv")
	m, err := roles.NewMetrics(roles.Settings{Role: roles.RoleReq, CSV: path, SnapshotInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	lat := make([]int64, 100)
	for i := range lat {
		lat[i] = int64(i+1) * 1000 // 1 to 100 µs
	}
	m.Count(roles.Snapshot{Received: 100, Lost: 3, Duplicates: 1, OutOfOrder: 2}, lat, nil)
	m.QueryDone(3, 5_000_000)
	m.QueryDone(0, 0)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	for col, want := range map[string]float64{"Received": 100, "Lost": 3, "Duplicates": 1, "Out of order": 2, "Replies per query": 1.5,
		"p50 [µs]": 50, "p90 [µs]": 90, "p95 [µs]": 95, "p99 [µs]": 99, "Max [µs]": 100, "TTL p50 [µs]": 5000, "TTL p99 [µs]": 5000} {
		got := csvColumn(t, path, col)
		if len(got) != 1 || math.Abs(got[0]-want) > want/1000 {
			t.Errorf("%s: %v, want %g", col, got, want)
		}
	}
}
