package load

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
)

// The message header (formats §9, shared with mqgate-zenoh): little-endian,
// as far as the message size allows. The smallest message is 16 bytes, which
// holds the send time and the sequence word.
const (
	// MinMessage is the smallest message a publisher sends: send time and
	// sequence word.
	MinMessage = 16
	// HeaderSize is the full header: send time, sequence word, version,
	// reserved, topic id, run id.
	HeaderSize = 24
	// Version is the header version written at byte 16.
	Version = 1

	// MaxSeq is the largest sequence number (40 bits).
	MaxSeq = 1<<40 - 1
)

// Flags of the sequence word (bits 56–63).
const (
	FlagWarmup     = 0x01 // sent during the warm-up: not measured
	FlagEndPayload = 0x02 // end of a payload: Seq holds how many measured messages the publisher sent
	FlagEndRun     = 0x04 // end of the run (with FlagEndPayload)
	FlagProbe      = 0x08 // a connection probe: not measured
)

// Header is what a publisher writes at the start of every message.
type Header struct {
	// SendNs is the send time in ns since the Unix epoch: under an
	// open-loop rate the slot's intended send time, else the time Send
	// was called.
	SendNs uint64
	// Seq counts from 0 per publisher and payload (40 bits); warm-up
	// messages are numbered on their own.
	Seq       uint64
	Publisher uint16
	Flags     uint8
	// Topic and RunID follow when the message has HeaderSize bytes.
	Topic uint16
	RunID uint32
}

// Put writes h into msg as far as it fits; msg must hold at least
// MinMessage bytes.
func (h Header) Put(msg []byte) {
	binary.LittleEndian.PutUint64(msg[0:], h.SendNs)
	binary.LittleEndian.PutUint64(msg[8:], h.seqWord())
	if len(msg) >= HeaderSize {
		msg[16] = Version
		msg[17] = 0
		binary.LittleEndian.PutUint16(msg[18:], h.Topic)
		binary.LittleEndian.PutUint32(msg[20:], h.RunID)
	}
}

// PutTime rewrites only the send time of a message whose header was Put:
// the publisher's hot path writes the sequence word and the time.
func PutTime(msg []byte, sendNs uint64) { binary.LittleEndian.PutUint64(msg, sendNs) }

// PutSeq rewrites only the sequence word.
func (h Header) PutSeq(msg []byte) { binary.LittleEndian.PutUint64(msg[8:], h.seqWord()) }

func (h Header) seqWord() uint64 {
	return h.Seq&MaxSeq | uint64(h.Publisher)<<40 | uint64(h.Flags)<<56
}

// Parse reads the header of msg. full reports whether the version, topic
// id and run id were there. A message under MinMessage bytes, or one whose
// version byte is not Version, is an error.
func Parse(msg []byte) (h Header, full bool, err error) {
	if len(msg) < MinMessage {
		return h, false, fmt.Errorf("a %d-byte message is shorter than the %d-byte header", len(msg), MinMessage)
	}
	h.SendNs = binary.LittleEndian.Uint64(msg)
	w := binary.LittleEndian.Uint64(msg[8:])
	h.Seq = w & MaxSeq
	h.Publisher = uint16(w >> 40)
	h.Flags = uint8(w >> 56)
	if len(msg) < HeaderSize {
		return h, false, nil
	}
	if msg[16] != Version {
		return h, true, fmt.Errorf("header version %d, expected %d", msg[16], Version)
	}
	h.Topic = binary.LittleEndian.Uint16(msg[18:])
	h.RunID = binary.LittleEndian.Uint32(msg[20:])
	return h, true, nil
}

// NewMessage returns a payload-byte message: a header holding runID, then the filler.
func NewMessage(payload int, runID uint32) ([]byte, Header) {
	msg := make([]byte, payload)
	h := Header{RunID: runID}
	h.Put(msg)
	Fill(msg)
	return msg, h
}

// Fill writes the filler after the header: byte i holds i mod 251, so that
// a corrupted message shows and compression gains nothing.
func Fill(msg []byte) {
	for i := HeaderSize; i < len(msg); i++ {
		msg[i] = byte(i % 251)
	}
}

// Padding is what fills a load message after its header (the MQTT-bench
// spec's configurable padding).
type Padding string

// The paddings: Random (the spec's default) is a seeded pseudo-random
// stream, different for each publisher and payload and the same for the
// same seed; Zeros is all zero bytes (what a compressing system shrinks
// most); Pattern is Fill's byte i mod 251.
const (
	PaddingRandom  Padding = "random"
	PaddingZeros   Padding = "zeros"
	PaddingPattern Padding = "pattern"
)

// Paddings lists the paddings for help texts and errors.
var Paddings = []Padding{PaddingRandom, PaddingZeros, PaddingPattern}

// ParsePadding reads a padding name.
func ParsePadding(s string) (Padding, error) {
	if p := Padding(s); slices.Contains(Paddings, p) {
		return p, nil
	}
	return "", fmt.Errorf("padding %q: expected random, zeros or pattern", s)
}

// Fill writes the padding after msg's header: for Random, the stream of
// seed for publisher pub (its bytes do not depend on the header, so a
// message's padding is fixed for the payload while its header changes).
func (p Padding) Fill(msg []byte, seed uint64, pub int) {
	switch p {
	case PaddingZeros:
		clear(msg[min(HeaderSize, len(msg)):])
	case PaddingPattern:
		Fill(msg)
	default:
		r := rand.New(rand.NewPCG(seed, uint64(pub)<<32|uint64(len(msg))))
		for i := HeaderSize; i < len(msg); i++ {
			msg[i] = byte(r.Uint32())
		}
	}
}
