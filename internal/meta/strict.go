package meta

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/mqgate/mqgate/internal/fileerr"
)

// Strict decoding (formats §6): meta.json is read as the UTF-8 JSON object
// run writes, and anything else is an input error naming the file, line
// and character: a byte that is not UTF-8 (in a string or not), data after
// the object (a second object, a stray brace), a value of the wrong type,
// null where a value is required (encoding/json would keep the zero value,
// so "completed": null read as an incomplete run), a key given twice or in
// another case ("Completed"), a time or duration that does not parse, an
// empty file. A leading UTF-8 byte order mark is skipped, as in the CSV
// files. Keys this version does not know are skipped: a newer run may add
// fields without changing the schema.

var (
	timeType     = reflect.TypeFor[time.Time]()
	durationType = reflect.TypeFor[Duration]()
	bom          = []byte("\uFEFF")
)

// at returns an input error at byte offset off of data.
func at(file string, data []byte, off int, format string, args ...any) error {
	line, col := fileerr.Position(data, off)
	return fileerr.At(file, line, col, format, args...)
}

// walker checks a JSON document against a Go type token by token, knowing
// where each token starts.
type walker struct {
	file string
	data []byte
	dec  *json.Decoder
	// top holds the offsets of the top-level object's values by key.
	top map[string]int
}

// next returns the next token and the offset where it starts.
func (w *walker) next() (json.Token, int, error) {
	off := int(w.dec.InputOffset())
	for off < len(w.data) && strings.IndexByte(" \t\r\n,:", w.data[off]) >= 0 {
		off++
	}
	tok, err := w.dec.Token()
	if err != nil {
		return nil, off, w.syntax(err, off)
	}
	return tok, off, nil
}

// syntax locates a decoder error found at or after offset off.
func (w *walker) syntax(err error, off int) error {
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn):
		return at(w.file, w.data, fileerr.SyntaxOffset(w.data, off), "invalid JSON: %v; expected the JSON object run writes", syn)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return at(w.file, w.data, len(w.data), "truncated JSON: the object does not end; expected a complete object written by run")
	}
	return at(w.file, w.data, off, "invalid JSON: %v", err)
}

// describe says what a value of type t looks like in JSON.
func describe(t reflect.Type) string {
	switch {
	case t == timeType:
		return `an RFC 3339 time such as "2026-01-02T03:04:05Z"`
	case t == durationType:
		return `a duration such as "1.5s"`
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number ≥ 0"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Pointer:
		return describe(t.Elem())
	}
	return "an object"
}

// found names a JSON token for errors.
func found(tok json.Token) string {
	switch v := tok.(type) {
	case nil:
		return "null"
	case json.Delim:
		if v == '{' {
			return "an object"
		}
		return "an array"
	case string:
		return fmt.Sprintf("the string %q", v)
	case json.Number:
		return "the number " + v.String()
	case bool:
		return strconv.FormatBool(v)
	}
	return fmt.Sprint(tok)
}

// field returns the struct field of t whose JSON name is key, and the
// name of a field whose name differs from key only in case.
func field(t reflect.Type, key string) (f reflect.StructField, ok bool, folded string) {
	for i := range t.NumField() {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		name = cmp.Or(name, sf.Name)
		if name == "-" || !sf.IsExported() {
			continue
		}
		if name == key {
			return sf, true, ""
		}
		if strings.EqualFold(name, key) {
			folded = name
		}
	}
	return reflect.StructField{}, false, folded
}

// value checks the value starting with tok (at offset off) against t; a
// nil t (a key this version does not know) accepts any value. path names
// the value in errors ("config.samples").
func (w *walker) value(tok json.Token, off int, t reflect.Type, path string) error {
	if t == nil {
		return w.skip(tok)
	}
	if t.Kind() == reflect.Pointer && tok != nil {
		t = t.Elem()
	}
	wrong := func() error {
		what := "the meta.json object"
		if path != "" {
			what = fmt.Sprintf("field %q", path)
		}
		return at(w.file, w.data, off, "%s: expected %s, found %s", what, describe(t), found(tok))
	}
	switch v := tok.(type) {
	case nil:
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
			return nil // absent, as encoding/json reads it
		}
		return wrong()
	case json.Delim:
		switch {
		case v == '{' && t.Kind() == reflect.Struct && t != timeType:
			return w.object(t, path, false)
		case v == '{' && t.Kind() == reflect.Map && t.Key().Kind() == reflect.String:
			return w.object(t, path, true)
		case v == '[' && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array):
			return w.array(t, path)
		}
		return wrong()
	}
	if !scalarFits(tok, t) {
		return wrong()
	}
	return nil
}

// array checks the elements of an array (its '[' read) against the element
// type of slice or array type t, and reads its ']'.
func (w *walker) array(t reflect.Type, path string) error {
	for i := 0; w.dec.More(); i++ {
		tok, off, err := w.next()
		if err != nil {
			return err
		}
		if err := w.value(tok, off, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
			return err
		}
	}
	_, _, err := w.next()
	return err
}

// scalarFits reports whether tok, a string, number or boolean, is a value
// of type t: a time or duration string must parse, and a number must fit
// t's kind and size.
func scalarFits(tok json.Token, t reflect.Type) bool {
	switch v := tok.(type) {
	case string:
		switch {
		case t == timeType:
			_, err := time.Parse(time.RFC3339Nano, v)
			return err == nil
		case t == durationType:
			_, err := time.ParseDuration(v)
			return err == nil
		}
		return t.Kind() == reflect.String
	case json.Number:
		var err error
		switch t.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			_, err = strconv.ParseInt(v.String(), 10, t.Bits())
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			_, err = strconv.ParseUint(v.String(), 10, t.Bits())
		case reflect.Float32, reflect.Float64:
			_, err = strconv.ParseFloat(v.String(), t.Bits())
		default:
			return false
		}
		return err == nil
	case bool:
		return t.Kind() == reflect.Bool
	}
	return false
}

// object checks the members of an object (its '{' read) against struct or
// map type t, refusing keys given twice or in another case.
func (w *walker) object(t reflect.Type, path string, isMap bool) error {
	seen := map[string]int{}
	for w.dec.More() {
		tok, off, err := w.next()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		name := key
		if path != "" {
			name = path + "." + key
		}
		if first, dup := seen[key]; dup {
			line, col := fileerr.Position(w.data, first)
			return at(w.file, w.data, off, "field %q is given twice (first at line %d, character %d); expected each field once", name, line, col)
		}
		seen[key] = off
		var ft reflect.Type
		if isMap {
			ft = t.Elem()
		} else {
			f, ok, folded := field(t, key)
			switch {
			case ok:
				ft = f.Type
			case folded != "":
				return at(w.file, w.data, off, "field %q: names are case-sensitive; expected %q", name, folded)
			}
		}
		vtok, voff, err := w.next()
		if err != nil {
			return err
		}
		if path == "" && w.top != nil {
			w.top[key] = voff
		}
		if err := w.value(vtok, voff, ft, name); err != nil {
			return err
		}
	}
	_, _, err := w.next()
	return err
}

// skip reads past the value starting with tok.
func (w *walker) skip(tok json.Token) error {
	if d, ok := tok.(json.Delim); !ok || (d != '{' && d != '[') {
		return nil
	}
	for depth := 1; depth > 0; {
		tok, _, err := w.next()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
	return nil
}

// strict checks data (without byte order mark) as a meta.json document
// and returns the offsets of its top-level values by key, and the offset
// of the object.
func strict(file string, data []byte) (top map[string]int, open int, err error) {
	if off := fileerr.InvalidUTF8(data); off >= 0 {
		return nil, 0, at(file, data, off, "byte 0x%02X is not UTF-8; expected the UTF-8 JSON object run writes (was the file re-encoded?)", data[off])
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, 0, at(file, data, len(data), "empty file; expected the JSON object run writes")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	w := &walker{file: file, data: data, dec: dec, top: map[string]int{}}
	tok, open, err := w.next()
	if err != nil {
		return nil, 0, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, 0, at(file, data, open, "expected the JSON object run writes, found %s", found(tok))
	}
	if err := w.object(reflect.TypeFor[Meta](), "", false); err != nil {
		return nil, 0, err
	}
	end := int(dec.InputOffset())
	if rest := bytes.TrimLeft(data[end:], " \t\r\n"); len(rest) > 0 {
		return nil, 0, at(file, data, len(data)-len(rest), "unexpected data after the JSON object; expected the end of the file (one object per meta.json)")
	}
	return w.top, open, nil
}
