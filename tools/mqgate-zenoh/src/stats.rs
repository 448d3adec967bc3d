//! Counting what arrived: per-publisher sequence tracking and latency
//! histograms.

use base64::Engine as _;
use hdrhistogram::serialization::{Serializer as _, V2DeflateSerializer};
use hdrhistogram::Histogram;

use crate::output::LatencyStats;

/// Largest sequence number a tracker accepts (2^32): the seen-set costs one
/// bit per number, so a corrupt header must not make it allocate terabytes.
pub const MAX_TRACKED_SEQ: u64 = 1 << 32;

/// StreamTracker follows the sequence numbers of one publisher's messages of
/// one payload: duplicates, out-of-order arrivals and, at the end, losses.
#[derive(Debug, Default, Clone)]
pub struct StreamTracker {
    seen: Vec<u64>,
    pub unique: u64,
    pub duplicates: u64,
    pub out_of_order: u64,
    max_seq: Option<u64>,
    /// How many measured messages the publisher said it sent (its end
    /// marker), when that marker arrived.
    pub sent: Option<u64>,
}

/// What observing one sequence number found.
#[derive(Debug, PartialEq, Eq)]
pub enum Seen {
    First,
    Duplicate,
    OutOfRange,
}

impl StreamTracker {
    /// Observe records seq. A number below the largest seen so far, seen for
    /// the first time, is counted out of order.
    pub fn observe(&mut self, seq: u64) -> Seen {
        if seq >= MAX_TRACKED_SEQ {
            return Seen::OutOfRange;
        }
        let (word, bit) = ((seq / 64) as usize, seq % 64);
        if word >= self.seen.len() {
            self.seen.resize((word + 1).next_power_of_two(), 0);
        }
        if self.seen[word] & (1 << bit) != 0 {
            self.duplicates += 1;
            return Seen::Duplicate;
        }
        self.seen[word] |= 1 << bit;
        self.unique += 1;
        match self.max_seq {
            Some(m) if seq < m => self.out_of_order += 1,
            _ => self.max_seq = Some(seq),
        }
        Seen::First
    }

    /// Lost is how many measured messages never arrived: the count the
    /// publisher's end marker announced, or, without it, one more than the
    /// largest number seen (messages lost after the last arrival are then
    /// not counted, which the summary says by its ended field).
    pub fn lost(&self) -> u64 {
        let expected = self.sent.unwrap_or(self.max_seq.map_or(0, |m| m + 1));
        expected.saturating_sub(self.unique)
    }
}

/// Latency histogram in nanoseconds, 3 significant digits up to 10 s. The
/// lowest discernible value is 1 ns: HdrHistogram resolves the first bucket
/// no finer than its lowest discernible value, so a 1 µs floor would round a
/// 30 µs latency to 512 ns steps, far from 3 digits.
pub struct LatencyHistogram {
    h: Histogram<u64>,
    above_range: u64,
}

pub const HIST_LOW_NS: u64 = 1;
pub const HIST_HIGH_NS: u64 = 10_000_000_000;
pub const HIST_SIGFIG: u8 = 3;

impl Default for LatencyHistogram {
    fn default() -> Self {
        LatencyHistogram {
            h: Histogram::new_with_bounds(HIST_LOW_NS, HIST_HIGH_NS, HIST_SIGFIG).expect("valid histogram bounds"),
            above_range: 0,
        }
    }
}

impl LatencyHistogram {
    /// Record adds one latency in nanoseconds. Values above 10 s are recorded
    /// as 10 s and counted in above_range.
    pub fn record(&mut self, ns: u64) {
        if ns > HIST_HIGH_NS {
            self.above_range += 1;
        }
        self.h.saturating_record(ns);
    }

    /// Stats summarises the histogram, with the histogram itself encoded in
    /// HdrHistogram's V2 compressed format, base64.
    pub fn stats(&self) -> Option<LatencyStats> {
        if self.h.is_empty() {
            return None;
        }
        let mut raw = Vec::new();
        V2DeflateSerializer::new().serialize(&self.h, &mut raw).expect("serialize histogram");
        Some(LatencyStats {
            count: self.h.len(),
            min_ns: self.h.min(),
            p50_ns: self.h.value_at_quantile(0.5),
            p90_ns: self.h.value_at_quantile(0.9),
            p99_ns: self.h.value_at_quantile(0.99),
            p999_ns: self.h.value_at_quantile(0.999),
            max_ns: self.h.max(),
            mean_ns: self.h.mean().round() as u64,
            above_range: self.above_range,
            hdr: base64::engine::general_purpose::STANDARD.encode(raw),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_order_stream_with_end_marker() {
        let mut t = StreamTracker::default();
        for s in 0..100 {
            assert_eq!(t.observe(s), Seen::First);
        }
        t.sent = Some(100);
        assert_eq!((t.unique, t.duplicates, t.out_of_order, t.lost()), (100, 0, 0, 0));
    }

    #[test]
    fn gaps_duplicates_and_reordering() {
        let mut t = StreamTracker::default();
        for s in [0, 1, 3, 2, 3, 7, 5] {
            t.observe(s);
        }
        // 0 1 3 2 7 5 unique; 3 duplicated; 2 and 5 arrived after larger numbers.
        assert_eq!((t.unique, t.duplicates, t.out_of_order), (6, 1, 2));
        // Without an end marker: 8 expected (0..=7), 4 and 6 missing.
        assert_eq!(t.lost(), 2);
        // The marker says 10 were sent: 8 and 9 were lost too.
        t.sent = Some(10);
        assert_eq!(t.lost(), 4);
    }

    #[test]
    fn empty_stream_loses_what_was_announced() {
        let mut t = StreamTracker::default();
        assert_eq!(t.lost(), 0);
        t.sent = Some(5);
        assert_eq!(t.lost(), 5);
    }

    #[test]
    fn huge_sequence_numbers_are_refused() {
        let mut t = StreamTracker::default();
        assert_eq!(t.observe(MAX_TRACKED_SEQ), Seen::OutOfRange);
        assert_eq!(t.unique, 0);
        assert!(t.seen.is_empty());
    }

    #[test]
    fn histogram_summary_and_encoding() {
        let mut h = LatencyHistogram::default();
        assert!(h.stats().is_none());
        for v in 1..=1000u64 {
            h.record(v * 1000); // 1 µs .. 1 ms
        }
        h.record(20_000_000_000); // 20 s: clamped to 10 s
        let s = h.stats().unwrap();
        assert_eq!(s.count, 1001);
        assert_eq!(s.above_range, 1);
        assert_eq!(s.min_ns, 1000);
        // 3 significant digits at 29.696 µs, where mqgate's latencies are.
        let mut small = LatencyHistogram::default();
        small.record(29_696);
        let v = small.stats().unwrap().p50_ns;
        assert!((29_696..=29_726).contains(&v), "{v}");
        // 3 significant digits: within 0.1 %.
        assert!((s.p50_ns as f64 - 501_000.0).abs() / 501_000.0 < 1e-3, "p50 {}", s.p50_ns);
        assert!(s.max_ns >= HIST_HIGH_NS && (s.max_ns as f64) < HIST_HIGH_NS as f64 * 1.001);
        let raw = base64::engine::general_purpose::STANDARD.decode(&s.hdr).unwrap();
        let mut d = hdrhistogram::serialization::Deserializer::new();
        let back: Histogram<u64> = d.deserialize(&mut raw.as_slice()).unwrap();
        assert_eq!(back.len(), 1001);
        assert_eq!(back.value_at_quantile(0.5), s.p50_ns);
    }
}
