//! Open-loop send schedule of one publisher.
//!
//! Slot k is due at start + k·period, whatever happened to earlier slots: the
//! schedule never waits for the system under test (open loop). Each message
//! carries its slot's intended time, so a stall of the sender shows up as
//! latency instead of being hidden by a late send (coordinated omission). When
//! the sender is more than one period behind, the slots it can no longer send
//! on time are skipped and counted, rather than sent in a burst.

/// Schedule hands out send slots as offsets in nanoseconds from its start.
#[derive(Debug, Clone)]
pub struct Schedule {
    period_ns: u64,
    next_ns: u64,
    skipped: u64,
}

impl Schedule {
    /// A schedule of rate messages per second starting at offset phase_ns.
    /// rate must be positive and at most 1e9.
    pub fn new(rate: f64, phase_ns: u64) -> Schedule {
        assert!(rate > 0.0 && rate <= 1e9, "rate {rate} out of range");
        let period_ns = ((1e9 / rate).round() as u64).max(1);
        Schedule { period_ns, next_ns: phase_ns, skipped: 0 }
    }

    #[cfg(test)]
    pub fn period(&self) -> std::time::Duration {
        std::time::Duration::from_nanos(self.period_ns)
    }

    /// The offset at which the next slot is due.
    pub fn next_due(&self) -> u64 {
        self.next_ns
    }

    /// Slots skipped so far.
    #[cfg(test)]
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// Take returns the intended time of the slot to send now (now_ns is the
    /// current offset, at or after next_due). When now_ns is more than one
    /// period past the due slot, the missed slots are skipped (counted) and
    /// the latest slot that is due is returned.
    #[cfg(test)]
    pub fn take(&mut self, now_ns: u64) -> u64 {
        self.take_counting(now_ns, 0, u64::MAX).0
    }

    /// TakeCounting is take that also returns how many of the slots it
    /// skipped fall in [lo, hi): a skip that straddles the end of the
    /// warm-up or of the run counts only its measured slots.
    pub fn take_counting(&mut self, now_ns: u64, lo: u64, hi: u64) -> (u64, u64) {
        let behind = now_ns.saturating_sub(self.next_ns);
        let mut within = 0;
        if behind > self.period_ns {
            let n = behind / self.period_ns;
            // Slots next + j·period, j in [0, n): those at or after lo and
            // before hi.
            let first = |t: u64| if t <= self.next_ns { 0 } else { (t - self.next_ns).div_ceil(self.period_ns) };
            within = first(hi).min(n).saturating_sub(first(lo).min(n));
            self.skipped += n;
            self.next_ns += n * self.period_ns;
        }
        let slot = self.next_ns;
        self.next_ns += self.period_ns;
        (slot, within)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn on_time_slots_follow_the_period() {
        let mut s = Schedule::new(1000.0, 500);
        assert_eq!(s.period(), Duration::from_millis(1));
        assert_eq!(s.take(500), 500);
        assert_eq!(s.next_due(), 1_000_500);
        // Late but within one period: the slot is still sent, from its own
        // intended time.
        assert_eq!(s.take(1_900_000), 1_000_500);
        assert_eq!(s.skipped(), 0);
    }

    #[test]
    fn exactly_one_period_behind_is_not_skipped() {
        let mut s = Schedule::new(1000.0, 0);
        assert_eq!(s.take(1_000_000), 0);
        assert_eq!(s.skipped(), 0);
        assert_eq!(s.next_due(), 1_000_000);
    }

    #[test]
    fn more_than_one_period_behind_skips_forward() {
        let mut s = Schedule::new(1000.0, 0);
        s.take(0);
        // Due at 1 ms, woken at 4.5 ms: slots 1, 2 and 3 ms are skipped and
        // the 4 ms slot is sent.
        assert_eq!(s.take(4_500_000), 4_000_000);
        assert_eq!(s.skipped(), 3);
        assert_eq!(s.next_due(), 5_000_000);
        // A further stall adds to the count.
        assert_eq!(s.take(7_000_001), 7_000_000);
        assert_eq!(s.skipped(), 5);
    }

    #[test]
    fn skips_are_counted_within_a_window() {
        // Slots every 1 ms; the measured window is [2 ms, 5 ms).
        let (lo, hi) = (2_000_000, 5_000_000);
        let mut s = Schedule::new(1000.0, 0);
        assert_eq!(s.take_counting(0, lo, hi), (0, 0));
        // Woken at 6.5 ms: slots 1..=5 ms skipped, of which 2, 3 and 4 ms are
        // in the window; the 6 ms slot is returned.
        assert_eq!(s.take_counting(6_500_000, lo, hi), (6_000_000, 3));
        assert_eq!(s.skipped(), 5);
        // Every slot of a window is either sent or counted as skipped.
        let mut s = Schedule::new(1000.0, 300_000);
        let (mut sent, mut skipped) = (0, 0);
        for now in [300_000, 2_100_000, 2_900_000, 4_800_000, 4_900_000, 9_000_000] {
            if s.next_due() >= hi {
                break;
            }
            let (slot, n) = s.take_counting(now.max(s.next_due()), lo, hi);
            skipped += n;
            if slot >= hi {
                break;
            }
            if slot >= lo {
                sent += 1;
            }
        }
        assert_eq!(sent + skipped, 3);
    }

    #[test]
    fn rate_rounds_period_to_nanoseconds() {
        assert_eq!(Schedule::new(3.0, 0).period(), Duration::from_nanos(333_333_333));
        assert_eq!(Schedule::new(1e9, 0).period(), Duration::from_nanos(1));
    }

    #[test]
    #[should_panic]
    fn zero_rate_is_refused() {
        Schedule::new(0.0, 0);
    }
}
