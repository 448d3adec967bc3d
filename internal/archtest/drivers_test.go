package archtest

import (
	"slices"
	"strings"
	"testing"
)

// TestDriversStayBelow: drivers move bytes; the engines, roles and tools
// that measure over them sit above and are never imported by them, even
// indirectly.
func TestDriversStayBelow(t *testing.T) {
	g := graph(t)
	above := []string{"engine", "roles", "runapp", "session", "load", "throughput", "burst", "cliapp"}
	for pkg := range g {
		if !under(pkg, internal("driver")) {
			continue
		}
		for _, d := range deps(g, pkg) {
			if slices.ContainsFunc(above, func(a string) bool { return under(d, internal(a)) }) {
				t.Errorf("%s depends on %s: a driver depends on nothing above the driver layer", pkg, d)
			}
		}
	}
}

// TestOneDriverPerClientLibrary: each messaging system's client library is
// imported by its driver alone (the bench programs aside), and a system's
// driver only by the registration (internal/runapp/transports.go).
func TestOneDriverPerClientLibrary(t *testing.T) {
	g := graph(t)
	libraries := map[string]string{
		"github.com/nats-io/nats.go":         internal("driver/nats"),
		"github.com/eclipse/paho.golang":     internal("driver/mqtt"),
		"github.com/mochi-mqtt/server":       internal("driver/mqtt"),
		"github.com/rabbitmq/amqp091-go":     internal("driver/amqp"),
		internal("driver/zenoh/zenohhelper"): internal("driver/zenoh"),
	}
	// zenohtest finds the helper for tests.
	known := map[[2]string]bool{
		{internal("driver/zenoh/zenohhelper/zenohtest"), internal("driver/zenoh/zenohhelper")}: true,
	}
	systems := []string{"nats", "mqtt", "amqp", "zenoh"}
	for pkg, imports := range g {
		if under(pkg, module+"/bench") {
			continue
		}
		for _, im := range imports {
			for lib, owner := range libraries {
				if under(im, lib) && pkg != owner && !under(pkg, lib) && !known[[2]string{pkg, lib}] {
					t.Errorf("%s imports %s: only %s may", pkg, im, strings.TrimPrefix(owner, module+"/"))
				}
			}
			for _, s := range systems {
				if im == internal("driver/"+s) && !under(pkg, internal("driver")) && pkg != internal("runapp") {
					t.Errorf("%s imports %s: systems are reached through the driver registry", pkg, im)
				}
			}
		}
	}
}
