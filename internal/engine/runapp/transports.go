package runapp

// The transports register themselves by name from init.
import (
	_ "github.com/mqgate/mqgate/internal/driver/intraprocess"
	_ "github.com/mqgate/mqgate/internal/driver/secure"
	_ "github.com/mqgate/mqgate/internal/driver/tcp"
	"github.com/mqgate/mqgate/internal/driver/udp"
)

// Reliable datagram defaults, written into meta.json when the flags leave
// them unset, so that the record holds the values used.
var (
	defaultRetransmitTimeout = udp.DefaultRetransmitTimeout
	defaultMaxRetries        = udp.DefaultMaxRetries
)
