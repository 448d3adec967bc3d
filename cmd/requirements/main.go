// Command requirements derives latency requirements from many experiments;
// see internal/requirementsapp.
package main

import (
	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/requirementscmd"
)

func main() { cliapp.Main(requirementscmd.App()) }
