// Command compare gates an experiment against a reference experiment: it
// fails (exit 1) when a latency regressed beyond a threshold. See
// package compare and 'compare --help'.
package main

import (
	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/comparecmd"
)

func main() { cliapp.Main(comparecmd.App()) }
