// Command certgen writes a CA and two certificates signed by it, made by
// the same generator as run's per-run certificates (secure.GenerateFiles),
// so that a broker's TLS listener can be configured with them before a run:
//
//	certgen -out DIR [-host NAME]...
//
// DIR receives ca.pem, echo.pem and echo-key.pem (for the server side, e.g.
// RabbitMQ's ssl_options), pinger.pem and pinger-key.pem (for clients:
// run's --ca, --cert and --key). The certificates are valid for 127.0.0.1,
// ::1, localhost and every -host, for seven days. The paths are printed,
// one per line.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mqgate/mqgate/internal/driver/secure"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "certgen:", err)
		os.Exit(2)
	}
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
	fs := flag.NewFlagSet("certgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "directory to write the PEM files into (created 0700)")
	var extra hosts
	fs.Var(&extra, "host", "a further host name or IP address the certificates are valid for (repeatable, or comma-separated)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() > 0 {
		return fmt.Errorf("usage: certgen -out DIR [-host NAME]...")
	}
	echo, pinger, err := secure.GenerateFiles(*out, extra...)
	if err != nil {
		return err
	}
	for _, f := range []string{echo.CAFile, echo.CertFile, echo.KeyFile, pinger.CertFile, pinger.KeyFile} {
		fmt.Fprintln(stdout, f)
	}
	return nil
}
