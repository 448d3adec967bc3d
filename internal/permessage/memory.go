package permessage

import (
	"fmt"
	"math"

	"github.com/mqgate/mqgate/internal/engine"
)

// BytesPerMessage is what a run holds per message until its files are
// written, every payload's at once: O_n and I_n, then the message's row of
// permessage_<type>.csv. 2,000,000 messages of one payload peaked at
// 1.08 GB resident (540 B a message); a little is added for the rest.
const BytesPerMessage = 600

// memoryShare is the part of the available memory a run may take.
const memoryShare = 0.8

// CheckMemory refuses a run of count messages of each of payloads
// payloads that would not fit in the memory available, so that it fails
// at once with the numbers instead of being killed, everything it
// measured lost, when it writes its files.
func CheckMemory(count, payloads int) error {
	need := float64(count) * float64(payloads) * BytesPerMessage
	avail, source := engine.AvailableMemory()
	if need <= memoryShare*float64(avail) {
		return nil
	}
	gib := func(b float64) string { return fmt.Sprintf("%.1f GiB", b/math.Exp2(30)) }
	return fmt.Errorf("--count %d × %d payloads need about %s of memory (%d B a message, held until the files are written), more than %.0f%% of the %s available (%s); choose a smaller --count or fewer --payloads",
		count, payloads, gib(need), BytesPerMessage, memoryShare*100, gib(float64(avail)), source)
}
