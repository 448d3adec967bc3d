package permessage

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/mqgate/mqgate/internal/result"
)

// CPUReading is one reading of a CPU-time counter: U ns of CPU time at T
// ns since the run's origin (U < 0: the counter is not available; T < 0:
// never read, the message never arrived).
type CPUReading struct{ U, T int64 }

// CPUSeries is one participant's CPU time, read every k-th message: R[j]
// at the (j·k)-th message, R[0] before the first.
type CPUSeries struct {
	// Resolution is the counter's step in ns: 1 for a CPU clock, 10 ms for
	// the ticks of /proc.
	Resolution int64
	R          []CPUReading
}

// minSteps is the number of counter steps a window spans at least, so
// that a step is at most 5 % of the window's CPU use measured.
const minSteps = 20

func newCPUSeries(windows int, resolution int64) CPUSeries {
	return CPUSeries{Resolution: max(resolution, 1), R: slices.Repeat([]CPUReading{{-1, -1}}, windows+1)}
}

func (s *CPUSeries) read(j int, u, t int64) { s.R[j] = CPUReading{u, t} }

// CPUUse is the CPU time spent over a run of messages.
type CPUUse struct {
	// Percent is C_n of the method, (U_n − U_{n−k}) / (T_n − T_{n−k}), in
	// % of a core.
	Percent float64
	// PerMessage is the same CPU time in ns per message.
	PerMessage float64
}

var noUse = CPUUse{math.NaN(), math.NaN()}

// taken returns how many readings were taken, all of them from R[0] on.
func (s CPUSeries) taken() int {
	if j := slices.IndexFunc(s.R, func(r CPUReading) bool { return r.T < 0 }); j >= 0 {
		return j
	}
	return len(s.R)
}

// use is the CPU use from R[a] to R[b] over every messages a step, NaN
// when the counter is not available or the span is too short for its
// resolution.
func (s CPUSeries) use(a, b, every int) CPUUse {
	ra, rb := s.R[a], s.R[b]
	dt := rb.T - ra.T
	if ra.U < 0 || rb.U < 0 || dt <= 0 || dt < minSteps*s.Resolution {
		return noUse
	}
	du := float64(rb.U - ra.U)
	return CPUUse{Percent: 100 * du / float64(dt), PerMessage: du / float64((b-a)*every)}
}

// Windows returns the CPU use of each k-message window j (ending at
// message (j+1)·k). A window shorter than minSteps steps of the counter is
// merged with the next ones until it is long enough, and each of them
// reports the merged use (the method's assumption: the load is spread
// evenly over the messages of a window); NaN where the counter is not
// available or the whole run is below its resolution.
func (s CPUSeries) Windows(every int) []CPUUse {
	if len(s.R) == 0 { // never read (a record made without this series)
		return nil
	}
	out := slices.Repeat([]CPUUse{noUse}, len(s.R)-1)
	end := s.taken() - 1 // the last reading
	span := minSteps * s.Resolution
	for a := 0; a < end; {
		b := a + 1
		for b < end && s.R[b].T-s.R[a].T < span {
			b++
		}
		if s.R[end].T-s.R[b].T < span {
			b = end // the rest is too short on its own
		}
		u := s.use(a, b, every)
		for j := a; j < b; j++ {
			out[j] = u
		}
		a = b
	}
	return out
}

// Overall is the CPU use from the first reading to the last, of those
// read (a reading preempted at every try is left unread).
func (s CPUSeries) Overall(every int) CPUUse {
	a, b := 0, s.taken()-1
	for a < b && s.R[a].U < 0 {
		a++
	}
	for b > a && s.R[b].U < 0 {
		b--
	}
	if b > a {
		return s.use(a, b, every)
	}
	return noUse
}

// Note says why the series has no values, or "".
func (s CPUSeries) Note() string {
	end := s.taken() - 1
	switch {
	case end < 1:
		return ""
	case !slices.ContainsFunc(s.R[:s.taken()], func(r CPUReading) bool { return r.U >= 0 }): // no reading was read
		return "not available"
	case s.R[end].T-s.R[0].T < minSteps*s.Resolution:
		return fmt.Sprintf("below resolution: %s steps over a %s run", result.Elapsed(time.Duration(s.Resolution)), result.Elapsed(time.Duration(s.R[end].T-s.R[0].T)))
	}
	return ""
}

// cpuReason says why series s of p has no figure, or "": no sample at all
// when fewer messages than CPUEvery were sent (or, sender false, were
// delivered: the receiver's, client's and broker's readings are taken at
// the k-th delivery), else its Note.
func (p *Record) cpuReason(s CPUSeries, sender bool) string {
	k := p.CPUEvery
	switch {
	case len(s.R) == 0: // never read
		return ""
	case len(s.R) == 1: // no reading after the first was due
		return fmt.Sprintf("no sample: %d messages sent, fewer than --cpu-every %d, so no CPU sample was taken", len(p.O), k)
	case s.taken() > 1:
		return s.Note()
	case sender:
		return fmt.Sprintf("no sample: sending stopped before message %d of --cpu-every %d, so no CPU sample was taken", k, k)
	}
	return fmt.Sprintf("no sample: %d messages delivered, fewer than --cpu-every %d, so no CPU sample was taken", len(p.O)-p.Lost, k)
}

// brokerLabel names the Broker series: the broker, or the rest of this
// process on a link without a broker.
func (p *Record) brokerLabel() string {
	if p.NoBroker {
		return RestOfProcessLabel
	}
	return "broker"
}

// cpuNotes are the Notes of the sender's, receiver's, client's and
// broker's CPU quantities: why a figure is missing, the broker's led by
// what it is on a link without a broker.
func (p *Record) cpuNotes() []string {
	notes := p.cpuReasons()
	if p.NoBroker {
		lead := RestOfProcessLabel + " (no broker)"
		if notes[3] != "" {
			lead += "; " + notes[3]
		}
		notes[3] = lead
	}
	return notes
}

// cpuReasons are cpuReason of the sender's, receiver's, client's and
// broker's series, in that order.
func (p *Record) cpuReasons() []string {
	return []string{p.cpuReason(p.Sender, true), p.cpuReason(p.Receiver, false), p.cpuReason(p.Client, false), p.cpuReason(p.Broker, false)}
}
