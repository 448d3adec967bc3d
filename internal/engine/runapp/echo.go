package runapp

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/driver"
)

func echoFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "listen", Value: "127.0.0.1:0", Usage: "address to listen at (port 0: any free port)"},
		&cli.StringFlag{Name: "transport", Required: true, Usage: "transport name"},
		&cli.BoolFlag{Name: "reliable", Usage: "reliable mode of the transport"},
		&cli.StringFlag{Name: "ca", Usage: "secure transports: CA certificate the pinger is verified against (PEM)"},
		&cli.StringFlag{Name: "cert", Usage: "secure transports: this echoer's certificate (PEM)"},
		&cli.StringFlag{Name: "key", Usage: "secure transports: this echoer's private key (PEM)"},
		&cli.IntFlag{Name: "cpu", Value: -1, Usage: "pin the echo process to this CPU"},
		&cli.IntFlag{Name: "max-message-size", Value: 16384, Usage: "largest message in bytes"},
		&cli.IntFlag{Name: "queue-depth", Usage: "queue depth in messages (default: the transport's)"},
		&cli.BoolFlag{Name: "stdin-lifeline", Usage: "exit when standard input closes (set by a parent run)"},
	}
}

func echoAction(c *cli.Context) error {
	tr, err := driver.Lookup(c.String("transport"))
	if err != nil {
		return cliapp.Usagef("--transport: %v", err)
	}
	opts := driver.Options{Reliable: c.Bool("reliable"), MaxMessageSize: c.Int("max-message-size"), QueueDepth: c.Int("queue-depth")}
	if ca, cert, key := c.String("ca"), c.String("cert"), c.String("key"); ca != "" || cert != "" || key != "" {
		if ca == "" || cert == "" || key == "" {
			return cliapp.Usagef("--ca, --cert and --key go together")
		}
		opts.Security = &driver.Security{CAFile: ca, CertFile: cert, KeyFile: key}
	}
	// The whole echo process runs on its CPU, as under taskset.
	if err := pinProcess(c.Int("cpu")); err != nil {
		return cliapp.Exit(cliapp.ExitUsage, err)
	}
	ctx, cancel := context.WithCancel(c.Context)
	defer cancel()
	e, err := tr.Listen(ctx, c.String("listen"), opts)
	if err != nil {
		return cliapp.Exit(cliapp.ExitUsage, fmt.Errorf("cannot listen at %s with %s: %w", c.String("listen"), tr.Name(), err))
	}
	defer e.Close()
	fmt.Fprintln(c.App.Writer, e.Addr())
	if f, ok := c.App.Writer.(interface{ Sync() error }); ok {
		f.Sync()
	}
	if c.Bool("stdin-lifeline") {
		go func() {
			io.Copy(io.Discard, os.Stdin)
			cancel()
		}()
	}
	// Stopped by SIGINT/SIGTERM or the lifeline, Serve returns nil: the
	// normal way to end an echoer.
	return e.Serve(ctx)
}
