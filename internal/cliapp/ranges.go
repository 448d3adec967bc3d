package cliapp

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/flagrange"
)

var (
	rangesMu sync.Mutex
	ranges   = map[cli.Flag]flagrange.Range{}
)

// Ranged states r at the end of f's usage text and records it for CheckRanges; it
// returns f. f is one of urfave/cli's numeric flag pointers.
func Ranged[F cli.Flag](f F, r flagrange.Range) F {
	v := reflect.ValueOf(f)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("cliapp.Ranged: %T is not a flag pointer", f))
	}
	if u := v.Elem().FieldByName("Usage"); u.CanSet() && u.Kind() == reflect.String {
		u.SetString(strings.TrimSpace(u.String() + " (valid: " + r.String() + ")"))
	}
	rangesMu.Lock()
	ranges[f] = r
	rangesMu.Unlock()
	return f
}

// RangeOf returns the range recorded for f by Ranged.
func RangeOf(f cli.Flag) (flagrange.Range, bool) {
	rangesMu.Lock()
	defer rangesMu.Unlock()
	r, ok := ranges[f]
	return r, ok
}

// CheckRanges refuses the first flag of flags given with a value outside its
// range. Flags without a recorded range are not checked. A StringFlag with
// a range (a driver's setting) holds a number or a duration as text:
// Parse reads it.
func CheckRanges(c *cli.Context, flags []cli.Flag) error {
	isSet := SetFlags(c)
	for _, f := range flags {
		r, ok := RangeOf(f)
		if !ok {
			continue
		}
		name := f.Names()[0]
		if !isSet(name) {
			continue
		}
		var v float64
		switch f.(type) {
		case *cli.IntFlag:
			v = float64(c.Int(name))
		case *cli.Int64Flag:
			v = float64(c.Int64(name))
		case *cli.UintFlag:
			v = float64(c.Uint(name))
		case *cli.Uint64Flag:
			v = float64(c.Uint64(name))
		case *cli.Float64Flag:
			v = c.Float64(name)
		case *cli.DurationFlag:
			v = float64(c.Duration(name))
		case *cli.StringFlag:
			if _, err := r.Parse(name, c.String(name)); err != nil {
				return fromEnv(f, c.String(name), err)
			}
			continue
		default:
			continue
		}
		if err := r.Check(name, v); err != nil {
			return fromEnv(f, fmt.Sprint(c.Value(name)), err)
		}
	}
	return nil
}

// fromEnv adds to err, the refusal of a flag's value, the environment
// variable that value came from, as the roles name theirs: a flag set by
// its variable is not on the command line the user looks at. A value the
// variable does not hold came from the command line, which wins: err then
// stands as it is.
func fromEnv(f cli.Flag, value string, err error) error {
	ef, ok := f.(cli.DocGenerationFlag)
	if !ok {
		return err
	}
	for _, env := range ef.GetEnvVars() {
		if v, set := os.LookupEnv(env); set && strings.TrimSpace(v) == strings.TrimSpace(value) {
			return fmt.Errorf("%w (from environment variable %s)", err, env)
		}
	}
	return err
}

// SetFlags returns c.IsSet for asking about many flags. c.IsSet looks an
// unset flag up among all the flags of c's commands by each of their names,
// which urfave/cli derives with a regular expression per flag: asked about
// every flag of a command, that is flags² regular expressions, most of a
// refused run's time. SetFlags lists once the names of the flags that are
// set (c.FlagNames: urfave/cli sets a flag given by one of its names under
// all of them, and lists every name of a flag set by its environment
// variable) and asks c.IsSet about those only, so that the answers stay
// c.IsSet's.
func SetFlags(c *cli.Context) func(name string) bool {
	given := map[string]bool{}
	for _, n := range c.FlagNames() {
		given[n] = true
	}
	return func(name string) bool {
		return given[name] && c.IsSet(name)
	}
}

// RangesChecked returns an action that checks the ranges of flags, then calls
// action.
func RangesChecked(flags []cli.Flag, action cli.ActionFunc) cli.ActionFunc {
	return func(c *cli.Context) error {
		if err := CheckRanges(c, flags); err != nil {
			return err
		}
		if action == nil {
			return nil
		}
		return action(c)
	}
}
