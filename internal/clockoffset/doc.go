// Package clockoffset estimates how far the clock of another host is from
// this one's, so that one-way latencies measured across hosts (receive time
// on one host minus send time on another) can be corrected.
//
// The estimate comes from ping-pong exchanges between two roles, as NTP's:
// the client sends at t1 (its clock), the server stamps the arrival t2 and
// the reply t3 (its clock), the client receives at t4. Then
//
//	offset = ((t2 − t1) + (t3 − t4)) / 2   the server's clock minus the client's
//	delay  = (t4 − t1) − (t3 − t2)          the round trip on the wire
//
// which is exact when both directions take as long, and otherwise off by at
// most delay/2. A server that gives one stamp (t2 = t3) is the half-RTT
// baseline: its stamp is taken to be the midpoint of the round trip.
//
// Queuing inflates some exchanges' delays, and an inflated exchange is as
// asymmetric as its queuing. The filter therefore keeps the exchanges with
// the smallest delays (NTP's minimum filter: the lowest quarter, at least
// one). Each puts the true offset within delay/2 of its own offset; the
// estimate is the middle of the intersection of those intervals and the
// bound of its error half the intersection's width, at most half the
// smallest delay. Kept exchanges that contradict each other (an empty
// intersection: a clock stepped) give way to the one of the smallest delay. The estimate can be disabled (Disabled): then nothing
// is exchanged and latencies are left as measured.
package clockoffset
