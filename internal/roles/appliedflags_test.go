package roles_test

import (
	"context"
	"maps"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/testenv"
)

// appliedBase are the flags given with every value tried, per system:
// text flags, whose valid values the declarations do not state. MQTT's
// roles use MQTT 5 (the ends' default is 3.1.1); the exchange is the one
// AMQP's roles take when given none; the others are values of the tests'
// own. A system missing here is tested with its declared flags alone.
var appliedBase = map[string]map[string]string{
	"nats": {"nats-storage": "memory"},
	"mqtt": {"mqtt-version": "5", "mqtt-client-id-prefix": "mqgate-applied"},
	"amqp": {"amqp-exchange": "amq.topic", "amqp-queue": "server"},
}

// TestRoleClientAppliesTheFlags: for every registered system whose roles
// run through a client of this process (driver.ClientDialer), the role
// client applies the driver's flags as the publisher opened with the same
// Options does (issue 33, one client per system). For each number or
// duration flag with a Range a valid value other than its default is
// tried, for each true-or-false flag the other value (secrets left out;
// text flags are given appliedBase's values), one flag at a time: both
// the role client and the publisher accept it or both refuse it, and each
// value the publisher reports (in its SystemInfo, driver.RecordApplied) the role client reports too,
// the flag tried being the value given. A new system is covered by the
// flags it declares, with no edit here.
func TestRoleClientAppliesTheFlags(t *testing.T) {
	n := 0
	for _, name := range driver.Names() {
		tr, _ := driver.Lookup(name)
		d, ok := tr.(driver.ClientDialer)
		if !ok {
			continue
		}
		n++
		t.Run(name, func(t *testing.T) {
			addr := systemAddr(t, name, tr)
			base := appliedBase[name]
			for k := range base {
				if !slices.ContainsFunc(driver.FlagsOf(tr), func(f driver.Flag) bool { return f.Name == k }) {
					t.Fatalf("appliedBase gives --%s, which %s does not declare", k, name)
				}
			}
			checked := map[string]bool{}
			for _, f := range driver.FlagsOf(tr) {
				v, ok := otherValue(t, f)
				if !ok {
					continue
				}
				params := maps.Clone(base)
				if params == nil {
					params = map[string]string{}
				}
				params[f.Name] = v
				for _, k := range appliedAlike(t, name, d, addr, params, f.Name) {
					checked[k] = true
				}
			}
			if len(base) > 0 {
				for _, k := range appliedAlike(t, name, d, addr, maps.Clone(base), slices.Sorted(maps.Keys(base))...) {
					checked[k] = true
				}
			}
			if len(checked) == 0 && !t.Failed() {
				t.Errorf("%s: no flag checked: its role client and publisher report none of the flags tried (driver.RecordApplied in their SystemInfo)", name)
			}
			t.Logf("%s: flags checked %v", name, slices.Sorted(maps.Keys(checked)))
		})
	}
	if n < 3 {
		t.Errorf("%d systems whose roles run through a client of this process; want at least nats, mqtt and amqp (registered by importing runapp)", n)
	}
}

// appliedAlike opens a role client and a publisher of system name (d) at
// addr with params, best effort, and compares the flags each reports to
// have applied; it returns the flags tried that it checked (none when
// both refused params, or the publisher reports none of them).
func appliedAlike(t *testing.T, name string, d driver.ClientDialer, addr string, params map[string]string, tried ...string) []string {
	t.Helper()
	given := strings.Join(sortedPairs(params), " ")
	opts := driver.Options{Topic: "mqgate.applied." + strconv.FormatInt(time.Now().UnixNano(), 36), Params: params}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, cerr := d.DialClient(ctx, []string{addr}, opts, 5*time.Second)
	if cerr == nil {
		defer c.Close()
	}
	p, perr := d.Publish(ctx, addr, opts)
	if perr == nil {
		defer p.Close()
	}
	switch {
	case cerr != nil && perr != nil:
		t.Logf("%s: refused by both the role client (%v) and the publisher (%v): not checked", given, cerr, perr)
		return nil
	case cerr != nil:
		t.Errorf("%s: the role client refused what the publisher takes: %v", given, cerr)
		return nil
	case perr != nil:
		t.Errorf("%s: the role client took what the publisher refuses (%v)", given, perr)
		return nil
	}
	cr, ok := c.(driver.InfoReporter)
	if !ok {
		t.Fatalf("%s's role client %T does not say what it reached (driver.InfoReporter), so the one-client rule cannot be checked", name, c)
	}
	pr, ok := p.(driver.InfoReporter)
	if !ok {
		t.Fatalf("%s's publisher %T does not say what it reached (driver.InfoReporter), so the one-client rule cannot be checked", name, p)
	}
	// Only the flags given are compared: a flag not given is each side's
	// default, which a role may set from its --timeout (DialClient).
	got, want := applied(cr.SystemInfo().Extra), applied(pr.SystemInfo().Extra)
	var checked []string
	for _, k := range slices.Sorted(maps.Keys(params)) {
		w, reported := want[k]
		if !reported {
			t.Logf("with %s: --%s is not among the flags the publisher reports: not checked", given, k)
			continue
		}
		if g, ok := got[k]; !ok || g != w {
			t.Errorf("%s: with %s the role client applied --%s %q, the publisher %q: the roles' client is not opened from the ends' Options (issue 33: one client per system)", name, given, k, g, w)
		}
		if w != params[k] {
			t.Errorf("%s: with %s the publisher applied --%s %q, not the value given", name, given, k, w)
		}
		if slices.Contains(tried, k) {
			checked = append(checked, k)
		}
	}
	return checked
}

// otherValue is a valid value of f other than its default: for a number
// or a duration flag, the default less one (a second), or more when that
// leaves the Range; for a true-or-false flag, the other value. False for
// text flags and secrets.
func otherValue(t *testing.T, f driver.Flag) (string, bool) {
	t.Helper()
	if f.Secret {
		return "", false
	}
	ps, err := driver.ParseParams([]driver.Flag{f}, nil)
	if err != nil {
		t.Fatalf("--%s: its default %q: %v", f.Name, f.Default, err)
	}
	if f.Boolean {
		return strconv.FormatBool(!ps.Bool(f.Name)), true
	}
	step, format := int64(1), func(n int64) string { return strconv.FormatInt(n, 10) }
	var def int64
	switch f.Range.Kind {
	case driver.WholeNumber:
		def = int64(ps.Int(f.Name))
	case driver.DurationValue:
		def, step = int64(ps.Duration(f.Name)), int64(time.Second)
		format = func(n int64) string { return time.Duration(n).String() }
	default:
		return "", false
	}
	for _, n := range []int64{def - step, def + step, def / 2, def * 2} {
		if n != def && n >= f.Range.Min && n <= f.Range.Max {
			return format(n), true
		}
	}
	return "", false
}

// systemAddr is where the system name is reached: its URL flag's
// environment variable or default when something listens there, else a
// server of its own (driver.Embedder), else the test is skipped (fails
// under CI=true).
func systemAddr(t *testing.T, name string, tr driver.Transport) string {
	t.Helper()
	var addr, env string
	for _, f := range driver.FlagsOf(tr) {
		if f.Name == driver.URLFlag(name) {
			env = f.EnvVar
			addr = testenv.Getenv(f.EnvVar, f.Default)
		}
	}
	hostport := addr
	if u, err := url.Parse(addr); err == nil && u.Host != "" {
		hostport = u.Host
	}
	if addr != "" {
		if c, err := net.DialTimeout("tcp", hostport, 2*time.Second); err == nil {
			c.Close()
			return addr
		}
	}
	if e, ok := tr.(driver.Embedder); ok {
		u, stop, err := e.StartEmbedded(context.Background(), driver.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { stop() })
		return u
	}
	return testenv.Service(t, name, addr, "start it, or name one in "+env)
}

func sortedPairs(m map[string]string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, "--"+k+" "+strconv.Quote(m[k]))
	}
	return out
}

// applied is what driver.RecordApplied recorded in extra, by flag name.
func applied(extra map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range extra {
		if name, ok := strings.CutPrefix(k, "--"); ok {
			out[name] = v
		}
	}
	return out
}
