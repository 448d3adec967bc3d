package result

import (
	"testing"
	"time"
)

func TestMicros(t *testing.T) {
	for us, want := range map[float64]string{
		0: "0 µs", 0.85: "850 ns", 9.87: "9.87 µs", 12.54: "12.5 µs", 999.4: "999 µs",
		22396.49: "22.4 ms", 1148: "1.15 ms", 1.25e6: "1.25 s", 99.96: "100 µs",
	} {
		if got := Micros(us); got != want {
			t.Errorf("Micros(%v) = %q, want %q", us, got, want)
		}
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
