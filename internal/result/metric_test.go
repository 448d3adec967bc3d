package result

import "testing"

func TestLookupAndDirections(t *testing.T) {
	for _, m := range Metrics {
		got, ok := Lookup(m.Name)
		if !ok || got != m {
			t.Errorf("Lookup(%q) = %v, %v", m.Name, got, ok)
		}
		want := LowerIsBetter
		if m.Unit != UnitMicroseconds && m != BurstLostMetric {
			want = HigherIsBetter
		}
		if m.Better != want {
			t.Errorf("%s: %s, want %s", m.Name, m.Better, want)
		}
	}
	if _, ok := Lookup("median"); ok {
		t.Error("Lookup is case-sensitive: column names are exact")
	}
}

func TestViolatesToleratesInexactLimit(t *testing.T) {
	// 0.565 × 1.1 is 0.62149999… in binary; a value of exactly 0.6215 is at
	// the limit and passes, a value 0.001 above it fails.
	limit := Median.Limit(0.565, 0.1)
	if Median.Violates(0.6215, limit) {
		t.Error("value at the decimal limit violates")
	}
	if !Median.Violates(0.6225, limit) {
		t.Error("value 0.001 over the limit passes")
	}
	if MessageRate.Violates(MessageRate.Limit(0.565, 0.1), 0.5085) {
		t.Error("higher-is-better value at the limit violates")
	}
}

func TestViolatesLargeValues(t *testing.T) {
	// 0.004 µs over a 5 s requirement is over it: no relative slack.
	if !Max.Violates(5000000.004, 5000000) {
		t.Error("5000000.004 does not violate 5000000")
	}
	if MessageRate.Violates(1e7, 1e7) || !MessageRate.Violates(1e7-0.001, 1e7) {
		t.Error("higher-is-better comparison at 1e7 is off")
	}
}
