package roles

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/meta"
)

// Backend is a role's connection to its messaging system (the driver's
// Client, made as its engine ends are, from the same Options) with the
// system's topic rules. Each role opens its own.
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

// Open connects a role to the system s.Driver at s.Endpoints with the
// Options run's ends would get from the same flags (Options).
func Open(ctx context.Context, s Settings) (Backend, error) {
	t, _ := driver.Lookup(s.Driver)
	d, ok := t.(driver.ClientDialer)
	if !ok {
		return Backend{}, fmt.Errorf("--driver %q: expected one of %s", s.Driver, strings.Join(Drivers(), ", "))
	}
	c, err := d.DialClient(ctx, s.Endpoints, s.Options(), s.Timeout)
	return Backend{c, d}, err
}

// roleRuns run each role, by name, over its connection.
var roleRuns = map[string]func(context.Context, Settings, Backend) Outcome{RolePub: RunPub, RoleSub: RunSub, RoleReq: RunReq, RoleQry: RunQry}

// Run runs the role s.Role with its settings.
func Run(ctx context.Context, s Settings) Outcome {
	if u, ok := ReadCgroup(); ok {
		s.cgroupStart = &u
	}
	if err := WaitReady(ctx, s.WaitFor, s.WaitTimeout); err != nil {
		if ctx.Err() != nil {
			return Outcome{Interrupted: true, Summary: s.Role + " " + s.RunID + ": interrupted while waiting for --wait-for; nothing written"}
		}
		err = fmt.Errorf("--wait-for %w (--wait-timeout)", err)
		return Outcome{Err: err, Summary: s.Role + " " + s.RunID + ": " + err.Error()}
	}
	if t, err := driver.Lookup(s.Driver); err == nil {
		if rr, ok := t.(driver.RoleRunner); ok {
			return runHelper(ctx, s, rr)
		}
	}
	// Connecting gets at least 10 s, however short the --timeout of the
	// measurement: a loaded host or broker is slow to accept.
	octx, cancel := context.WithTimeout(ctx, max(s.Timeout, 10*time.Second))
	b, err := Open(octx, s)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return Outcome{Interrupted: true, Summary: s.Role + " " + s.RunID + ": interrupted while connecting; nothing written"}
		}
		return Outcome{Err: err, Summary: s.Role + " " + s.RunID + ": " + err.Error()}
	}
	defer b.Close()
	if s.Log != nil {
		si := b.SystemInfo()
		s.Log.Info("connected", "role", s.Role, "run_id", s.RunID, "system", si.Product, "version", si.Version, "url", si.URL, "instance", s.Instance)
	}
	out := Outcome{Err: fmt.Errorf("unknown role %q", s.Role)}
	if run, ok := roleRuns[s.Role]; ok {
		out = run(ctx, s, b)
	}
	if out.Summary == "" && out.Err != nil {
		out.Summary = s.Role + " " + s.RunID + ": " + out.Err.Error()
	}
	return out
}

// system is what meta.json records of the system: the client's
// SystemInfo, as run's ends record it, with the role's facts added (extra
// wins over a fact of the same name).
func (b Backend) system(extra map[string]string) *meta.SystemInfo {
	si := b.SystemInfo()
	e := maps.Clone(si.Extra)
	if e == nil {
		e = map[string]string{}
	}
	maps.Copy(e, extra)
	si.Extra = e
	return driver.Recorded(si, false)
}
