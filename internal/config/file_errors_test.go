package config

import (
	"strings"
	"testing"
)

// TestFileErrorsNameTheLine: a --config file that does not parse, or holds
// an unknown setting, is refused naming the file and line (and the
// character where the parser knows it). Before, TOML errors named no line
// ("toml: incomplete number"), nor did YAML duplicate keys, invalid UTF-8
// or unknown settings.
func TestFileErrorsNameTheLine(t *testing.T) {
	for _, tc := range []struct {
		name, body, section string
		want                string // after "--config <path>"
	}{
		{"a.toml", "rate = 100\ntopic-prefix = \n", "", ":2:16: toml: incomplete number"},
		{"b.toml", "rate = 100\n[pub\n", "", ":2:5: toml: "},
		{"c.toml", "rate = 100\nrate = 200\n", "", ":2: toml: key rate is already defined"},
		{"d.toml", "rate = 100\npayload = \"\xff\"\n", "", ":2:12: byte 0xFF is not UTF-8"},
		{"e.toml", "rate = 100\n\n  endpoint = 1 2\n", "", ":3:"},
		{"f.yaml", "rate: 100\n  bad: indent\n", "", ":2: yaml: mapping values are not allowed in this context"},
		{"g.yaml", "rate: 100\nrate: 200\n", "", `:2: yaml: mapping key "rate" already defined at line 1`},
		{"h.yaml", "rate: 100\n\xff: 1\n", "", ":2:1: byte 0xFF is not UTF-8"},
		{"i.yaml", "- 1\n- 2\n", "", ":1: yaml: cannot unmarshal !!seq"},
		{"j.yaml", "rate: 100\n\nrat: 5\n", "", ":3: rat: unknown setting; expected one of csv, duration, endpoint"},
		{"k.toml", "rate = 100\n[pub]\n  rat = 5\n", "pub", ":3: pub.rat: unknown setting"},
		{"l.yaml", "pub:\n  payload: 5\nrat: 1\n", "pub", ":3: rat: unknown setting"},
		{"m.yaml", "sub:\n  rat: 1\npub:\n  rat: 5\n", "pub", ":4: pub.rat: unknown setting"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := write(t, tc.name, tc.body)
			_, err := Load(Sources{File: path, Section: tc.section, Known: known})
			if err == nil || !strings.HasPrefix(err.Error(), "--config "+path+tc.want) {
				t.Errorf("err = %v, want it to start with %q", err, "--config "+path+tc.want)
			}
		})
	}
}
