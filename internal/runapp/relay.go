package runapp

// The relay driver defines its sub-experiment by its flags (--relay-command,
// --relay-name): an adapter speaking docs/relay.md on its standard streams.
import _ "github.com/mqgate/mqgate/internal/driver/relay"
