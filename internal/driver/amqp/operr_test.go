package amqp

import (
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/mqgate/mqgate/internal/driver"
)

// TestOpErrPrefersBrokersReason: an acknowledgement or publish that fails
// on a socket the broker reset is explained by the broker's reason when it
// arrives shortly after (the close frame is read after the failed write),
// and by the operation's own error when none comes.
func TestOpErrPrefersBrokersReason(t *testing.T) {
	newLink := func() *link {
		return &link{url: "amqp://guest:xxxxx@127.0.0.1:5672/", role: "pinger consuming",
			connClosed: make(chan *amqp091.Error, 1), chClosed: make(chan *amqp091.Error, 1)}
	}
	reset := error(syscall.ECONNRESET)

	l := newLink()
	go func() {
		time.Sleep(50 * time.Millisecond)
		l.connClosed <- &amqp091.Error{Code: amqp091.ConnectionForced, Reason: "CONNECTION_FORCED - mqgate test", Server: true}
	}()
	err := l.opErr("acknowledging a delivery", reset)
	if err == nil || !strings.Contains(err.Error(), "was closed by the broker") || !strings.Contains(err.Error(), "CONNECTION_FORCED - mqgate test") ||
		!strings.Contains(err.Error(), "amqp://guest:xxxxx@") {
		t.Fatalf("with the reason arriving after the failed write: %v", err)
	}
	if again := l.failed(); again != err {
		t.Errorf("the reason is not kept for the link: %v", again)
	}

	l = newLink()
	start := time.Now()
	err = l.opErr("acknowledging a delivery", reset)
	if err == nil || !errors.Is(err, syscall.ECONNRESET) || !strings.HasPrefix(err.Error(), "amqp: acknowledging a delivery on amqp://guest:xxxxx@127.0.0.1:5672/: ") {
		t.Fatalf("with no reason: %v", err)
	}
	if waited := time.Since(start); waited < reasonWait {
		t.Errorf("gave up after %v, before reasonWait", waited)
	}

	// A link closed by this end (the notification channel closed without
	// an error) is said to be closed, at once.
	l = newLink()
	close(l.connClosed)
	if err := l.opErr("publishing", amqp091.ErrClosed); !errors.Is(err, driver.ErrClosed) {
		t.Errorf("closed here: %v", err)
	}
}

// TestBrokenErrSaysWhoClosed: a close the broker sent is the broker's; a
// socket the client library saw fail, with the broker's reason lost in the
// race, is said to be cut by the broker or the network, not closed by the
// library.
func TestBrokenErrSaysWhoClosed(t *testing.T) {
	l := &link{url: "amqp://guest:xxxxx@127.0.0.1:5672/", role: "pinger consuming"}
	for _, c := range []struct {
		e    *amqp091.Error
		want string
	}{
		{&amqp091.Error{Code: amqp091.ConnectionForced, Reason: "CONNECTION_FORCED - mqgate test", Server: true}, "was closed by the broker: Exception (320) Reason: \"CONNECTION_FORCED - mqgate test\""},
		{&amqp091.Error{Code: amqp091.FrameError, Reason: "write tcp 127.0.0.1:58598->127.0.0.1:5672: write: connection reset by peer"}, "was cut by the broker or the network: Exception (501)"},
		{&amqp091.Error{Code: amqp091.FrameError, Reason: "EOF"}, "was cut by the broker or the network"},
		{&amqp091.Error{Code: amqp091.ChannelError, Reason: "frame too large"}, "was closed by the client library"},
	} {
		err := l.brokenErr("connection", c.e, true)
		if !strings.Contains(err.Error(), "the pinger consuming connection to amqp://guest:xxxxx@127.0.0.1:5672/ "+c.want) {
			t.Errorf("%+v: %v, want %q", c.e, err, c.want)
		}
	}
}
