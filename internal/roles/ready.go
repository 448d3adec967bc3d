package roles

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
)

// readyPoll is how often WaitReady asks again.
const readyPoll = 100 * time.Millisecond

// CheckReadyAddr checks one --wait-for address: tcp://HOST:PORT (a
// router or broker accepting connections), nats://HOST:PORT[?server_name=NAME]
// (a NATS server, named NAME when given), zenoh://HOST:PORT[?zid=ID] (a
// Zenoh router, whose id is ID when given) or http://HOST:PORT/PATH (a
// role's /health, which answers 200 once it subscribed or serves). The
// name and the id tell the servers of one topology from others that
// answer at the same port.
func CheckReadyAddr(addr string) error {
	u, err := url.Parse(addr)
	if err == nil && u.Host != "" {
		if _, _, err = net.SplitHostPort(u.Host); err == nil {
			switch {
			case u.Scheme == "http":
				return nil
			case u.Scheme == "tcp" && u.RawQuery == "" && strings.Trim(u.Path, "/") == "":
				return nil
			case u.Scheme == "nats" || u.Scheme == "zenoh":
				return checkIdentity(addr, u)
			}
		}
	}
	return fmt.Errorf("%q: expected %s", addr, readyForms)
}

// readyForms are the forms of a --wait-for address, as errors name them.
const readyForms = "tcp://HOST:PORT, nats://HOST:PORT?server_name=NAME, zenoh://HOST:PORT?zid=ID or http://HOST:PORT/PATH (e.g. a sub's http://HOST:9102/health)"

// identityKeys are the query keys a nats:// or zenoh:// address takes.
var identityKeys = map[string]string{"nats": "server_name", "zenoh": "zid"}

// checkIdentity checks the path and query of a nats:// or zenoh:// address.
func checkIdentity(addr string, u *url.URL) error {
	key := identityKeys[u.Scheme]
	if strings.Trim(u.Path, "/") != "" {
		return fmt.Errorf("%q: expected %s://HOST:PORT?%s=…, without a path", addr, u.Scheme, key)
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return fmt.Errorf("%q: %v", addr, err)
	}
	for k, v := range q {
		if k != key || len(v) != 1 || v[0] == "" {
			return fmt.Errorf("%q: expected %s://HOST:PORT or %s://HOST:PORT?%s=VALUE, once", addr, u.Scheme, u.Scheme, key)
		}
	}
	if id := q.Get("zid"); u.Scheme == "zenoh" && id != "" && !zidRE.MatchString(id) {
		return fmt.Errorf("%q: zid %q: expected a Zenoh id, 1 to 32 lower-case hexadecimal digits without leading zeros", addr, id)
	}
	return nil
}

var zidRE = regexp.MustCompile(`^[1-9a-f][0-9a-f]{0,31}$`)

// WaitReady (--wait-for, run wait) waits until every address is ready (see CheckReadyAddr), at
// most timeout in all: the start barrier that lets subscribers and
// queryables get ready before publishers and requesters send, whatever
// order the processes start in; a malformed address is refused first.
func WaitReady(ctx context.Context, addrs []string, timeout time.Duration) error {
	for _, addr := range addrs {
		if err := CheckReadyAddr(addr); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client := &http.Client{Timeout: time.Second}
	for _, addr := range addrs {
		var last error
		for {
			err := probeReady(ctx, client, addr)
			if err == nil {
				break
			}
			if last == nil || ctx.Err() == nil && !(timedOut(err) && !timedOut(last)) {
				// Neither the probe the bound cut short nor a probe that
				// timed out after one that said what is there: on a loaded
				// machine a dial or a read outlasts its second, and "another
				// server holds the port" is what the user needs.
				last = err
			}
			select {
			case <-ctx.Done():
				if errors.Is(ctx.Err(), context.DeadlineExceeded) {
					return fmt.Errorf("%s: not ready within %v: %w", addr, timeout, last)
				}
				return ctx.Err()
			case <-time.After(readyPoll):
			}
		}
	}
	return nil
}

// timedOut reports whether err is a network timeout.
func timedOut(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// probeReady asks addr once.
func probeReady(ctx context.Context, client *http.Client, addr string) error {
	u, _ := url.Parse(addr)
	if u.Scheme != "http" {
		var d net.Dialer
		dctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		c, err := d.DialContext(dctx, "tcp", u.Host)
		if err != nil {
			return err
		}
		defer c.Close()
		dl, _ := dctx.Deadline()
		c.SetDeadline(dl)
		switch u.Scheme {
		case "nats":
			return probeNATS(c, u.Query().Get("server_name"))
		case "zenoh":
			return probeZenoh(c, u.Query().Get("zid"))
		}
		return nil
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

// probeNATS reads the INFO line a NATS server sends first and checks the
// server_name it announces (nats-server --server_name, -n).
func probeNATS(c net.Conn, name string) error {
	line, err := bufio.NewReaderSize(c, 4096).ReadString('\n')
	if err != nil {
		return fmt.Errorf("no NATS INFO line: %w", err)
	}
	var info struct {
		ServerName string `json:"server_name"`
	}
	js, ok := strings.CutPrefix(line, "INFO ")
	if !ok || json.Unmarshal([]byte(js), &info) != nil {
		return fmt.Errorf("not a NATS server: it sent %.40q", line)
	}
	if name != "" && info.ServerName != name {
		return fmt.Errorf("the NATS server there is named %q, not %q: another server holds the port", info.ServerName, name)
	}
	return nil
}

// zenohVersion is the Zenoh protocol version of the Init message (zenoh 1.x).
const zenohVersion = 0x09

// probeZenoh opens a Zenoh transport as a client would (an InitSyn) and
// checks the id of the router in its InitAck (the router's configured
// "id"), then hangs up.
func probeZenoh(c net.Conn, zid string) error {
	// Stream links frame each batch with its length, 2 bytes little-endian.
	// InitSyn: header (INIT), version, whatami client and a 1-byte id, the id.
	if _, err := c.Write([]byte{4, 0, 0x01, zenohVersion, 0b10, 0x01}); err != nil {
		return fmt.Errorf("no Zenoh InitAck: %w", err)
	}
	var n [2]byte
	if _, err := io.ReadFull(c, n[:]); err != nil {
		return fmt.Errorf("no Zenoh InitAck: %w", err)
	}
	msg := make([]byte, binary.LittleEndian.Uint16(n[:]))
	if _, err := io.ReadFull(c, msg); err != nil {
		return fmt.Errorf("no Zenoh InitAck: %w", err)
	}
	// InitAck: header (INIT with the A flag), version, whatami and id length, id.
	if len(msg) < 3 || msg[0]&0x1f != 0x01 || msg[0]&0x20 == 0 {
		return fmt.Errorf("not a Zenoh router: it answered % x", msg[:min(len(msg), 8)])
	}
	size := 1 + int(msg[2]>>4)
	if len(msg) < 3+size {
		return fmt.Errorf("not a Zenoh router: a short InitAck")
	}
	if msg[2]&0b11 != 0b00 {
		return fmt.Errorf("the Zenoh node there is not a router (whatami %d)", msg[2]&0b11)
	}
	got := zidString(msg[3 : 3+size])
	if zid != "" && got != zid {
		return fmt.Errorf("the Zenoh router there has id %s, not %s: another router holds the port", got, zid)
	}
	return nil
}

// zidString is a Zenoh id as Zenoh writes it: the little-endian bytes of
// a 128-bit number, in hexadecimal without leading zeros.
func zidString(le []byte) string {
	be := slices.Clone(le)
	slices.Reverse(be)
	return strings.TrimLeft(hex.EncodeToString(be), "0")
}
