package fileerr

import (
	"fmt"
	"testing"
)

func TestError(t *testing.T) {
	cases := []struct {
		err  *Error
		want string
	}{
		{New("a.csv", 1043, "Latency [us]", "%q is not a number", "12.5x"), `a.csv:1043: column "Latency [us]": "12.5x" is not a number`},
		{New("a.csv", 3, "", "row has 2 fields, expected 3"), "a.csv:3: row has 2 fields, expected 3"},
		{New("dir", 0, "", "no such directory"), "dir: no such directory"},
		{At("meta.json", 3, 14, "invalid JSON"), "meta.json:3:14: invalid JSON"},
	}
	for _, c := range cases {
		if got := c.err.Error(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
	wrapped := fmt.Errorf("process: %w", cases[0].err)
	if fe, ok := As(wrapped); !ok || fe.Line != 1043 {
		t.Fatalf("As(%v) = %v, %v", wrapped, fe, ok)
	}
	if _, ok := As(fmt.Errorf("plain")); ok {
		t.Fatal("As accepted a plain error")
	}
}
