package intraprocess

import (
	"testing"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
)

// TestConformance runs the conformance suite, with the checks of the
// capabilities the transport declares, in both modes.
func TestConformance(t *testing.T) {
	for _, reliable := range []bool{false, true} {
		t.Run(map[bool]string{false: "BestEffort", true: "Reliable"}[reliable], func(t *testing.T) {
			opts := driver.Options{Reliable: reliable}
			drivertest.Run(t, drivertest.Config{Transport: Transport{}, Listen: opts, Dial: opts, MaxAllocs: -1, OnePinger: true})
		})
	}
}
