package driver

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

type fakeTransport struct{ name string }

func (f fakeTransport) Name() string { return f.name }
func (f fakeTransport) Listen(context.Context, string, Options) (Echoer, error) {
	return nil, errors.New("unused")
}
func (f fakeTransport) Dial(context.Context, string, Options) (Pinger, error) {
	return nil, errors.New("unused")
}
func (f fakeTransport) Capabilities() Capabilities { return Capabilities{} }

// registrations makes each TestRegistry run register new names, since the
// registry lives as long as the test binary (go test -count=N).
var registrations atomic.Int64

func TestRegistry(t *testing.T) {
	name := "test-" + strconv.FormatInt(registrations.Add(1), 10)
	Register(fakeTransport{name})
	got, err := Lookup(name)
	if err != nil || got.Name() != name {
		t.Fatalf("Lookup(%s) = %v, %v", name, got, err)
	}
	_, err = Lookup("test-missing")
	if err == nil || !strings.Contains(err.Error(), name) {
		t.Fatalf("Lookup(test-missing) error %v should list the available transports", err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("registering a name twice did not panic")
			}
		}()
		Register(fakeTransport{name})
	}()
}

func TestBuiltinScenarios(t *testing.T) {
	routes := BuiltinScenarios()
	if len(routes) != 10 {
		t.Fatalf("%d built-in scenarios, want 10", len(routes))
	}
	for _, r := range routes {
		tcp := strings.Contains(r.Type, "_tcp")
		sec := strings.HasSuffix(r.Type, "_security")
		want := map[[2]bool]string{{false, false}: UDP, {false, true}: DTLS, {true, false}: TCP, {true, true}: TLS}[[2]bool{tcp, sec}]
		if !r.Interprocess {
			want = Intraprocess
		}
		if r.Transport != want {
			t.Errorf("%s: transport %s, want %s", r.Type, r.Transport, want)
		}
		if r.Reliable != strings.Contains(r.Type, "_reliable") || r.Security != sec {
			t.Errorf("%s: reliable = %v, security = %v", r.Type, r.Reliable, r.Security)
		}
		if got, ok := ScenarioOf(r.Type); !ok || got.Transport != r.Transport || got.Type != r.Type {
			t.Errorf("ScenarioOf(%s) = %v, %v", r.Type, got, ok)
		}
	}
	if _, ok := ScenarioOf("nosuch_best_effort"); ok {
		t.Error("ScenarioOf accepted an unregistered name")
	}
}

func TestRegisterScenarioChecksNames(t *testing.T) {
	for _, bad := range []Scenario{
		{Type: "Bad Name", Transport: TCP},
		{Type: "mqtt_sometimes", Transport: TCP},
		{Type: "x_reliable_security", Transport: TLS},                            // Security not set
		{Type: "intraprocess_reliable", Transport: Intraprocess, Reliable: true}, // taken
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("RegisterScenario(%q) did not panic", bad.Type)
				}
			}()
			RegisterScenario(bad)
		}()
	}
}

func TestCounters(t *testing.T) {
	a := Counters{Retransmitted: 5, Dropped: 2, Errors: 1}
	b := Counters{Retransmitted: 2, Dropped: 1}
	if got := a.Sub(b).Add(b); got != a {
		t.Errorf("Sub then Add = %v, want %v", got, a)
	}
	if got := fmt.Sprint(a.Sub(b)); got != "{3 1 1}" {
		t.Errorf("a-b = %s", got)
	}
}

// TestNow: Now reads the monotonic clock between two time.Now calls, and
// its wall reading is time.Now's within the wall clock's adjustments.
func TestNow(t *testing.T) {
	for range 1000 {
		before := time.Now()
		now := Now()
		after := time.Now()
		if now.Sub(before) < 0 || after.Sub(now) < 0 {
			t.Fatalf("Now %v not between %v and %v on the monotonic clock", now, before, after)
		}
		if d := now.Round(0).Sub(before.Round(0)); d < -time.Second || d > time.Second {
			t.Fatalf("Now's wall clock %v is %v from time.Now's", now.Round(0), d)
		}
	}
}

// TestMono: Mono reads the monotonic clock between two time.Now calls,
// MonoTime and MonoOf convert it both ways exactly, and Now is MonoTime of
// a Mono reading (its wall reading derived, not read).
func TestMono(t *testing.T) {
	for range 1000 {
		before := time.Now()
		m := Mono()
		after := time.Now()
		if m < MonoOf(before) || m > MonoOf(after) {
			t.Fatalf("Mono %d not between %d and %d", m, MonoOf(before), MonoOf(after))
		}
		if got := MonoOf(MonoTime(m)); got != m {
			t.Fatalf("MonoOf(MonoTime(%d)) = %d", m, got)
		}
		now := Now()
		if MonoTime(MonoOf(now)) != now {
			t.Fatalf("Now %v is not MonoTime of its Mono reading", now)
		}
	}
}
