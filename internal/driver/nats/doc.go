// Package nats is the "nats" transport: round trips and one-way traffic
// through a NATS server, with github.com/nats-io/nats.go as the client and
// github.com/nats-io/nats-server/v2 as the server that --broker embedded
// starts inside the process.
//
// # Sub-experiments
//
//   - nats_best_effort: core NATS publish/subscribe. At most once: the
//     server forwards each message to the subscribers connected at that
//     moment and keeps nothing; a message nobody is subscribed to, or one a
//     slow subscriber cannot take, is gone (nats.go's drops are counted as
//     Dropped; Options.QueueDepth sets how many messages a subscription
//     queues first, else nats.go's 65536 for a pinger or echo and its
//     pending limit of 500,000 messages for a one-way subscriber).
//   - nats_reliable: JetStream, at least once (see below).
//   - nats_best_effort_security, nats_reliable_security: the same over TLS.
//
// # Subjects
//
// Every end works on Options.Topic (DefaultTopic when empty; run gives each
// run its own). A round trip uses two subjects: the pinger publishes on
// <topic>.ping, the echo subscribes to it and publishes each message,
// unchanged, on <topic>.pong, where the pinger receives it. One-way
// publishers and subscribers use <topic> itself. Each end has its own
// connection, named "mqgate pinger", "mqgate echo", … in the server's
// monitoring.
//
// # What reliable means here
//
// nats_reliable measures the path an application that relies on JetStream
// for at-least-once delivery takes, each step acknowledged:
//
//   - the stream MQGATE_<topic> (StreamName) captures <topic> and <topic>.>,
//     with file storage (--nats-storage memory for RAM), --nats-replicas
//     replicas and interest retention: a message is deleted once every
//     consumer acknowledged it, so a long run does not fill the disk;
//   - publishing waits for the stream's acknowledgement that it stored the
//     message (PublishAsync: the pinger's Send returns once the message is
//     handed to the client, and the acknowledgement reaches
//     AckSender.OnAck; after a refusal Send fails, and a pinger waiting
//     for the echo reports the refusal instead of a timeout);
//   - each receiving end reads through its own durable pull consumer
//     (filtered on its subject, delivering only what is published after it
//     was created) and acknowledges every message explicitly after copying
//     it (--nats-double-ack also waits for the server to confirm the
//     acknowledgement);
//   - the echo republishes a ping on <topic>.pong through JetStream and
//     acknowledges the ping only once the stream stored the pong, so a
//     crash in between redelivers the ping rather than losing it.
//
// An ordered consumer would not do: it acknowledges nothing and keeps its
// state in memory, so it measures a best-effort read of a stream. An
// ephemeral consumer keeps its acknowledgement state in memory too; a
// durable one persists it with the stream, which is what a restart-safe
// application uses. Consumers are deleted when their end closes, and the
// stream by the end that created it (the echo in a round trip); a run that
// crashed leaves consumers that the server removes after 10 minutes of
// inactivity, and the empty stream. Messages the server redelivered (no
// acknowledgement within the consumer's 30 s AckWait) are counted as
// Retransmitted. nats-server writes file storage to disk without an fsync
// per message unless it runs with sync_interval: always; the storage and
// server version are recorded in meta.json.
//
// # Timing and allocations
//
// A pinger's and an echo's Receive wait on the channel nats.go's reader
// goroutine hands messages to (a synchronous subscription, or the JetStream
// consumer's message iterator), so the arrival time is read the moment the
// library delivers a message to the receiving goroutine, with no hop of
// mqgate's own. A core one-way subscriber subscribes with a handler, as
// `nats bench` does: nats.go calls it on the subscription's own goroutine,
// which reads the arrival time and either queues the message for Receive
// (Options.QueueDepth, default 1024, then nats.go's pending list behind it)
// or, after Consume (driver.Consumer, what run load uses), passes it to the
// consumer there and then, with no further hop. nats.go
// allocates a Msg, its subject and a copy of the payload for every message
// it delivers, which no option avoids: a core round trip allocates 6
// objects across pinger and echo, a JetStream one about 58.
//
// By default nats.go writes what Publish buffers from a flusher goroutine;
// --nats-write-buffer 1 makes the publishing goroutine write each message
// itself.
//
// # Failures
//
// The engine's ends never reconnect: a run whose link to the server broke
// stops with an error naming the URL (without its password or token)
// instead of silently measuring a new link. A role's client
// (run pub|sub|req|qry) does reconnect, up to 4 times a quarter of its
// --timeout apart, and then reports the connection lost; it confirms
// what it published by a PING (driver.Confirmer), and a span the link
// broke in stays unconfirmed, since nats.go drops what it had not written
// then, and what it held while reconnecting when it gives up. Receive returns an error wrapping
// driver.ErrClosed when the connection is lost and driver.ErrTimeout only
// when nothing arrived in time; unreachable servers, refused credentials,
// TLS failures, servers without JetStream and messages over the server's
// max_payload are reported as such at Dial, Listen, Subscribe or Publish.
//
// # TLS
//
// With Options.Security the client verifies the server's certificate
// against Security.CAFile (and its host name, or Security.ServerName), and
// presents Security's certificate when it has one; verification is never
// skipped. The embedded server then serves only TLS with that certificate
// and requires client certificates signed by the same CA.
//
// # Message size
//
// NATS refuses messages over the server's max_payload (DefaultMaxPayload, 1
// MiB, unless configured). Dial and Publish fail when Options.LargestMessage
// exceeds the connected server's value; connected ends report it in their
// SystemInfo (max_payload), the Transport's MessageLimit is the default.
//
// # Settings
//
// The transport's flags (Flags) arrive in Options.Params: --nats-url
// (MQGATE_NATS_URL, default nats://127.0.0.1:4222), credentials
// (--nats-user and --nats-password, --nats-token, --nats-creds,
// --nats-nkey; the embedded server requires the user and password or token
// given), JetStream storage, replicas, double acknowledgement and pull
// batch, nats.go's write buffer and the connection timeout.
package nats
