// Command check checks an experiment against latency requirements and exits
// 1 when one is violated; see internal/check.
package main

import (
	"github.com/mqgate/mqgate/internal/check"
	"github.com/mqgate/mqgate/internal/cliapp"
)

func main() { cliapp.Main(check.App()) }
