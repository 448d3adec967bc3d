package runapp

import (
	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/roles"
)

// The distributed roles: run pub, sub, req and qry (internal/roles).
func init() {
	for i := range roles.Commands() {
		addSubcommand(func() *cli.Command { return roles.Commands()[i] })
	}
}
