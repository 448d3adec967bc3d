package cliapp

import (
	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/report"
)

// ReportFlags returns a file flag per report format (report.Formats),
// named prefix+format ("junit", "gate-junit"), in the registry's order.
func ReportFlags(prefix, usagePrefix string) []cli.Flag {
	flags := make([]cli.Flag, len(report.Formats))
	for i, f := range report.Formats {
		flags[i] = &cli.StringFlag{Name: prefix + f.Flag, TakesFile: true, Usage: usagePrefix + f.Usage}
	}
	return flags
}

// Reports reads the flags of ReportFlags: the files asked for, by format.
func Reports(c *cli.Context, prefix string) map[string]string {
	paths := map[string]string{}
	for _, f := range report.Formats {
		paths[f.Flag] = c.String(prefix + f.Flag)
	}
	return paths
}
