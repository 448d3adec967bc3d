package roles_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/roles"
)

// TestCheckReadyAddr refuses what --wait-for cannot wait for, naming the
// forms it takes.
func TestCheckReadyAddr(t *testing.T) {
	for _, ok := range []string{"tcp://127.0.0.1:7447", "http://sub:9102/health", "http://[::1]:80/"} {
		if err := roles.CheckReadyAddr(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"127.0.0.1:7447", "tcp://host", "nats://127.0.0.1:4222", "https://h:1/health", ""} {
		err := roles.CheckReadyAddr(bad)
		if err == nil || !strings.Contains(err.Error(), "expected tcp://HOST:PORT or http://HOST:PORT/PATH") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// TestWaitReadyTimeout names the address that was not ready and the
// bound.
func TestWaitReadyTimeout(t *testing.T) {
	addr := freeAddr(t)
	start := time.Now()
	err := roles.WaitReady(context.Background(), []string{"tcp://" + addr}, 300*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "tcp://"+addr+": not ready within 300ms") {
		t.Fatalf("error %v", err)
	}
	if d := time.Since(start); d < 300*time.Millisecond || d > 5*time.Second {
		t.Errorf("gave up after %v", d)
	}
}

// TestWaitReadyLateStart waits for a listener that opens late and for a
// role whose /health turns ready late: the barrier holds until both are.
func TestWaitReadyLateStart(t *testing.T) {
	addr := freeAddr(t)
	m, err := roles.NewMetrics(roles.Settings{Role: roles.RoleSub, PromAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	health := fmt.Sprintf("http://%s/health", m.PromAddr())
	if code, _ := get(t, health); code != http.StatusServiceUnavailable {
		t.Fatalf("/health before Ready: %d, want 503", code)
	}
	opened := make(chan net.Listener, 1)
	var ready atomic.Bool
	go func() {
		time.Sleep(300 * time.Millisecond)
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Error(err)
		}
		opened <- ln
		time.Sleep(300 * time.Millisecond)
		ready.Store(true)
		m.Ready()
	}()
	if err := roles.WaitReady(context.Background(), []string{"tcp://" + addr, health}, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if !ready.Load() {
		t.Fatal("WaitReady returned before the role was ready")
	}
	(<-opened).Close()
	if code, body := get(t, health); code != http.StatusOK || body != "ok\n" {
		t.Errorf("/health after Ready: %d %q", code, body)
	}
}

// freeAddr is a loopback address nothing listens at.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
