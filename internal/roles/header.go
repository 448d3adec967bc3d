package roles

import (
	"encoding/binary"
	"errors"
)

// The message header is mqgate-zenoh's (formats §9), so that a Go role and
// a helper role read each other's messages.
const (
	HeaderSize    = 24
	headerVersion = 1

	FlagWarmup = 0x01
	FlagEnd    = 0x02 // end of payload: the sequence field holds the count sent
	FlagEndRun = 0x04
	FlagProbe  = 0x08

	seqBits = 40
	seqMask = 1<<seqBits - 1
)

// Header is the start of every message a role sends.
type Header struct {
	SendNs    int64 // ns since the Unix epoch; a publisher's intended send time
	Seq       uint64
	Publisher uint16
	Flags     uint8
	Topic     uint16
	RunID     uint32
}

// Put writes h into b (len(b) ≥ HeaderSize) and fills the rest as the
// helper does: byte i holds i mod 251.
func (h Header) Put(b []byte) {
	binary.LittleEndian.PutUint64(b[0:], uint64(h.SendNs))
	binary.LittleEndian.PutUint64(b[8:], h.Seq&seqMask|uint64(h.Publisher)<<seqBits|uint64(h.Flags)<<56)
	b[16] = headerVersion
	b[17] = 0
	binary.LittleEndian.PutUint16(b[18:], h.Topic)
	binary.LittleEndian.PutUint32(b[20:], h.RunID)
}

// Fill writes the filler after the header.
func Fill(b []byte) {
	for i := HeaderSize; i < len(b); i++ {
		b[i] = byte(i % 251)
	}
}

// ErrShort is returned for a message shorter than the header.
var ErrShort = errors.New("message shorter than the 24-byte header")

// ParseHeader reads the header of msg.
func ParseHeader(msg []byte) (Header, error) {
	if len(msg) < HeaderSize {
		return Header{}, ErrShort
	}
	if msg[16] != headerVersion {
		return Header{}, errors.New("unknown header version")
	}
	w := binary.LittleEndian.Uint64(msg[8:])
	return Header{
		SendNs:    int64(binary.LittleEndian.Uint64(msg)),
		Seq:       w & seqMask,
		Publisher: uint16(w >> seqBits),
		Flags:     uint8(w >> 56),
		Topic:     binary.LittleEndian.Uint16(msg[18:]),
		RunID:     binary.LittleEndian.Uint32(msg[20:]),
	}, nil
}
