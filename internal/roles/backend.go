package roles

import (
	"cmp"
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

// roleRuns run each role, by name, over its connection, counting into its
// started metrics.
var roleRuns = map[string]func(context.Context, Settings, Backend, *Metrics) Outcome{
	RolePub: RunPub, RoleSub: RunSub, RoleReq: RunReq, RoleQry: RunQry}

// Run runs the role s.Role with its settings.
func Run(ctx context.Context, s Settings) Outcome {
	if u, ok := ReadCgroup(); ok {
		s.cgroupStart = &u
	}
	if err := WaitReady(ctx, s.WaitFor, s.WaitTimeout); err != nil {
		if ctx.Err() != nil {
			return Outcome{Interrupted: true, Summary: s.Role + " " + s.RunID + ": interrupted while waiting for --wait-for; nothing written"}
		}
		return s.failed(fmt.Errorf("--wait-for %w (--wait-timeout)", err))
	}
	t, _ := driver.Lookup(s.Driver)
	if rr, ok := t.(driver.RoleRunner); ok {
		release, err := claimReport(&s)
		if err != nil {
			return s.failed(err)
		}
		defer release()
		return runHelper(ctx, s, rr)
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
		return s.failed(err)
	}
	defer b.Close()
	// The report is claimed once the system answered: a role that cannot
	// reach it writes nothing (several failing at once raced to remove
	// the folders one of them made, and left them).
	release, err := claimReport(&s)
	if err != nil {
		return s.failed(err)
	}
	defer release()
	if s.Log != nil {
		si := b.SystemInfo()
		s.Log.Info("connected", "role", s.Role, "run_id", s.RunID, "system", si.Product, "version", si.Version, "url", si.URL, "instance", s.Instance)
	}
	run, ok := roleRuns[s.Role]
	if !ok {
		return s.failed(fmt.Errorf("unknown role %q", s.Role))
	}
	met, err := s.startMetrics()
	if err != nil {
		return s.failed(err)
	}
	out := run(ctx, s, b, met)
	if out.Summary == "" && out.Err != nil {
		out.Summary = s.failed(out.Err).Summary
	}
	return out
}

// failed is the Outcome of a role that failed with err: the error, and a
// summary naming the role and run.
func (s Settings) failed(err error) Outcome {
	return Outcome{Err: err, Summary: s.Role + " " + s.RunID + ": " + err.Error()}
}

// startMetrics checks that a measuring role can write its results into the
// experiment directory (Preflight) and starts the role's metrics.
func (s Settings) startMetrics() (*Metrics, error) {
	if latency, types := s.measures(); latency != "" {
		if err := Preflight(s, latency, types); err != nil {
			return nil, err
		}
	}
	return NewMetrics(s)
}

// measures is the latency definition and the sub-experiments of a role
// that measures (sub, req); "" and none for the others.
func (s Settings) measures() (latency string, types []string) {
	switch s.Role {
	case RoleSub:
		return meta.LatencyOneWay, []string{s.Type()}
	case RoleReq:
		return meta.LatencyRTT, []string{s.Type(), s.LastType()}
	}
	return "", nil
}

// ended is the Outcome of a role that ran: its summary says what it did,
// how it ended and where its results are; err is the first of errs.
func ended(did string, completed, interrupted bool, reason, where string, paths []string, errs ...error) Outcome {
	status := ""
	switch {
	case interrupted:
		status = ", interrupted"
	case !completed && reason != "":
		status = ", incomplete: " + reason
	case !completed:
		status = ", incomplete"
	}
	return Outcome{Summary: did + status + "; " + where, Paths: paths, Interrupted: interrupted,
		Incomplete: !completed && !interrupted, Err: cmp.Or(errs...)}
}

// system is what meta.json records of the system: the client's
// SystemInfo, as run's ends record it, with the role's facts added (extra
// wins over a fact of the same name).
func (b Backend) system(extra map[string]string) *meta.SystemInfo {
	si := b.SystemInfo()
	e := map[string]string{}
	maps.Copy(e, si.Extra)
	maps.Copy(e, extra)
	si.Extra = e
	return driver.Recorded(si, false)
}
