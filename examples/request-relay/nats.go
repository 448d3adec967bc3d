package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
)

// natsRequester publishes each request on the service's subject with the
// reply subject <inbox>.<seq>, and hears the replies on <inbox>.*: one
// subscription for all, as nats.go's own Request does.
type natsRequester struct {
	nc      *nats.Conn
	subject string
	inbox   string
}

func dialNATS(url, subject string, wait time.Duration, back func(uint64)) (requester, error) {
	nc, err := nats.Connect(url, nats.Name("request-relay"))
	if err != nil {
		return nil, err
	}
	if err := awaitResponder(nc, subject, wait); err != nil {
		nc.Close()
		return nil, err
	}
	r := &natsRequester{nc: nc, subject: subject, inbox: nats.NewInbox()}
	_, err = nc.Subscribe(r.inbox+".*", func(m *nats.Msg) {
		seq, err := strconv.ParseUint(m.Subject[strings.LastIndexByte(m.Subject, '.')+1:], 10, 64)
		if err == nil {
			back(seq)
		}
	})
	if err == nil {
		err = nc.Flush()
	}
	if err != nil {
		nc.Close()
		return nil, err
	}
	return r, nil
}

// awaitResponder sends a request every 100 ms until the service answers
// one, for at most wait.
func awaitResponder(nc *nats.Conn, subject string, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		_, err := nc.Request(subject, []byte("request-relay: are you there?"), time.Second)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no service answers on %s after %v: %w", subject, wait, err)
		}
		if !errors.Is(err, nats.ErrNoResponders) && !errors.Is(err, nats.ErrTimeout) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (r *natsRequester) Hello() string {
	return fmt.Sprintf("request-relay nats %s nats.go %s server %s %s", r.subject, nats.Version, r.nc.ConnectedServerName(), r.nc.ConnectedServerVersion())
}

func (r *natsRequester) Request(seq uint64, body []byte) error {
	return r.nc.PublishRequest(r.subject, r.inbox+"."+strconv.FormatUint(seq, 10), body)
}

func (r *natsRequester) Close() error {
	r.nc.Close()
	return nil
}
