package load

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/mqgate/mqgate/internal/suggest"
)

// Scenario names (mq-bench's and MQTT-bench's topologies).
const (
	FanIn       = "fan-in"       // N publishers, one subscriber, one topic
	FanOut      = "fan-out"      // one publisher, M subscribers, one topic
	StraightRun = "straight-run" // N publisher→subscriber pairs, a topic each
	RoundRobin  = "round-robin"  // N publishers, M subscribers, T topics: publisher i on topic i mod T, subscriber j on topic j mod T; each message to one subscriber of its topic
)

// Scenarios lists the scenario names.
var Scenarios = []string{FanIn, FanOut, StraightRun, RoundRobin}

// Topology places publishers and subscribers on topics.
type Topology struct {
	Scenario    string
	Publishers  int
	Subscribers int
	Topics      int
	// PubTopic and SubTopic are each end's topic index.
	PubTopic, SubTopic []int
}

// NewTopology builds scenario with pubs publishers, subs subscribers and
// topics topics; a zero count takes the scenario's default (fan-in: 1
// subscriber; fan-out: 1 publisher; straight-run: as many subscribers and
// topics as publishers; round-robin: min(pubs, subs) topics). A count the
// scenario fixes must be that or zero.
func NewTopology(scenario string, pubs, subs, topics int) (Topology, error) {
	t := Topology{Scenario: scenario}
	if pubs < 0 || subs < 0 || topics < 0 {
		return t, fmt.Errorf("publishers %d, subscribers %d, topics %d: expected counts ≥ 1 (0: the scenario's default)", pubs, subs, topics)
	}
	fixed := func(what string, v, want int) error {
		if v != 0 && v != want {
			return fmt.Errorf("scenario %s: %d %s, expected %d", scenario, v, what, want)
		}
		return nil
	}
	switch scenario {
	case FanIn:
		t.Publishers = cmp.Or(pubs, 1)
		if err := fixed("subscribers", subs, 1); err != nil {
			return t, fmt.Errorf("%w: fan-in gathers every publisher's messages at one subscriber; for several subscribers of one topic use round-robin (each message to one of them) or fan-out with one publisher (each message to each)", err)
		}
		if err := fixed("topics", topics, 1); err != nil {
			return t, err
		}
		t.Subscribers, t.Topics = 1, 1
	case FanOut:
		t.Subscribers = cmp.Or(subs, 1)
		if err := cmp.Or(fixed("publishers", pubs, 1), fixed("topics", topics, 1)); err != nil {
			return t, err
		}
		t.Publishers, t.Topics = 1, 1
	case StraightRun:
		t.Publishers = cmp.Or(pubs, subs, 1)
		if err := cmp.Or(fixed("subscribers", subs, t.Publishers), fixed("topics", topics, t.Publishers)); err != nil {
			return t, err
		}
		t.Subscribers, t.Topics = t.Publishers, t.Publishers
	case RoundRobin:
		t.Publishers, t.Subscribers = cmp.Or(pubs, 1), cmp.Or(subs, 1)
		t.Topics = cmp.Or(topics, min(t.Publishers, t.Subscribers))
		if t.Topics > min(t.Publishers, t.Subscribers) {
			return t, fmt.Errorf("scenario %s: %d topics for %d publishers and %d subscribers: expected at most %d, so that every topic has a publisher and a subscriber",
				scenario, t.Topics, t.Publishers, t.Subscribers, min(t.Publishers, t.Subscribers))
		}
	default:
		if near := suggest.NearestName(scenario, Scenarios); near != "" {
			return t, fmt.Errorf("scenario %q: expected one of %s: did you mean %s?", scenario, strings.Join(Scenarios, ", "), near)
		}
		return t, fmt.Errorf("scenario %q: expected one of %s", scenario, strings.Join(Scenarios, ", "))
	}
	if t.Publishers > 1<<16 || t.Topics > 1<<16 {
		return t, fmt.Errorf("%d publishers, %d topics: the header numbers at most 65536 of each", t.Publishers, t.Topics)
	}
	t.PubTopic, t.SubTopic = make([]int, t.Publishers), make([]int, t.Subscribers)
	for _, ends := range [][]int{t.PubTopic, t.SubTopic} {
		for i := range ends {
			ends[i] = i % t.Topics
		}
	}
	return t, nil
}

// SubscribersOf returns the subscribers of topic.
func (t Topology) SubscribersOf(topic int) []int { return onTopic(t.SubTopic, topic) }

// PublishersOf returns the publishers of topic.
func (t Topology) PublishersOf(topic int) []int { return onTopic(t.PubTopic, topic) }

// onTopic returns the ends whose topic, in topics, is topic.
func onTopic(topics []int, topic int) []int {
	var out []int
	for i, tp := range topics {
		if tp == topic {
			out = append(out, i)
		}
	}
	return out
}

// Shared reports whether the subscribers of a topic compete for its
// messages (round-robin: a queue group, a shared subscription, one queue
// with several consumers) instead of each getting every one.
func (t Topology) Shared() bool { return t.Scenario == RoundRobin }

// Reach returns how many subscribers each message on topic reaches: one
// when they compete (Shared), else every subscriber of the topic.
func (t Topology) Reach(topic int) uint64 {
	n := uint64(len(t.SubscribersOf(topic)))
	if t.Shared() {
		return min(n, 1)
	}
	return n
}

// Expected returns how many deliveries the measured messages should make:
// each message of publisher i (sent[i] of them) reaches Reach of its
// topic.
func (t Topology) Expected(sent []uint64) uint64 {
	var n uint64
	for i, s := range sent {
		n += s * t.Reach(t.PubTopic[i])
	}
	return n
}

// String describes t: "fan-in 4×1 on 1 topic".
func (t Topology) String() string {
	topics := "topics"
	if t.Topics == 1 {
		topics = "topic"
	}
	return fmt.Sprintf("%s %d×%d on %d %s", t.Scenario, t.Publishers, t.Subscribers, t.Topics, topics)
}
