package permessage

import (
	"strings"
	"testing"
)

// TestConfigHZ reads the tick rate from a kernel configuration, and none
// from one without it.
func TestConfigHZ(t *testing.T) {
	if hz := configHZ(strings.NewReader("# CONFIG_HZ_100 is not set\nCONFIG_HZ_250=y\nCONFIG_HZ=250\nCONFIG_HZ_PERIODIC=y\n")); hz != 250 {
		t.Errorf("CONFIG_HZ=250 read as %d", hz)
	}
	if hz := configHZ(strings.NewReader("CONFIG_HZ_250=y\n")); hz != 0 {
		t.Errorf("no CONFIG_HZ read as %d", hz)
	}
	if tick := processTick(); tick < 1_000_000 || tick > 10_000_000 {
		t.Errorf("the scheduler tick %d ns is not that of 100 to 1000 Hz", tick)
	}
}
