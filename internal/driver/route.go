package driver

// Route says which transport carries a sub-experiment and how.
type Route struct {
	Type         string // sub-experiment name, SPEC §1
	Transport    string // registry name
	Reliable     bool
	Interprocess bool // the echoer runs in another process (or host)
}

// builtinRoutes maps the ten Fast-RTPS sub-experiment names onto transports.
// Interprocess without "_tcp" means UDPv4; "_security" adds DTLS or TLS.
var builtinRoutes = []Route{
	{"intraprocess_best_effort", Intraprocess, false, false},
	{"intraprocess_reliable", Intraprocess, true, false},
	{"interprocess_best_effort", UDP, false, true},
	{"interprocess_best_effort_security", DTLS, false, true},
	{"interprocess_best_effort_tcp", TCP, false, true},
	{"interprocess_best_effort_tcp_security", TLS, false, true},
	{"interprocess_reliable", UDP, true, true},
	{"interprocess_reliable_security", DTLS, true, true},
	{"interprocess_reliable_tcp", TCP, true, true},
	{"interprocess_reliable_tcp_security", TLS, true, true},
}

// BuiltinRoutes returns the routes of the ten built-in sub-experiments in
// SPEC §1 order.
func BuiltinRoutes() []Route {
	return append([]Route(nil), builtinRoutes...)
}

// RouteOf returns the route of a built-in sub-experiment.
func RouteOf(typ string) (Route, bool) {
	for _, r := range builtinRoutes {
		if r.Type == typ {
			return r, true
		}
	}
	return Route{}, false
}
