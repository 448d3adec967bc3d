package subexp

import "testing"

// TestValid: the ten Fast-RTPS names and the broker scopes are names;
// wrong case, a missing or unknown reliability, spaces and extra parts are not.
func TestValid(t *testing.T) {
	for _, n := range []string{
		"intraprocess_best_effort", "intraprocess_reliable", "interprocess_best_effort",
		"interprocess_best_effort_security", "interprocess_best_effort_tcp", "interprocess_best_effort_tcp_security",
		"interprocess_reliable", "interprocess_reliable_security", "interprocess_reliable_tcp",
		"interprocess_reliable_tcp_security", "amqp_reliable_security", "mqtt_exactly_once", "zenoh2_best_effort_udp",
	} {
		if !Valid(n) {
			t.Errorf("Valid(%q) = false", n)
		}
	}
	for _, n := range []string{
		"", "Bad Name", "interprocess", "interprocess_Reliable", "interprocess_fast", "_reliable",
		"1mqtt_reliable", "mqtt_reliable_tcp_udp", "mqtt_reliable_security_tcp", "mqtt_reliable ",
	} {
		if Valid(n) {
			t.Errorf("Valid(%q) = true", n)
		}
	}
}
