package roles

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
)

// Backend is a role's connection to its messaging system (the driver's
// Client) with the system's topic rules. Each role opens its own.
type Backend struct {
	driver.Client
	rules driver.ClientDialer
}

// join builds a topic from parts with the system's separator.
func (b Backend) join(parts ...string) string { return strings.Join(parts, b.rules.Separator()) }

// Drivers lists the systems the roles run over, sorted: the transports
// that dial role clients, or run the roles in a helper of their own.
func Drivers() []string {
	var out []string
	for _, n := range driver.Names() {
		t, _ := driver.Lookup(n)
		if _, ok := t.(driver.RoleSystem); ok {
			out = append(out, n)
		}
	}
	return out
}

// Open connects a role to the system named.
func Open(ctx context.Context, name string, endpoints []string, reliable bool, timeout time.Duration) (Backend, error) {
	t, _ := driver.Lookup(name)
	d, ok := t.(driver.ClientDialer)
	if !ok {
		return Backend{}, fmt.Errorf("--driver %q: expected one of %s", name, strings.Join(Drivers(), ", "))
	}
	c, err := d.DialClient(ctx, endpoints, reliable, timeout)
	return Backend{c, d}, err
}
