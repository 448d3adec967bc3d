package runapp

import (
	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/cliapp/rolescmd"
)

// The distributed roles: run pub, sub, req and qry (internal/cliapp/rolescmd).
func init() {
	for i := range rolescmd.Commands() {
		addSubcommand(func() *cli.Command { return rolescmd.Commands()[i] })
	}
}

// withRoleFlags gives run itself the roles' --run-id, --out-dir,
// --prom-port, --log-level and --config (run --run-id X pub …), refused
// before anything but a role.
func withRoleFlags(a *cli.App) {
	a.Flags = append(a.Flags, rolescmd.TopFlags()...)
	before := a.Before
	a.Before = func(c *cli.Context) error {
		if err := rolescmd.CheckTopFlags(c); err != nil {
			return err
		}
		if before != nil {
			return before(c)
		}
		return nil
	}
}
