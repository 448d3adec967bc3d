//! The message header every measured message carries (docs/formats.md §9).
//!
//! All integers are little-endian. A message carries as much of the header as
//! its size allows; the smallest message mqgate-zenoh sends is 16 bytes, which
//! holds the send time and the sequence word.
//!
//! | bytes  | field                                                            |
//! |--------|------------------------------------------------------------------|
//! | 0–7    | u64 send time, ns since the Unix epoch (the intended send time)  |
//! | 8–15   | u64 sequence word: bits 0–39 sequence number, bits 40–55 publisher id, bits 56–63 flags |
//! | 16     | u8 header version (1)                                            |
//! | 17     | u8 reserved (0)                                                  |
//! | 18–19  | u16 topic id                                                     |
//! | 20–23  | u32 run id                                                       |
//! | 24–    | filler: byte i holds i mod 251                                   |
//!
//! The send time comes first so that mqgate's one-way rule (formats §2: the
//! first 8 bytes are the send time) holds for every message.

/// Smallest message the helper sends: send time and sequence word.
pub const MIN_SIZE: usize = 16;
/// Size of the full header.
pub const FULL_SIZE: usize = 24;
/// Header version written at byte 16.
pub const VERSION: u8 = 1;

/// Largest sequence number (40 bits).
pub const MAX_SEQ: u64 = (1 << 40) - 1;

/// Flag: a warm-up message, not measured.
pub const FLAG_WARMUP: u8 = 0x01;
/// Flag: the publisher finished this payload; the sequence field holds how
/// many measured messages of this payload it sent.
pub const FLAG_END_PAYLOAD: u8 = 0x02;
/// Flag: with FLAG_END_PAYLOAD, the publisher's last payload of the run.
pub const FLAG_END_RUN: u8 = 0x04;
/// Flag: a probe sent to find out whether the far end is there.
pub const FLAG_PROBE: u8 = 0x08;

/// Header is the decoded header of one message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Header {
    pub send_ns: u64,
    pub seq: u64,
    pub publisher: u16,
    pub flags: u8,
    /// Present only when the message holds the full header.
    pub topic: Option<u16>,
    pub run_id: Option<u32>,
}

impl Header {
    /// The packed sequence word (bytes 8–15).
    pub fn seq_word(&self) -> u64 {
        (self.seq & MAX_SEQ) | (u64::from(self.publisher) << 40) | (u64::from(self.flags) << 56)
    }

    /// Writes the header into the start of msg, as much of it as fits.
    /// msg must be at least MIN_SIZE bytes.
    pub fn encode(&self, msg: &mut [u8]) {
        assert!(msg.len() >= MIN_SIZE, "message of {} bytes is shorter than the header", msg.len());
        msg[0..8].copy_from_slice(&self.send_ns.to_le_bytes());
        msg[8..16].copy_from_slice(&self.seq_word().to_le_bytes());
        if msg.len() >= FULL_SIZE {
            msg[16] = VERSION;
            msg[17] = 0;
            msg[18..20].copy_from_slice(&self.topic.unwrap_or(0).to_le_bytes());
            msg[20..24].copy_from_slice(&self.run_id.unwrap_or(0).to_le_bytes());
        }
    }

    /// Reads the header at the start of msg. It returns an error for a
    /// message too short to hold the send time and sequence word, or one whose
    /// version byte is not VERSION.
    pub fn decode(msg: &[u8]) -> Result<Header, String> {
        if msg.len() < MIN_SIZE {
            return Err(format!("message of {} bytes is shorter than the {MIN_SIZE}-byte header", msg.len()));
        }
        let send_ns = u64::from_le_bytes(msg[0..8].try_into().unwrap());
        let word = u64::from_le_bytes(msg[8..16].try_into().unwrap());
        let mut h = Header {
            send_ns,
            seq: word & MAX_SEQ,
            publisher: ((word >> 40) & 0xffff) as u16,
            flags: (word >> 56) as u8,
            topic: None,
            run_id: None,
        };
        if msg.len() >= FULL_SIZE {
            if msg[16] != VERSION {
                return Err(format!("header version {} (expected {VERSION})", msg[16]));
            }
            h.topic = Some(u16::from_le_bytes(msg[18..20].try_into().unwrap()));
            h.run_id = Some(u32::from_le_bytes(msg[20..24].try_into().unwrap()));
        }
        Ok(h)
    }

    pub fn is(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }
}

/// Returns a message of size bytes with the filler pattern after the header.
pub fn new_message(size: usize) -> Vec<u8> {
    (0..size).map(|i| (i % 251) as u8).collect()
}

/// Reads only the sequence word of msg, or None when it is too short.
pub fn seq_word(msg: &[u8]) -> Option<u64> {
    msg.get(8..16).map(|b| u64::from_le_bytes(b.try_into().unwrap()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_full() {
        let h = Header {
            send_ns: 1_700_000_000_123_456_789,
            seq: MAX_SEQ,
            publisher: 65535,
            flags: FLAG_END_PAYLOAD | FLAG_END_RUN,
            topic: Some(7),
            run_id: Some(0xdead_beef),
        };
        let mut m = new_message(64);
        h.encode(&mut m);
        assert_eq!(Header::decode(&m).unwrap(), h);
        // The filler after the header is untouched.
        assert_eq!(m[24], 24);
        assert_eq!(m[63], 63);
    }

    #[test]
    fn short_message_carries_time_and_sequence() {
        let h = Header { send_ns: 42, seq: 9, publisher: 3, flags: FLAG_WARMUP, topic: Some(5), run_id: Some(1) };
        let mut m = new_message(16);
        h.encode(&mut m);
        let got = Header::decode(&m).unwrap();
        assert_eq!(got, Header { topic: None, run_id: None, ..h });
        assert!(got.is(FLAG_WARMUP) && !got.is(FLAG_PROBE));
        assert_eq!(seq_word(&m), Some(h.seq_word()));
    }

    #[test]
    fn layout_is_little_endian_at_fixed_offsets() {
        let h = Header {
            send_ns: 0x0102030405060708,
            seq: 0x0a0b0c0d0e,
            publisher: 0x1122,
            flags: 0x33,
            topic: Some(0x4455),
            run_id: Some(0x66778899),
        };
        let mut m = vec![0u8; 24];
        h.encode(&mut m);
        assert_eq!(
            m,
            [
                0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, // send time
                0x0e, 0x0d, 0x0c, 0x0b, 0x0a, 0x22, 0x11, 0x33, // seq, publisher, flags
                1, 0, 0x55, 0x44, 0x99, 0x88, 0x77, 0x66, // version, reserved, topic, run id
            ]
        );
    }

    #[test]
    fn sequence_is_masked_to_40_bits() {
        let h = Header { seq: MAX_SEQ + 5, ..Default::default() };
        let mut m = vec![0u8; 16];
        h.encode(&mut m);
        assert_eq!(Header::decode(&m).unwrap().seq, 4);
    }

    #[test]
    fn rejects_short_and_foreign() {
        assert!(Header::decode(&[0u8; 15]).unwrap_err().contains("15 bytes"));
        let mut m = new_message(24);
        Header::default().encode(&mut m);
        m[16] = 9;
        assert!(Header::decode(&m).unwrap_err().contains("version 9"));
        assert_eq!(seq_word(&[0u8; 10]), None);
    }
}
