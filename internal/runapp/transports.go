package runapp

// The transports register themselves and their sub-experiments by name
// from init: every system is one line here (the external program and the
// relay adapter define their sub-experiment by their flags).
import (
	_ "github.com/mqgate/mqgate/internal/driver/amqp"
	_ "github.com/mqgate/mqgate/internal/driver/external"
	_ "github.com/mqgate/mqgate/internal/driver/intraprocess"
	_ "github.com/mqgate/mqgate/internal/driver/mqtt"
	_ "github.com/mqgate/mqgate/internal/driver/nats"
	_ "github.com/mqgate/mqgate/internal/driver/relay"
	_ "github.com/mqgate/mqgate/internal/driver/secure"
	_ "github.com/mqgate/mqgate/internal/driver/tcp"
	_ "github.com/mqgate/mqgate/internal/driver/udp"
	_ "github.com/mqgate/mqgate/internal/driver/zenoh"
)
