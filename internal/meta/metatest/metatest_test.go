package metatest

import (
	"slices"
	"testing"
)

func TestMissingFields(t *testing.T) {
	tests := []struct {
		doc, want string
	}{
		{`{"subexperiments": []}`, "subexperiments.*.type"},
		{`{"subexperiments": [{"type": "a", "payloads": [{"bytes": 16}]}]}`, "subexperiments.*.payloads.*.lost"},
		{`{"host": {"os": "linux"}}`, "host.kernel"},
		{`{"tool": {}}`, "tool.version"},
	}
	for _, tt := range tests {
		missing, err := MissingFields([]byte(tt.doc))
		if err != nil || !slices.Contains(missing, tt.want) {
			t.Errorf("MissingFields(%s) = %v, %v; want it to include %s", tt.doc, missing, err, tt.want)
		}
	}
	if _, err := MissingFields([]byte("{")); err == nil {
		t.Error("MissingFields accepted broken JSON")
	}
}
