// Package throughput measures the maximum throughput of a link with a
// bounded number of messages in flight (the RabbitMQ throughput method),
// and writes the throughput summary CSV of formats §9 (result.WriteThroughput).
//
// One publisher keeps F messages in flight towards one subscriber: it
// sends while fewer than F measured messages are unreceived and waits for a
// delivery otherwise (a message not delivered within Timeout is taken for
// lost and frees its place). Throughput at F is measured once 2F messages
// were received: the subscriber cuts its deliveries into windows of at
// least MinWindow (10 ms), closing a window at the first delivery that
// ends it, until Windows (100) windows are complete. The windows end to
// end are the measured period: the messages delivered in it over its
// length are the delivered rate at F, what the link carried; each window
// also gives one sample, messages / window length, whose median, mean and
// population standard deviation are the method's statistics, reported
// beside it (the median of windows overstates what was delivered when
// deliveries come in bursts).
//
// The best F is searched by the delivered rate: F = 1, 10, 100, … (an
// exponential scale, base 10) until the rate falls; then the bracket around
// the best F is bisected — its larger side is halved and the midpoint
// measured, which either becomes the best or narrows the bracket — until
// the bracket is narrower than 1% of its mean, whose mean is the chosen F
// (the method's optimal F). Before bisecting, the scale's best F is
// measured Periods (5) times in all, which gives the standard deviation s
// of the rate between measurements; the bisection stops, and says so, once
// neither end of the bracket differs from its best by more than 1.96·√2·s:
// further steps would chase the noise, and the chosen F is then the
// bracket's best point (its mean, in a wide bracket, was never measured).
// Every step is reported as it is measured.
//
// The rates of the steps are noisy, and the largest of some twenty noisy
// rates overstates the throughput at its F (the winner's curse,
// TestSearchWithoutWinnersCurse). The figure reported is therefore a
// confirmation: the chosen F measured again Periods times after the
// search, each period on links of its own; the headline is the messages
// delivered in all of them over their measured time, beside a 95%
// prediction interval of one more period (Student's t over the periods'
// rates: where an independent re-measurement is expected), the pooled
// windows' statistics, and the bracket's ends measured again.
// Each step opens links of its own on a topic of its own, so that messages
// of one step never reach the next.
//
// LoadRows and WriteLoadSummary give run load the same throughput summary
// (fromload.go). The per-message method, run permessage, is
// internal/permessage.
package throughput
