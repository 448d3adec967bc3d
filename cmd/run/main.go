// Command run measures round-trip latency and writes raw results; see
// 'run --help'.
package main

import (
	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/runcmd"
)

func main() { cliapp.Main(runcmd.App()) }
