package gate

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
)

// MarshalJSON encodes c with values that do not exist (NaN) as null.
func (c Check) MarshalJSON() ([]byte, error) { return marshalFinite(reflect.ValueOf(c)) }

// UnmarshalJSON decodes what MarshalJSON encodes, null as NaN; a null high
// end of an interval (too few runs) as +Inf.
func (c *Check) UnmarshalJSON(b []byte) error { return unmarshalFinite(b, reflect.ValueOf(c).Elem()) }

// marshalFinite encodes the struct v as encoding/json does (its fields'
// tags, omitempty), but a float64 that JSON cannot represent, NaN or ±Inf,
// as null, also in its Stats.
func marshalFinite(v reflect.Value) ([]byte, error) {
	b := []byte{'{'}
	for i := range v.NumField() {
		name, opt, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		f := v.Field(i)
		if opt == "omitempty" && f.IsZero() {
			continue
		}
		val, err := []byte("null"), error(nil)
		if _, ok := f.Interface().(*Stats); ok {
			val, err = marshalFinite(f.Elem())
		} else if x, ok := f.Interface().(float64); !ok || !math.IsNaN(x) && !math.IsInf(x, 0) {
			val, err = json.Marshal(f.Interface())
		}
		if err != nil {
			return nil, err
		}
		key, _ := json.Marshal(name)
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(append(append(b, key...), ':'), val...)
	}
	return append(b, '}'), nil
}

// unmarshalFinite decodes what marshalFinite encodes into the struct v.
func unmarshalFinite(b []byte, v reflect.Value) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return err
	}
	for i := range v.NumField() {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		raw, ok := fields[name]
		f := v.Field(i)
		switch {
		case !ok:
		case f.Kind() == reflect.Float64 && string(raw) == "null":
			f.SetFloat(math.NaN())
		case f.Type() == reflect.TypeFor[*Stats]() && string(raw) != "null":
			s := new(Stats)
			if err := unmarshalFinite(raw, reflect.ValueOf(s).Elem()); err != nil {
				return err
			}
			if math.IsNaN(s.High) {
				s.High = math.Inf(1)
			}
			f.Set(reflect.ValueOf(s))
		default:
			if err := json.Unmarshal(raw, f.Addr().Interface()); err != nil {
				return err
			}
		}
	}
	return nil
}
