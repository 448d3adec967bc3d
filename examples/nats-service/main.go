// Command nats-service is the worked example of a team's NATS service: a
// request–reply responder written with nats.go alone, as a service is,
// that knows nothing of mqgate. docs/ci.md gates two builds of it with
// run ab through request-relay.
//
//	nats-service [-url nats://127.0.0.1:4222] [-subject svc.v1] [-extra-work 0]
//
// It answers every request on -subject (in the queue group nats-service,
// as replicas of a service share the subject) with the SHA-256 of the
// request's body. -extra-work makes the slower build: it spends that long
// more on every request, computing.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/mqgate/mqgate/examples/internal/work"
)

func main() {
	url := flag.String("url", nats.DefaultURL, "NATS server URL")
	subject := flag.String("subject", "svc.v1", "subject the service answers requests on")
	extra := flag.Duration("extra-work", 0, "computation added to every request (the slower build), e.g. 300us")
	flag.Parse()
	if err := run(*url, *subject, *extra); err != nil {
		fmt.Fprintln(os.Stderr, "nats-service:", err)
		os.Exit(1)
	}
}

func run(url, subject string, extra time.Duration) error {
	nc, err := nats.Connect(url, nats.Name("nats-service"))
	if err != nil {
		return err
	}
	defer nc.Close()
	_, err = nc.QueueSubscribe(subject, "nats-service", func(m *nats.Msg) {
		if err := m.Respond(work.Reply(m.Data, extra)); err != nil {
			fmt.Fprintln(os.Stderr, "nats-service: reply:", err)
		}
	})
	if err != nil {
		return err
	}
	if err := nc.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "nats-service: answering %s on %s (extra work %v)\n", subject, nc.ConnectedUrl(), extra)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
	return nc.Drain()
}
