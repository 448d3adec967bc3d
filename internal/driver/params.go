package driver

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/flagrange"
)

// Params are a transport's settings (Options.Params) read once against the
// flags it declares: each value, or the flag's default when it is missing
// or empty, parsed by the flag's Range with the bounds and the message run
// uses on the command line. A driver reads its settings through Params
// alone, so that a range is stated in one place, its Flag.
type Params struct {
	text map[string]string
	num  map[string]float64 // parsed numbers (ns for durations; 1 for true)
}

// ParseParams reads values against flags. The error names the first flag
// whose value does not parse or lies outside its Range (a usage error).
func ParseParams(flags []Flag, values map[string]string) (Params, error) {
	p := Params{text: make(map[string]string, len(flags)), num: map[string]float64{}}
	for _, f := range flags {
		v, given := values[f.Name]
		if !given {
			v = f.Default
		}
		p.text[f.Name] = v
		if f.Range.Kind == NotNumeric && !f.Boolean {
			continue
		}
		n, err := f.parse(cmp.Or(strings.TrimSpace(v), f.Default))
		if err != nil {
			return Params{}, err
		}
		p.num[f.Name] = n
	}
	return p, nil
}

// String is the value of the text flag name as given (an empty value
// included), else its default.
func (p Params) String(name string) string {
	v, ok := p.text[name]
	if !ok {
		panic(fmt.Sprintf("driver.Params: %q is not a declared flag", name))
	}
	return v
}

// Int is the value of the WholeNumber flag name.
func (p Params) Int(name string) int { return int(p.number(name)) }

// Duration is the value of the DurationValue flag name.
func (p Params) Duration(name string) time.Duration { return time.Duration(p.number(name)) }

// Bool is the value of the Boolean flag name.
func (p Params) Bool(name string) bool { return p.number(name) != 0 }

func (p Params) number(name string) float64 {
	n, ok := p.num[name]
	if !ok {
		panic(fmt.Sprintf("driver.Params: %q is not a declared numeric or true-or-false flag", name))
	}
	return n
}

// Flagrange is r as the command line states and checks it; false for a
// text flag.
func (r Range) Flagrange() (flagrange.Range, bool) {
	switch r.Kind {
	case WholeNumber:
		return flagrange.Int(r.Min, r.Max), true
	case DurationValue:
		return flagrange.Duration(time.Duration(r.Min), time.Duration(r.Max)), true
	}
	return flagrange.Range{}, false
}

// parse reads s, a value of f: true or false (1 or 0), or a number or a
// duration within f.Range (flagrange.Range.Parse, the command line's check).
func (f Flag) parse(s string) (float64, error) {
	if f.Boolean {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return 0, exit.Usagef("--%s %q: expected true or false", f.Name, s)
		}
		if b {
			return 1, nil
		}
		return 0, nil
	}
	r, _ := f.Range.Flagrange()
	return r.Parse(f.Name, s)
}
