package exit

import (
	"errors"
	"fmt"
	"testing"
)

// coder is an error of another library that carries an exit code.
type coder int

func (c coder) Error() string { return "coded" }
func (c coder) ExitCode() int { return int(c) }

func TestCode(t *testing.T) {
	cases := []struct {
		err  error
		want int
	}{
		{nil, 0},
		{errors.New("plain"), 2},
		{GateFailedf("x"), 1},
		{Usagef("x"), 2},
		{With(Inconclusive, errors.New("x")), 3},
		{With(Interrupted, errors.New("x")), 130},
		{With(0, errors.New("x")), 2},
		{fmt.Errorf("wrapped: %w", With(Inconclusive, errors.New("x"))), 3},
		{coder(7), 7},
		{coder(0), 2},
	}
	for _, c := range cases {
		if got := Code(c.err); got != c.want {
			t.Errorf("Code(%v) = %d, want %d", c.err, got, c.want)
		}
	}
	if With(Usage, nil) != nil {
		t.Error("With(Usage, nil) is not nil")
	}
}
