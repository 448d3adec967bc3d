package roles

import (
	"bytes"
	"testing"

	"github.com/mqgate/mqgate/internal/load"
)

// TestHeader checks that role messages carry the helper's header layout
// (formats §9) byte for byte, through internal/load.
func TestHeader(t *testing.T) {
	b := make([]byte, 30)
	roleHeader(0x0102030405060708, 5, 0x0301, load.FlagEndPayload|load.FlagEndRun, 7, 0xA0B0C0D0).Put(b)
	load.Fill(b)
	want := []byte{8, 7, 6, 5, 4, 3, 2, 1, 5, 0, 0, 0, 0, 1, 3, 6, 1, 0, 7, 0, 0xD0, 0xC0, 0xB0, 0xA0, 24, 25, 26, 27, 28, 29}
	if !bytes.Equal(b, want) {
		t.Fatalf("header bytes\n%v\nwant\n%v", b, want)
	}
}
