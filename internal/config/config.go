package config

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/knadh/koanf/parsers/toml/v2"
	"github.com/knadh/koanf/parsers/yaml"
	"github.com/knadh/koanf/providers/confmap"
	"github.com/knadh/koanf/v2"

	"github.com/mqgate/mqgate/internal/fileerr"
)

// EnvPrefix starts every environment variable the package reads.
const EnvPrefix = "MQ_"

// Sources are what Load merges.
type Sources struct {
	// File is the configuration file ("" for none): YAML (.yaml, .yml) or
	// TOML (.toml).
	File string
	// Section is the role whose section of the file applies ("pub").
	Section string
	// Environ is the environment ("KEY=value" strings); nil reads none.
	Environ []string
	// Flags are the flags given on the command line, by name, with their
	// values as given (a repeated flag as []string).
	Flags map[string]any
	// Known are the keys the command takes; any other key is an error.
	Known []string
}

// Config is the merged settings.
type Config struct {
	k      *koanf.Koanf
	source map[string]string // key → where its value came from
}

// Load merges src (see the package documentation).
func Load(src Sources) (*Config, error) {
	c := &Config{k: koanf.New("."), source: map[string]string{}}
	known := func(key string) bool { return slices.Contains(src.Known, key) }
	if src.File != "" {
		if err := c.loadFile(src, known); err != nil {
			return nil, err
		}
	}
	envMap := map[string]any{}
	for _, kv := range src.Environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(name, EnvPrefix) {
			continue
		}
		key := strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(name, EnvPrefix), "_", "-"))
		if !known(key) {
			return nil, fmt.Errorf("environment variable %s: unknown setting %q; expected one of %s", name, key, keyList(src.Known, EnvPrefix))
		}
		envMap[key] = value
		c.source[key] = "environment variable " + name
	}
	// Environment values are taken from Sources.Environ (not the process
	// environment directly), so that tests and callers control them.
	if err := c.k.Load(confmap.Provider(envMap, ""), nil); err != nil {
		return nil, err
	}
	for key := range src.Flags {
		if !known(key) {
			return nil, fmt.Errorf("--%s: not a setting of this command", key)
		}
		c.source[key] = "--" + key
	}
	if err := c.k.Load(confmap.Provider(src.Flags, ""), nil); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Config) loadFile(src Sources, known func(string) bool) error {
	var parser koanf.Parser
	switch strings.ToLower(filepath.Ext(src.File)) {
	case ".yaml", ".yml":
		parser = yaml.Parser()
	case ".toml":
		parser = toml.Parser()
	default:
		return fmt.Errorf("--config %s: expected a .yaml, .yml or .toml file", src.File)
	}
	data, err := fileerr.ReadRegular(src.File, "a YAML or TOML configuration file")
	if err != nil {
		return fmt.Errorf("--config %s: %w", src.File, err)
	}
	if off := fileerr.InvalidUTF8(data); off >= 0 {
		line, col := fileerr.Position(data, off)
		return fmt.Errorf("--config %s:%d:%d: byte 0x%02X is not UTF-8; expected a UTF-8 text file", src.File, line, col, data[off])
	}
	raw, err := parser.Unmarshal(data)
	if err != nil {
		return parseError(src.File, data, err)
	}
	fk := koanf.New(".")
	if err := fk.Load(confmap.Provider(raw, ""), nil); err != nil {
		return fmt.Errorf("--config %s: %w", src.File, err)
	}
	top, section := map[string]any{}, map[string]any{}
	roles := []string{"pub", "sub", "req", "qry"}
	for key, v := range fk.Raw() {
		norm := strings.ReplaceAll(key, "_", "-")
		if m, ok := v.(map[string]any); ok && slices.Contains(roles, norm) {
			for sk, sv := range m {
				sn := strings.ReplaceAll(sk, "_", "-")
				if norm != src.Section {
					continue
				}
				if !known(sn) {
					return fmt.Errorf("--config %s%s: %s.%s: unknown setting; expected one of %s", src.File, lineOfKey(data, sk, key), key, sk, keyList(src.Known, ""))
				}
				section[sn] = sv
			}
			continue
		}
		if !known(norm) {
			return fmt.Errorf("--config %s%s: %s: unknown setting; expected one of %s (or a section pub, sub, req, qry)", src.File, lineOfKey(data, key, ""), key, keyList(src.Known, ""))
		}
		top[norm] = v
	}
	for k := range top {
		c.source[k] = "--config " + src.File
	}
	for k := range section {
		c.source[k] = "--config " + src.File + " (" + src.Section + ")"
	}
	if err := c.k.Load(confmap.Provider(top, ""), nil); err != nil {
		return err
	}
	return c.k.Load(confmap.Provider(section, ""), nil)
}

func keyList(keys []string, envPrefix string) string {
	out := slices.Sorted(slices.Values(keys))
	if envPrefix != "" {
		for i, k := range out {
			out[i] = envPrefix + strings.ToUpper(strings.ReplaceAll(k, "-", "_"))
		}
	}
	return strings.Join(out, ", ")
}

// Source says where key's value came from ("--rate", "environment variable
// MQ_RATE", "--config run.yaml"), or "default".
func (c *Config) Source(key string) string {
	if s, ok := c.source[key]; ok {
		return s
	}
	return "default"
}

// String returns key's value, or def.
func (c *Config) String(key, def string) string {
	if !c.k.Exists(key) {
		return def
	}
	switch v := c.k.Get(key).(type) {
	case []any, []string:
		s := c.k.Strings(key)
		return s[len(s)-1]
	default:
		return fmt.Sprint(v)
	}
}

// Strings returns key's values: a list in a file, a repeated flag, or a
// comma-separated string; def when unset.
func (c *Config) Strings(key string, def []string) []string {
	if !c.k.Exists(key) {
		return def
	}
	var out []string
	switch v := c.k.Get(key).(type) {
	case []any, []string:
		for _, s := range c.k.Strings(key) {
			out = append(out, splitComma(s)...)
		}
	default:
		out = splitComma(fmt.Sprint(v))
	}
	return out
}

func splitComma(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// value is key's value as conv reads it, or def; an error saying what
// it is not (want) when conv cannot read it.
func value[T any](c *Config, key string, def T, want string, conv func(v any) (T, bool)) (T, error) {
	if !c.k.Exists(key) {
		return def, nil
	}
	v := c.k.Get(key)
	if t, ok := conv(v); ok {
		return t, nil
	}
	var zero T
	return zero, fmt.Errorf("%s (from %s): %v is not %s", key, c.Source(key), v, want)
}

// Int returns key's value as an integer, or def.
func (c *Config) Int(key string, def int) (int, error) {
	return value(c, key, def, "an integer", func(v any) (int, bool) {
		switch n := v.(type) {
		case int:
			return n, true
		case int64:
			return int(n), true
		case float64:
			return int(n), n == float64(int(n))
		case string:
			i, err := strconv.Atoi(strings.TrimSpace(n))
			return i, err == nil
		}
		return 0, false
	})
}

// Float returns key's value as a number, or def.
func (c *Config) Float(key string, def float64) (float64, error) {
	return value(c, key, def, "a number", func(v any) (float64, bool) {
		switch n := v.(type) {
		case int:
			return float64(n), true
		case int64:
			return float64(n), true
		case float64:
			return n, true
		case string:
			f, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
			return f, err == nil
		}
		return 0, false
	})
}

// Bool returns key's value as a boolean, or def.
func (c *Config) Bool(key string, def bool) (bool, error) {
	return value(c, key, def, "true or false", func(v any) (bool, bool) {
		switch b := v.(type) {
		case bool:
			return b, true
		case string:
			p, err := strconv.ParseBool(strings.TrimSpace(b))
			return p, err == nil
		}
		return false, false
	})
}

// Duration returns key's value as a duration ("1.5s", "200ms"; a bare
// number is seconds), or def.
func (c *Config) Duration(key string, def time.Duration) (time.Duration, error) {
	return value(c, key, def, `a duration such as "10s" or "250ms"`, func(v any) (time.Duration, bool) {
		switch d := v.(type) {
		case time.Duration:
			return d, true
		case int:
			return time.Duration(d) * time.Second, true
		case int64:
			return time.Duration(d) * time.Second, true
		case float64:
			return time.Duration(d * float64(time.Second)), true
		case string:
			td, err := ParseDuration(d)
			return td, err == nil
		}
		return 0, false
	})
}

// ParseDuration reads a duration ("1.5s", "200ms"), or a bare number of
// seconds, spaces around it ignored.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if d, err := time.ParseDuration(s); err == nil {
		return d, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	return time.Duration(f * float64(time.Second)), err
}
