package compare

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/mqgate/mqgate/internal/exit"
)

// claimDir makes dir this process's until release: it creates dir (and its
// parents) when missing and takes an exclusive lock on it, which the
// system drops when the process ends however it ends. A folder that
// another compare is writing into is refused (exit 2, naming flag and
// folder), so that two calls started together cannot leave one folder
// holding comparisons of both; a folder an earlier call left is reused,
// its comparisons replaced (formats §1). On a file system without locks
// the folder is used unlocked.
func claimDir(flag, dir string) (release func(), err error) {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, exit.With(exit.Usage, fmt.Errorf("%s %s: %w", flag, dir, err))
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil, exit.With(exit.Usage, fmt.Errorf("%s %s: %w", flag, dir, err))
	}
	switch err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); {
	case errors.Is(err, syscall.EWOULDBLOCK):
		f.Close()
		return nil, exit.Usagef("%s %s is in use: another compare is writing its comparisons there, and a folder holds one call's; "+
			"wait for it to end, or choose another directory", flag, dir)
	case err != nil:
		// No locks here (some network file systems): nothing to hold.
	}
	return func() { f.Close() }, nil
}

// cancellable returns f's result, or at once an interrupted error (exit
// 130) when ctx is cancelled first: f is a computation that does not
// watch ctx (the paired analysis, the plan's resampling) and writes
// nothing, so the process may end without waiting for it.
func cancellable[T any](ctx context.Context, f func() (T, error)) (T, error) {
	var zero T
	if exit.Cancelled(ctx) {
		return zero, exit.ErrInterrupted
	}
	type outcome struct {
		v   T
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		v, err := f()
		done <- outcome{v, err}
	}()
	select {
	case o := <-done:
		return o.v, o.err
	case <-ctx.Done():
		return zero, exit.ErrInterrupted
	}
}

// inputError returns err as an input error (exit 2), or as interrupted
// (exit 130) when ctx was cancelled: reading the runs stops on a signal.
func inputError(ctx context.Context, err error) error {
	if exit.Cancelled(ctx) {
		return exit.ErrInterrupted
	}
	var e *exit.Error
	if errors.As(err, &e) {
		return err
	}
	return exit.With(exit.Usage, err)
}
