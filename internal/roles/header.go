package roles

import "github.com/mqgate/mqgate/internal/load"

// Messages carry internal/load's header (formats §9, shared with
// mqgate-zenoh), so that Go roles, run load and the helper read each other's
// messages. Roles need the whole header (the run id): HeaderSize bytes.
const HeaderSize = load.HeaderSize

// roleHeader builds a header.
func roleHeader(sendNs int64, seq uint64, publisher uint16, flags uint8, topic uint16, run uint32) load.Header {
	return load.Header{SendNs: uint64(sendNs), Seq: seq, Publisher: publisher, Flags: flags, Topic: topic, RunID: run}
}
