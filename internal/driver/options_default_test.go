package driver

import "testing"

// TestWithDefault: a parameter not given takes the default, one given
// keeps its value, and the caller's map is never written to.
func TestWithDefault(t *testing.T) {
	given := map[string]string{"a": "1"}
	o := Options{Params: given}.WithDefault("a", "9").WithDefault("b", "2")
	if o.Params["a"] != "1" || o.Params["b"] != "2" {
		t.Errorf("Params %v, want a=1 (given) and b=2 (default)", o.Params)
	}
	if len(given) != 1 {
		t.Errorf("the caller's map was written to: %v", given)
	}
	if o := (Options{}).WithDefault("c", "3"); o.Params["c"] != "3" {
		t.Errorf("from no Params: %v", o.Params)
	}
}
