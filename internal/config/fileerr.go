package config

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	gotoml "github.com/pelletier/go-toml/v2"
)

// yamlLine finds the line in a YAML error ("yaml: line 3: …", or the first
// "line 3: …" of "yaml: unmarshal errors:").
var yamlLine = regexp.MustCompile(`line (\d+): (.*)`)

// tomlDuplicate is go-toml's error for a key set twice, which has no
// position.
var tomlDuplicate = regexp.MustCompile(`^toml: key (\S+) is already defined`)

// parseError returns a --config file's parse error as
// "--config FILE:LINE[:COL]: …" where the parser says where.
func parseError(file string, data []byte, err error) error {
	var de *gotoml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		return fmt.Errorf("--config %s:%d:%d: %w; expected a TOML file of settings (key = value)", file, row, col, err)
	}
	if m := tomlDuplicate.FindStringSubmatch(err.Error()); m != nil {
		// go-toml gives no position here: the key's second setting.
		if lines := keyLines(data, m[1], ""); len(lines) > 1 {
			return fmt.Errorf("--config %s:%d: %w; expected each setting once", file, lines[1], err)
		}
	}
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		return fmt.Errorf("--config %s:%s: yaml: %s; expected a YAML file of settings (key: value)", file, m[1], m[2])
	}
	return fmt.Errorf("--config %s: %w", file, err)
}

// lineOfKey returns ":LINE" for the first line of data that sets key,
// after the header of section when one is given; "" when none does.
func lineOfKey(data []byte, key, section string) string {
	if lines := keyLines(data, key, section); len(lines) > 0 {
		return fmt.Sprintf(":%d", lines[0])
	}
	return ""
}

// keyLines returns the 1-based lines of data that set key (key = or key:,
// perhaps quoted), after the header of section ([pub] or pub:) when one is
// given.
func keyLines(data []byte, key, section string) []int {
	lines := strings.Split(string(data), "\n")
	from := 0
	if section != "" {
		from = len(lines)
		for i, l := range lines {
			t := strings.TrimSpace(l)
			if t == "["+section+"]" || strings.HasPrefix(l, section+":") {
				from = i + 1
				break
			}
		}
	}
	var out []int
	for i := from; i < len(lines); i++ {
		t := strings.TrimLeft(lines[i], " \t")
		t = strings.TrimPrefix(strings.TrimPrefix(t, `"`), `'`)
		if rest, ok := strings.CutPrefix(t, key); ok {
			rest = strings.TrimLeft(strings.TrimPrefix(strings.TrimPrefix(rest, `"`), `'`), " \t")
			if strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, ":") {
				out = append(out, i+1)
			}
		}
	}
	return out
}
