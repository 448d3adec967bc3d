package roles

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"
)

// readyPoll is how often WaitReady asks again.
const readyPoll = 100 * time.Millisecond

// CheckReadyAddr checks one --wait-for address: tcp://HOST:PORT (a
// router or broker accepting connections) or http://HOST:PORT/PATH (a
// role's /health, which answers 200 once it subscribed or serves).
func CheckReadyAddr(addr string) error {
	u, err := url.Parse(addr)
	if err == nil && u.Host != "" {
		if _, _, err = net.SplitHostPort(u.Host); err == nil {
			switch u.Scheme {
			case "tcp", "http":
				return nil
			}
		}
	}
	return fmt.Errorf("%q: expected tcp://HOST:PORT or http://HOST:PORT/PATH (e.g. a sub's http://HOST:9102/health)", addr)
}

// WaitReady (--wait-for, run wait) waits until every address is ready (see CheckReadyAddr), at
// most timeout in all: the start barrier that lets subscribers and
// queryables get ready before publishers and requesters send, whatever
// order the processes start in.
func WaitReady(ctx context.Context, addrs []string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client := &http.Client{Timeout: time.Second}
	for _, addr := range addrs {
		if err := CheckReadyAddr(addr); err != nil {
			return err
		}
		for {
			err := probeReady(ctx, client, addr)
			if err == nil {
				break
			}
			select {
			case <-ctx.Done():
				if errors.Is(ctx.Err(), context.DeadlineExceeded) {
					return fmt.Errorf("%s: not ready within %v: %w", addr, timeout, err)
				}
				return ctx.Err()
			case <-time.After(readyPoll):
			}
		}
	}
	return nil
}

// probeReady asks addr once.
func probeReady(ctx context.Context, client *http.Client, addr string) error {
	u, _ := url.Parse(addr)
	if u.Scheme == "tcp" {
		var d net.Dialer
		dctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		c, err := d.DialContext(dctx, "tcp", u.Host)
		if err != nil {
			return err
		}
		return c.Close()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, addr, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("answered %s", resp.Status)
	}
	return nil
}
