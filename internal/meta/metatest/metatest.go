// Package metatest checks, for tests, that a meta.json carries every field
// formats §6 asks for: meta's own round trip and every meta.json run writes
// are held against RequiredFields.
package metatest

import (
	"encoding/json"
	"slices"
	"strings"
)

// RequiredFields are the JSON paths formats §6 asks every meta.json to carry,
// "a.b" for nested objects and "a.*.b" for every element of an array.
var RequiredFields = []string{
	"tool.version", "experiment", "start", "end",
	"system.name", "system.scopes",
	"host.hostname", "host.os", "host.kernel", "host.cpu_model", "host.logical_cores", "host.gomaxprocs", "host.go_version",
	"config.subexperiments", "config.payloads", "config.samples", "config.warmup", "config.timeout",
	"latency", "completed", "interrupted",
	"subexperiments.*.type",
	"subexperiments.*.payloads.*.bytes", "subexperiments.*.payloads.*.samples", "subexperiments.*.payloads.*.warmup",
	"subexperiments.*.payloads.*.lost", "subexperiments.*.payloads.*.retransmitted",
	"subexperiments.*.payloads.*.duplicates", "subexperiments.*.payloads.*.out_of_order",
	"subexperiments.*.payloads.*.errors", "subexperiments.*.payloads.*.messages_acked",
}

// NotOneWay are the RequiredFields a one-way stream mode (run load,
// throughput, permessage, burst: config.echo "none (one-way)") may leave
// out: it measures no round trips (its per-payload counts are in
// subexperiments.*.payloads), and run load has no timeout (it waits by
// --drain).
var NotOneWay = []string{"config.samples", "config.warmup", "config.timeout"}

// oneWayStream reports whether doc is the meta.json of a one-way stream
// mode.
func oneWayStream(doc any) bool {
	m, _ := doc.(map[string]any)
	c, _ := m["config"].(map[string]any)
	return c["echo"] == "none (one-way)"
}

// MissingFields returns the RequiredFields absent from a meta.json
// document (the system's version and commit are optional: they are only
// known when given).
func MissingFields(doc []byte) ([]string, error) {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return nil, err
	}
	var missing []string
	for _, path := range RequiredFields {
		if slices.Contains(NotOneWay, path) && oneWayStream(v) {
			continue
		}
		if !has(v, strings.Split(path, ".")) {
			missing = append(missing, path)
		}
	}
	return missing, nil
}

// has reports whether path exists in v; "*" requires it in every element
// of a non-empty array.
func has(v any, path []string) bool {
	if len(path) == 0 {
		return v != nil
	}
	switch x := v.(type) {
	case map[string]any:
		return has(x[path[0]], path[1:])
	case []any:
		if path[0] != "*" || len(x) == 0 {
			return false
		}
		for _, e := range x {
			if !has(e, path[1:]) {
				return false
			}
		}
		return true
	}
	return false
}
