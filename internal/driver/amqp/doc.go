// Package amqp is the "amqp" transport: RabbitMQ, or any AMQP 0-9-1 broker,
// through github.com/rabbitmq/amqp091-go. It registers four sub-experiments
// (formats §1): amqp_best_effort, amqp_reliable, amqp_best_effort_security
// and amqp_reliable_security.
//
// # Set-up
//
// Every end is set up as RabbitMQ's own throughput tool (PerfTest) sets up
// its producers and consumers: a publishing connection and a consuming
// connection, one channel each, so that publishing never waits behind
// deliveries (RabbitMQ's flow control acts per connection); each consuming
// connection declares an exclusive, auto-delete queue (the pinger's named
// by the broker) and messages travel through the default exchange, whose
// routing key is the queue's name. Connections are named after their end, role and topic
// ("mqgate pinger consuming mqgate-…-amqp_reliable"), as rabbitmqctl
// list_connections and the management UI show them.
//
// A round trip is four connections. The echoer (Listen) consumes from the
// queue Options.Topic+".ping" and republishes every message, body
// unchanged, to the queue its reply_to property names. The pinger (Dial)
// publishes to that queue with its own queue, named by the broker, as
// reply_to, and consumes the echoes. Both are given only the broker URL and
// meet by topic (run gives each sub-experiment a topic of its own); the
// echoer's queue is exclusive, so a second echoer of a topic is refused.
// Without a topic the broker names the echoer's queue too, and the pinger
// finds it by address: Echoer.Addr is the broker URL with the echoer's
// queue as the fragment, amqp://USER:PASSWORD@HOST:PORT/VHOST#amq.gen-…,
// which Dial parses; it carries the URL's credentials, so it is redacted
// (driver.RedactURL) wherever it is shown. Several pingers may share one
// echoer: each has its own reply queue.
//
// One-way traffic (StreamTransport) uses the same roles: Subscribe consumes
// from the queue the URL's fragment names, else the queue named
// Options.Topic, else one named by the broker (Subscriber.Addr names it);
// Publish publishes to the fragment's queue or to Options.Topic.
// --amqp-exchange routes everything through an existing exchange instead
// (amq.direct, amq.topic): queues are bound to it under Options.Topic (or
// their own name), so every subscriber of a topic gets every message.
//
// # Best effort and reliable
//
//   - best effort: transient messages (delivery mode 1), consumers in
//     auto-ack mode (the broker forgets a message once sent), no publisher
//     confirms;
//   - reliable: persistent messages (delivery mode 2), publisher confirms
//     (confirm.select), manual acknowledgements (basic.ack after each
//     delivery), and durable queues: RabbitMQ writes a persistent message
//     to disk only in a durable queue, so persistence would otherwise be a
//     label (--amqp-durable=false measures it so anyway).
//
// The parameters the RabbitMQ throughput method varies are flags of every
// mode, independent of the sub-experiment's name (auto keeps the name's
// choice): --amqp-auto-ack, --amqp-persistent (delivery mode 2 or 1;
// --amqp-durable auto follows it), --amqp-tx-size (messages per producer
// transaction, alias --amqp-producer-tx-size), --amqp-consumer-tx-size,
// --amqp-mandatory and --amqp-immediate. RabbitMQ removed immediate in
// 3.0 (it closes the connection of a publish that sets it, 540
// NOT_IMPLEMENTED): --amqp-immediate true is refused with that reason
// before anything connects (CheckParams). meta.json records every value.
//
// A reliable Send returns once the message is written to the connection;
// confirmations arrive later on a goroutine that drains amqp091's
// NotifyPublish channel (amqp091 abandons a notification that waits more
// than five seconds, so the channel must never fill). One-way publishers
// implement driver.AckSender: OnAck is called once per message, nil for a
// basic.ack, an error wrapping ErrNacked for a basic.nack (a full queue
// with overflow reject-publish, an internal error); WaitAcks waits for the
// outstanding ones. The echoer acknowledges a delivery right after
// republishing it and does not wait for its own confirmation; refusals
// are counted (Counters().Errors).
//
// # Transactions
//
// --amqp-tx-size N publishes in AMQP transactions: tx.select once, then
// tx.commit after every N messages. RabbitMQ refuses confirm.select on a
// transactional channel and tx.select on a confirming one, so with
// transactions a reliable end uses them instead of confirms: a commit is
// the acknowledgement (OnAck is called for each message of a transaction
// when tx.commit-ok arrives, with an error when the commit fails). A
// message is routed only when its transaction commits, so a round trip,
// with one message in flight, accepts N = 1 only. One-way publishers take
// any N and implement driver.BatchSender: FlushBatch commits an open
// transaction, which run throughput does before waiting for deliveries
// (fewer than N messages in flight would otherwise never commit), run
// burst at the end of each burst and run permessage after the last
// message; WaitAcks (run load's drain) commits one too.
//
// --amqp-consumer-tx-size N puts the consuming channel in transaction mode
// and commits after every N acknowledgements: until then the broker counts
// the deliveries as unacknowledged (a prefetch limit holds the next ones
// back). It needs manual acknowledgements and no smaller --amqp-prefetch;
// both round trips and one-way subscribers use it.
//
// # Mandatory publishing, prefetch
//
// With --amqp-mandatory, messages no queue takes come back (basic.return)
// and are counted as dropped (Counters().Dropped). RabbitMQ still confirms
// them (basic.return precedes basic.ack), so they are not refusals to
// OnAck; returns are drained before each confirmation is counted, and
// after each commit, so once every message is confirmed or committed every
// return is counted. A pinger whose ping comes back has lost its echoer's
// queue: Receive fails at once, where without the flag the message is
// dropped silently and the engine sees timeouts. A one-way publisher's
// next Send, and WaitAcks, fail once a message came back, with the count
// and the broker's reason: one-way runs stop rather than measure messages
// that went nowhere.
//
// --amqp-prefetch sets basic.qos on the consuming channel of acknowledging
// ends (per consumer in RabbitMQ); auto-ack consumers ignore it.
//
// # Queues named by the broker
//
// As the method sets its consumer up, --amqp-queue server gives each
// one-way subscriber an exclusive, auto-delete queue named by the broker
// (amq.gen-…) with no binding but the default exchange's; a publisher of
// the same process given the broker URL and the topic routes to it by that
// name (the run's ends share a process). A topic then has one subscriber
// (several need --amqp-exchange, competing consumers a named queue). The
// default, topic, names the queue after the topic. A round trip's pinger
// always consumes from a queue named by the broker.
//
// # Roles
//
// The roles (run pub|sub|req|qry) run on one connection opened as the
// ends' publishing link, through amq.topic, queries by RabbitMQ's direct
// reply-to (roles.go). A pub counts as sent what the broker confirmed
// (driver.Confirmer), asked every 100 ms: reliable, its publisher confirms
// of every message up to then; best effort, which does not switch
// publisher confirms on (the broker would track and acknowledge each
// message, which is not what best effort measures), the return of a mark
// the client publishes after the messages on their channel, mandatory, to
// no queue: a channel routes its messages in order. What was published
// after the last confirmation when the link breaks stays unconfirmed. In
// transactions (--amqp-tx-size) the client is no Confirmer: a Confirm
// would commit, changing the transactions measured, so what it took
// counts as sent, and Flush commits the last transaction.
//
// # Arrival time
//
// amqp091 hands deliveries over on a Go channel, fed by the connection's
// reader goroutine through one buffering goroutine per consumer. Receive
// reads the clock as a delivery comes off that channel: in a round trip
// Receive is already waiting, so this is the moment the library delivers;
// a one-way subscriber that falls behind times messages when it gets to
// them, as the application it stands for would.
//
// # Failures
//
// Receive returns an error wrapping driver.ErrTimeout when nothing arrived
// before its deadline. It returns at once, with a non-timeout error, when
// either connection of the end is closed (by the broker, e.g. rabbitmqctl
// close_connection: CONNECTION_FORCED, or by a network failure), when a
// channel is closed by a channel exception, when the broker cancels the
// consumer (its queue was deleted), or, with --amqp-mandatory, when a ping
// is returned. Serve returns such errors too. Connection errors name the
// URL without its password: an unreachable broker, refused credentials
// (ACCESS_REFUSED), an unknown or forbidden virtual host (NOT_ALLOWED),
// a missing exchange, and TLS refusals on either side.
//
// # TLS
//
// The _security sub-experiments dial amqps://; an amqp:// URL is switched
// to amqps:// on --amqp-tls-port (5671). The broker's certificate is
// verified against Options.Security.CAFile and the URL's host (or
// Security.ServerName), and the client presents Security.CertFile when
// given. TLS 1.2 is the minimum (RabbitMQ offers TLS 1.3 only when its
// ssl_options.versions say so); SystemInfo records the version used. A
// broker cannot use certificates generated for one run, so these
// sub-experiments take --ca, --cert and --key from the CA the broker was
// configured with: tools/certgen writes such a set with the generator run
// uses (README, "AMQP (RabbitMQ)").
//
// # Message size
//
// RabbitMQ refuses messages larger than max_message_size, 128 MiB by
// default (DefaultMaxMessageSize), by closing the channel. A message travels as a
// method frame, a header frame and body frames of at most frame_max − 8
// bytes; the client proposes --amqp-frame-max (131072, RabbitMQ's default)
// and the broker may lower it.
//
// # Flags
//
// amqp-url (MQGATE_AMQP_URL, default amqp://guest:guest@127.0.0.1:5672/,
// secret: never recorded), amqp-tls-port, amqp-mandatory, amqp-prefetch,
// amqp-tx-size (amqp-producer-tx-size), amqp-consumer-tx-size,
// amqp-auto-ack and amqp-persistent (auto, true, false), amqp-immediate
// (refused), amqp-queue (topic, server), amqp-exchange, amqp-durable
// (auto, true, false), amqp-frame-max, amqp-heartbeat. SystemInfo reports the server's product
// and version (e.g. RabbitMQ 3.10.8), its cluster name and platform, the
// negotiated frame_max and heartbeat, and the mode measured.
package amqp
