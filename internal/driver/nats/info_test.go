package nats

import (
	"testing"

	"github.com/mqgate/mqgate/internal/driver"
)

// TestEchoesReportNoSystemInfo holds driver.InfoReporter to the ends its
// doc names (pingers, publishers, subscribers): an echo end, which shares
// its connection type with them, does not report one.
func TestEchoesReportNoSystemInfo(t *testing.T) {
	for name, e := range map[string]any{"core": (*coreEcho)(nil), "jetstream": (*jsEcho)(nil)} {
		if _, ok := e.(driver.InfoReporter); ok {
			t.Errorf("the %s echo is a driver.InfoReporter", name)
		}
	}
}
