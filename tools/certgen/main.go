// Command certgen writes a CA and two certificates signed by it, made by
// the same generator as run's per-run certificates (secure.Generate), so
// that a broker's TLS listener can be configured with them before a run:
//
//	certgen -out DIR [-host NAME]... [-force]
//
// DIR receives ca.pem, echo.pem and echo-key.pem (for the server side, e.g.
// RabbitMQ's ssl_options), pinger.pem and pinger-key.pem (for clients:
// run's --ca, --cert and --key). The certificates are valid for 127.0.0.1,
// ::1, localhost and every -host, for seven days. The paths are printed,
// one per line.
//
// A DIR already holding any of the five files is refused (exit 2, naming
// them), as it may hold a CA of its own that brokers and clients trust:
// -force replaces them. The five are written whole under other names, and
// only then each renamed over the old one, keys 0600 from the start: a set
// that cannot be written (a full disk) replaces none.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/driver/secure"
)

func main() {
	os.Exit(exitCode(run(os.Args[1:], os.Stdout, os.Stderr), os.Stderr))
}

// exitCode prints err and returns 2, or 0 for none and for -h (the usage
// was printed, as asked).
func exitCode(err error, stderr io.Writer) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintln(stderr, "certgen:", err)
	return 2
}

// hosts is a repeatable, comma-separated -host flag.
type hosts []string

func (h *hosts) String() string { return strings.Join(*h, ",") }

func (h *hosts) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*h = append(*h, s)
		}
	}
	return nil
}

func run(args []string, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet("certgen", flag.ContinueOnError)
	flags.SetOutput(stderr)
	flags.Usage = func() {
		fmt.Fprintln(flags.Output(), "usage: certgen -out DIR [-host NAME]... [-force]")
		flags.PrintDefaults()
	}
	out := flags.String("out", "", "directory to write the PEM files into (created 0700)")
	force := flags.Bool("force", false, "replace the CA, certificates and keys already in -out (refused without it)")
	var extra hosts
	flags.Var(&extra, "host", "a further host name or IP address the certificates are valid for (repeatable, or comma-separated)")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if *out == "" || flags.NArg() > 0 {
		return fmt.Errorf("usage: certgen -out DIR [-host NAME]... [-force]")
	}
	files, err := secure.Generate(extra...)
	if err != nil {
		return err
	}
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = filepath.Join(*out, f.Name)
	}
	if err := checkPaths(paths, *force); err != nil {
		return err
	}
	if err := os.MkdirAll(*out, 0o700); err != nil {
		return fmt.Errorf("cannot create %s: %w", *out, err)
	}
	// As a set: a CA must not be replaced while a certificate it signed
	// could not be.
	set := make([]atomicfile.File, len(files))
	for i, f := range files {
		set[i] = atomicfile.File{Path: paths[i], Perm: f.Mode, Write: func(w io.Writer) error { _, err := w.Write(f.Data); return err }}
	}
	if err := atomicfile.WriteAll(set); err != nil {
		return err
	}
	for _, p := range paths {
		fmt.Fprintln(stdout, p)
	}
	return nil
}

// checkPaths reports, before anything is written, a path that cannot
// become a file, or one that exists when replacing was not asked for: a
// folder given twice must not lose the CA it holds.
func checkPaths(paths []string, force bool) error {
	var existing []string
	for _, p := range paths {
		if err := atomicfile.CheckFile(p); err != nil {
			return err
		}
		_, err := os.Lstat(p)
		switch {
		case err == nil:
			existing = append(existing, p)
		case !errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("cannot tell whether %s exists: %w", p, err)
		}
	}
	if len(existing) > 0 && !force {
		return fmt.Errorf("%s: already there, and a CA, certificate or key is replaced only with -force (or give another -out)",
			strings.Join(existing, ", "))
	}
	return nil
}
