package zenohhelper

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// CrateDir is the helper's Cargo crate, relative to the repository root.
const CrateDir = "tools/mqgate-zenoh"

// BinaryName is the helper's executable.
const BinaryName = "mqgate-zenoh"

// EnvHelper names the environment variable that points at a helper binary,
// overriding the search of Find.
const EnvHelper = "MQGATE_ZENOH_HELPER"

// ErrNotFound is wrapped by Find's error when no helper binary exists.
var ErrNotFound = errors.New("mqgate-zenoh helper not found")

// RepoRoot returns the repository root at or above dir: the first directory
// holding both go.mod and the helper's crate.
func RepoRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if fileExists(filepath.Join(d, "go.mod")) && fileExists(filepath.Join(d, CrateDir, "Cargo.toml")) {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no mqgate repository (go.mod and %s/Cargo.toml) at or above %s", CrateDir, dir)
		}
	}
}

// BuiltPath is where cargo puts the release binary of the crate under root:
// $CARGO_TARGET_DIR/release when that is set, else the crate's target/release.
func BuiltPath(root string) string {
	target := os.Getenv("CARGO_TARGET_DIR")
	if target == "" {
		target = filepath.Join(root, CrateDir, "target")
	} else if !filepath.IsAbs(target) {
		target = filepath.Join(root, CrateDir, target)
	}
	return filepath.Join(target, "release", BinaryName)
}

// Find returns the helper binary: $MQGATE_ZENOH_HELPER when set, else the
// release build in the repository around the working directory, else
// mqgate-zenoh on PATH. Its error wraps ErrNotFound and says how to build it.
func Find() (string, error) {
	if p := os.Getenv(EnvHelper); p != "" {
		if !IsExecutable(p) {
			return "", fmt.Errorf("%w: %s=%s is not an executable file", ErrNotFound, EnvHelper, p)
		}
		return p, nil
	}
	var tried []string
	if wd, err := os.Getwd(); err == nil {
		if root, err := RepoRoot(wd); err == nil {
			p := BuiltPath(root)
			if IsExecutable(p) {
				return p, nil
			}
			tried = append(tried, p)
		}
	}
	if p, err := exec.LookPath(BinaryName); err == nil {
		return p, nil
	}
	tried = append(tried, BinaryName+" on PATH")
	return "", fmt.Errorf("%w (tried %s); build it with `make zenoh` (needs cargo) or set %s", ErrNotFound, strings.Join(tried, ", "), EnvHelper)
}

// Version returns what `bin --version` prints, e.g.
// "mqgate-zenoh 0.1.0 (zenoh 1.10.2)".
func Version(ctx context.Context, bin string) (string, error) {
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", bin, err)
	}
	return strings.TrimSpace(string(out)), nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// IsExecutable says whether p is a regular file that may be executed.
func IsExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}
