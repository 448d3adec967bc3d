// Command check checks an experiment against latency requirements and exits
// 1 when one is violated; see internal/check.
package main

import (
	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/checkcmd"
)

func main() { cliapp.Main(checkcmd.App()) }
