// Package mqtt is the "mqtt" transport: round trips and one-way traffic
// through an MQTT broker, over MQTT 3.1.1 or MQTT 5 (--mqtt-version).
//
// # Sub-experiments
//
// Six sub-experiments are registered, each a round trip between two
// clients of the broker, at one QoS:
//
//   - mqtt_best_effort: QoS 0, at most once. The broker forwards each
//     PUBLISH and acknowledges nothing; a message it or a client drops is
//     lost, and the pinger is no AckSender.
//   - mqtt_reliable: QoS 1, at least once. The broker answers each PUBLISH
//     with PUBACK and delivers it with a PUBLISH of its own that the
//     subscriber acknowledges.
//   - mqtt_exactly_once: QoS 2, exactly once: PUBLISH, PUBREC, PUBREL,
//     PUBCOMP on each leg.
//   - the same three with _security: over TLS (mqtts://), the broker's
//     certificate verified against Options.Security.CAFile (never
//     skipped), the client certificate presented when one is given.
//
// A round trip's latency is the time from the pinger's PUBLISH to
// <topic>/ping to the arrival of the echo on <topic>/pong: two passes
// through the broker and the echo client's handler. At QoS 1 and 2 the
// pinger does not wait for its PUBACK or PUBCOMP before the echo: the
// acknowledgements are counted on the side (driver.AckSender), as the
// engine waits for them at the end of each payload. The topic is
// Options.Topic (run makes one per sub-experiment and run); the echo
// subscribes to <topic>/ping and republishes each message unchanged, from
// the library's message handler, to <topic>/pong at the same QoS.
//
// One-way modes publish to and subscribe from <topic> itself (Publish,
// Subscribe); the publisher is an AckSender at QoS 1 and 2.
//
// # Clients
//
// MQTT 3.1.1 uses github.com/eclipse/paho.mqtt.golang, MQTT 5
// github.com/eclipse/paho.golang's paho.Client (not autopaho, which
// reconnects). Both connect with a clean session (MQTT 5: clean start,
// session expiry 0), ordered delivery and reconnection off: a lost
// connection is an error that names the broker, returned by Receive,
// Send and Serve, so that a run stops at once instead of measuring
// retries. A broker that refuses the connection is named (without
// password) with the CONNACK code and its meaning. Client identifiers are
// <prefix>-<role>-<8 hex digits>.
//
// The arrival time of a message is taken first thing in the library's
// message handler, the earliest moment the library hands it over; the
// handler passes the payload (which the libraries allocate per packet) to
// Receive without copying it. At QoS 0 a Receive that falls behind
// Options.QueueDepth messages makes the handler drop (counted in
// Counters().Dropped); at QoS 1 and 2 the handler waits, holding back the
// library and through it the broker. A one-way subscriber also hands its
// messages to a consumer in the handler itself (Consume, driver.Consumer,
// what run load uses), after those queued for Receive: no hop to another
// goroutine, and a slow consumer holds back the library at every QoS. Both libraries read a packet's header
// byte by byte, so their connection reads through a buffer; paho.golang
// writes a packet as several buffers, which are gathered into one write.
// paho.mqtt.golang writes later, on its own goroutine, so Send copies the
// message for it; that copy is the driver's one allocation per message
// (see TestPingerAllocs for the libraries' own).
//
// MQTT 3.1.1 has no flow control: a publisher keeps at most
// --mqtt-max-inflight QoS 1 and 2 messages awaiting acknowledgement
// (Mosquitto drops QoS 2 messages beyond its max_inflight_messages, 20 by
// default). MQTT 5 clients keep to the Receive Maximum and Maximum Packet
// Size the broker declares in its CONNACK.
//
// # Roles
//
// The roles (run pub|sub|req|qry) run over MQTT 5 on the ends' client
// (roles.go): publish/subscribe at the ends' QoS, request/response by the
// Response Topic and Correlation Data properties. A pub counts as sent what
// the broker confirmed (driver.Confirmer), asked every 100 ms: at QoS 1 and
// 2 each publish waits for its PUBACK or PUBCOMP (a refusal is an error),
// so every message the client took was; at QoS 0, which the broker
// acknowledges nothing of, its PINGRESP to a PINGREQ sent after the
// messages on their connection, since a broker reads a connection in order
// (Mosquitto and mochi-mqtt route each PUBLISH before they read the next
// packet). What was written after the last PINGRESP when the link breaks
// stays unconfirmed.
//
// # Broker
//
// MessageLimit is the protocol's limit, 268,435,455 bytes for a whole
// PUBLISH less its topic and header, which Mosquitto (message_size_limit
// 0) and mochi-mqtt (MaximumPacketSize 0) accept by default. MQTT has no
// field for the broker's version: SystemInfo reads the retained
// $SYS/broker/version once (--mqtt-version-topic), which Mosquitto
// publishes as "mosquitto version 2.0.11", and records what an MQTT 5
// broker declared in its CONNACK. StartEmbedded runs mochi-mqtt
// (github.com/mochi-mqtt/server/v2) in this process on a free loopback
// port, letting every client in, with a TLS listener and the run's
// certificates when Options.Security is set.
//
// With Mosquitto's default set_tcp_nodelay false, a round trip at QoS 1
// or 2 waits about 40 ms for Nagle's algorithm: the broker holds the echo
// until the PUBACK it sent just before is acknowledged by TCP, which the
// pinger's host delays. Set set_tcp_nodelay true on a broker measured for
// latency.
package mqtt
