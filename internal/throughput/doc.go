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
// ends it, until Windows (100) windows are complete; each window gives one
// sample, messages / window length. The samples' median (with mean and
// population standard deviation) is the throughput at F, in msg/s and Mb/s
// (10^6 bit/s of payload).
//
// The best F is searched: F = 1, 10, 100, … (an exponential scale, base
// 10) until the median falls; then the bracket around the best F is
// bisected — its larger side is halved and the midpoint measured, which
// either becomes the best or narrows the bracket — until the bracket is
// narrower than 1% of its mean, whose mean is the chosen F (the method's
// optimal F). Every step is reported as it is measured.
//
// The medians of the steps are noisy, and the largest of some twenty noisy
// medians overstates the throughput at its F (the winner's curse: about
// +2% at 10% window noise, TestSearchWithoutWinnersCurse). The figure
// reported is therefore a confirmation: the chosen F measured again after
// the search, with a distribution-free 95% interval of its median, and the
// bracket's ends measured again beside it.
// Each step opens links of its own on a topic of its own, so that messages
// of one step never reach the next.
package throughput
