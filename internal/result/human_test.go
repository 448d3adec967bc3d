package result

import (
	"math"
	"testing"
	"time"
)

func TestMicros(t *testing.T) {
	for us, want := range map[float64]string{
		0: "0 µs", 0.85: "850 ns", 9.87: "9.87 µs", 12.54: "12.5 µs", 999.4: "999 µs",
		22396.49: "22.4 ms", 1148: "1.15 ms", 1.25e6: "1.25 s", 99.96: "100 µs",
		// Rounding that reaches the next unit takes it.
		0.9996: "1.00 µs", 999.96: "1.00 ms", 999_960: "1.00 s", 1e9: "1000 s",
		-22396.49: "-22.4 ms", 0.0004: "0.40 ns", math.Inf(1): "+Inf",
	} {
		if got := Micros(us); got != want {
			t.Errorf("Micros(%v) = %q, want %q", us, got, want)
		}
	}
	if got := Nanos(22_396_490); got != "22.4 ms" {
		t.Errorf("Nanos(22396490) = %q, want 22.4 ms", got)
	}
}

func TestThousands(t *testing.T) {
	for v, want := range map[float64]string{
		0: "0", 999.4: "999", 999.5: "1,000", 12450.2: "12,450", 1234567: "1,234,567", -1234.4: "-1,234", -0.2: "0",
		math.NaN(): "NaN",
	} {
		if got := Thousands(v); got != want {
			t.Errorf("Thousands(%v) = %q, want %q", v, got, want)
		}
	}
	if got := Count(uint64(18_446_744_073_709_551_615)); got != "18,446,744,073,709,551,615" {
		t.Errorf("Count(max uint64) = %q", got)
	}
	if got := Count(-100_000); got != "-100,000" {
		t.Errorf("Count(-100000) = %q", got)
	}
}

func TestRemaining(t *testing.T) {
	for d, want := range map[time.Duration]string{
		44600 * time.Millisecond: "45 s", 250 * time.Second: "4 min 10 s", 83 * time.Minute: "1 h 23 min",
	} {
		if got := Remaining(d); got != want {
			t.Errorf("Remaining(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestElapsed(t *testing.T) {
	for d, want := range map[time.Duration]string{
		2678 * time.Millisecond: "2.68 s", 850 * time.Millisecond: "850 ms", 59940 * time.Millisecond: "59.9 s",
		250 * time.Second: "4 min 10 s", 0: "0 µs",
	} {
		if got := Elapsed(d); got != want {
			t.Errorf("Elapsed(%v) = %q, want %q", d, got, want)
		}
	}
}
