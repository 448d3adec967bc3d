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

// TestPositionAndInvalidUTF8: line and character of a byte offset (a
// multi-byte character and a byte that is not UTF-8 count as one), and
// the first byte that is not UTF-8, as config and meta report them.
func TestPositionAndInvalidUTF8(t *testing.T) {
	data := []byte("a: 1\nb: \"é\xffx\"\n")
	off := InvalidUTF8(data)
	if off != 11 {
		t.Fatalf("InvalidUTF8 = %d, want 11", off)
	}
	for _, c := range []struct{ off, line, col int }{
		{0, 1, 1}, {4, 1, 5}, {5, 2, 1}, {off, 2, 6}, {off + 1, 2, 7}, {len(data), 3, 1}, {-3, 1, 1}, {len(data) + 9, 3, 1},
	} {
		if line, col := Position(data, c.off); line != c.line || col != c.col {
			t.Errorf("Position(%d) = %d:%d, want %d:%d", c.off, line, col, c.line, c.col)
		}
	}
	for _, s := range []string{"", "plain", "é, ✓ and 🙂\n"} {
		if got := InvalidUTF8([]byte(s)); got != -1 {
			t.Errorf("InvalidUTF8(%q) = %d, want -1", s, got)
		}
	}
	if got := InvalidUTF8([]byte("ok\xe2\x82")); got != 2 {
		t.Errorf("InvalidUTF8(truncated) = %d, want 2", got)
	}
}
