package udp

import (
	"context"
	"errors"
	"testing"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
)

func TestStreamConformance(t *testing.T) {
	drivertest.RunStream(t, drivertest.StreamConfig{Transport: Transport{}})
}

func TestStreamRefusesReliable(t *testing.T) {
	ctx := context.Background()
	if _, err := (Transport{}).Subscribe(ctx, "127.0.0.1:0", driver.Options{Reliable: true}); !errors.Is(err, errOneWayReliable) {
		t.Errorf("reliable Subscribe: %v", err)
	}
	if _, err := (Transport{}).Publish(ctx, "127.0.0.1:1", driver.Options{Reliable: true}); !errors.Is(err, errOneWayReliable) {
		t.Errorf("reliable Publish: %v", err)
	}
}
