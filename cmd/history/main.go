// Command history plots latency across experiments (commits, nightly builds)
// against the requirements; see internal/history.
package main

import (
	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/historycmd"
)

func main() { cliapp.Main(historycmd.App()) }
