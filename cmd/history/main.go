// Command history plots latency across experiments (commits, nightly builds)
// against the requirements; see internal/history.
package main

import (
	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/history"
)

func main() { cliapp.Main(history.App()) }
