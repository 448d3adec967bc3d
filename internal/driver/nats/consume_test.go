package nats

import (
	"testing"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
)

// TestConsume: a core subscriber hands its messages to a consumer on
// nats.go's delivery goroutine, the ones queued before Consume first.
func TestConsume(t *testing.T) {
	url := embeddedURL(t, driver.Options{})
	opts := driver.Options{Topic: topic(t)}
	sub, err := Transport{}.Subscribe(dialCtx(t), url, opts)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := Transport{}.Publish(dialCtx(t), url, opts)
	if err != nil {
		t.Fatal(err)
	}
	drivertest.RunConsume(t, sub, pub)
}

// TestConsumeServerLost: Consume returns a lost-connection error naming
// the server when it goes away.
func TestConsumeServerLost(t *testing.T) {
	url, stop, err := startEmbedded(dialCtx(t), driver.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	sub, err := Transport{}.Subscribe(dialCtx(t), url, driver.Options{Topic: topic(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	drivertest.ConsumeLost(t, sub, func() { stop() }, url)
}
