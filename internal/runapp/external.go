package runapp

// The external-program driver defines its sub-experiment by its flags
// (--external-command, --external-name).
import _ "github.com/mqgate/mqgate/internal/driver/external"
