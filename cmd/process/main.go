// Command process turns raw latency measurements into summaries, histograms,
// time series and sub-experiment comparison plots. See package process and
// 'process --help'.
package main

import (
	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/processcmd"
)

func main() { cliapp.Main(processcmd.App()) }
