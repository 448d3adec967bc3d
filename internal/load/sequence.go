package load

// SeqWindow is how many recent sequence numbers a Tracker remembers: a
// message older than that relative to the newest is taken for a late first
// arrival (out of order), never for a duplicate.
const SeqWindow = 1 << 16

// Tracker follows the sequence numbers of one publisher as one subscriber
// receives them: gaps, duplicates and messages that arrive after a later
// one. It is used by one goroutine.
type Tracker struct {
	next    uint64 // newest sequence number seen + 1
	bits    [SeqWindow / 64]uint64
	started bool

	Unique     uint64 // distinct sequence numbers received
	Duplicates uint64 // second and later arrivals of a sequence number
	OutOfOrder uint64 // first arrivals after a later sequence number
	Gaps       uint64 // sequence numbers skipped and not (yet) filled
}

// Observe records the arrival of seq and reports whether it is the first
// arrival of that sequence number (a sample) rather than a duplicate.
func (t *Tracker) Observe(seq uint64) bool {
	if !t.started || seq >= t.next {
		from := t.next
		if !t.started {
			from, t.started = 0, true
		}
		t.Gaps += seq - from
		if seq-from >= SeqWindow {
			clear(t.bits[:])
		} else {
			for k := from; k < seq; k++ {
				t.clear(k)
			}
		}
		t.set(seq)
		t.next = seq + 1
		t.Unique++
		return true
	}
	if t.next-seq <= SeqWindow { // else too old to tell: a late first arrival
		if t.isSet(seq) {
			t.Duplicates++
			return false
		}
		t.set(seq)
	}
	t.OutOfOrder++
	t.Unique++
	if t.Gaps > 0 {
		t.Gaps--
	}
	return true
}

// add adds the counts of o, another link's tracker of the same publisher
// and subscriber, or of a subscriber competing for its messages.
func (t *Tracker) add(o *Tracker) {
	t.Unique += o.Unique
	t.Duplicates += o.Duplicates
	t.OutOfOrder += o.OutOfOrder
}

// Lost returns how many of sent messages (numbered 0..sent−1) never
// arrived.
func (t *Tracker) Lost(sent uint64) uint64 {
	return sent - min(sent, t.Unique)
}

func (t *Tracker) set(k uint64)        { t.bits[(k/64)%(SeqWindow/64)] |= 1 << (k % 64) }
func (t *Tracker) clear(k uint64)      { t.bits[(k/64)%(SeqWindow/64)] &^= 1 << (k % 64) }
func (t *Tracker) isSet(k uint64) bool { return t.bits[(k/64)%(SeqWindow/64)]&(1<<(k%64)) != 0 }
