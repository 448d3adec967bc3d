package driver

// LoopbackIfEmpty is where an end listens when no address is given: any
// free port of the loopback interface, 127.0.0.1:0. Every listener binds
// loopback unless told otherwise (an address with another host, or
// ":PORT" for every interface, given deliberately).
func LoopbackIfEmpty(addr string) string {
	if addr == "" {
		return "127.0.0.1:0"
	}
	return addr
}
