package runapp

// The transports register themselves by name from init.
import (
	_ "github.com/mqgate/mqgate/internal/driver/intraprocess"
	_ "github.com/mqgate/mqgate/internal/driver/udp"
)
