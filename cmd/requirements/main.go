// Command requirements derives latency requirements from many experiments;
// see internal/requirements.
package main

import (
	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/requirements"
)

func main() { cliapp.Main(requirements.App()) }
