package driver

import (
	"strconv"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/meta"
)

// advisingTransport advises whenever asked, saying the median it was given.
type advisingTransport struct{ fakeTransport }

func (advisingTransport) Advice(sub meta.SubExperiment, p50 time.Duration) string {
	return "p50 " + p50.String() + " for " + sub.Params["k"]
}

// TestAdvice: driver.Advice asks the sub-experiment's transport, when it
// is an Advisor, with the lowest of the payloads' medians (payloads
// without samples left out), and makes its answer a warning line; a
// transport that is no Advisor, an unknown one, or no samples give none.
func TestAdvice(t *testing.T) {
	adv := "test-advice-" + strconv.FormatInt(registrations.Add(1), 10)
	Register(advisingTransport{fakeTransport{adv}})
	plain := "test-plain-" + strconv.FormatInt(registrations.Add(1), 10)
	Register(fakeTransport{plain})
	payloads := []PayloadResult{
		{Nanos: []int64{9000, 7000, 8000}}, // median 8 µs
		{},                                 // no samples
		{Nanos: []int64{3000, 2000, 1000, 50000}}, // median 3 µs (upper middle)
	}
	sub := meta.SubExperiment{Type: "fake_reliable", Transport: adv, Params: map[string]string{"k": "v"}}
	if got, want := Advice(sub, payloads), "warning: fake_reliable: p50 3µs for v\n"; got != want {
		t.Errorf("Advice = %q, want %q", got, want)
	}
	if got := Advice(sub, []PayloadResult{{}}); got != "" {
		t.Errorf("Advice without samples = %q, want none", got)
	}
	for _, name := range []string{plain, "no-such-transport"} {
		sub.Transport = name
		if got := Advice(sub, payloads); got != "" {
			t.Errorf("Advice for transport %s = %q, want none", name, got)
		}
	}
}
