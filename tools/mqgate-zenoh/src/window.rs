//! Live windows (--window SECONDS): what a role counted in each window, one
//! `window …` line on stdout per window and a last one before the role
//! writes its files (docs/formats.md §9), so that mqgate's snapshots and
//! Prometheus move while the role runs. The windows of a role add up to the
//! counts of its summary.json.

use std::io::Write as _;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use crate::stats::LatencyHistogram;

/// Counts of the window in progress; the counters are atomics so that
/// publishers and callbacks add to them without a lock.
#[derive(Default)]
pub struct Window {
    pub sent: AtomicU64,
    pub received: AtomicU64,
    pub errors: AtomicU64,
    pub timeouts: AtomicU64,
    pub bytes: AtomicU64,
    /// The change in sequence numbers missing (sub; negative when late
    /// arrivals fill gaps).
    pub lost: AtomicI64,
    pub duplicates: AtomicU64,
    pub out_of_order: AtomicU64,
    /// Queries that ended in the window, and their replies.
    pub queries: AtomicU64,
    pub replies: AtomicU64,
    hists: Mutex<(LatencyHistogram, LatencyHistogram)>,
}

impl Window {
    pub fn add(c: &AtomicU64, n: u64) {
        c.fetch_add(n, Ordering::Relaxed);
    }

    /// Records a latency (one-way, or time to first reply) and, for a query,
    /// its time to the last reply (ns).
    pub fn record(&self, ns: u64, last_ns: Option<u64>) {
        let mut h = self.hists.lock().unwrap();
        h.0.record(ns);
        if let Some(l) = last_ns {
            h.1.record(l);
        }
    }

    /// Takes the window's counts, leaving it empty, as a `window …` line.
    fn take_line(&self, role: &str) -> String {
        let (h, hl) = {
            let mut h = self.hists.lock().unwrap();
            std::mem::take(&mut *h)
        };
        let t = |c: &AtomicU64| c.swap(0, Ordering::Relaxed);
        let hdr = |h: &LatencyHistogram| h.stats().map_or_else(|| "-".to_string(), |s| s.hdr);
        format!(
            "window role={role} sent={} received={} errors={} timeouts={} bytes={} lost={} duplicates={} out_of_order={} queries={} replies={} hdr={} hdr_last={}",
            t(&self.sent),
            t(&self.received),
            t(&self.errors),
            t(&self.timeouts),
            t(&self.bytes),
            self.lost.swap(0, Ordering::Relaxed),
            t(&self.duplicates),
            t(&self.out_of_order),
            t(&self.queries),
            t(&self.replies),
            hdr(&h),
            hdr(&hl),
        )
    }
}

/// Windows prints a role's window every interval from a thread of its own;
/// finish prints the last one.
pub struct Windows {
    pub w: Arc<Window>,
    role: &'static str,
    stop: Arc<AtomicBool>,
    ticker: Option<thread::JoinHandle<()>>,
}

impl Windows {
    /// Starts printing every interval; None or zero: no window lines, the
    /// counts are kept and dropped.
    pub fn start(role: &'static str, interval: Option<Duration>) -> Windows {
        let w = Arc::new(Window::default());
        let stop = Arc::new(AtomicBool::new(false));
        let ticker = interval.filter(|d| !d.is_zero()).map(|every| {
            let (w, stop) = (w.clone(), stop.clone());
            thread::spawn(move || {
                let mut next = std::time::Instant::now() + every;
                while !stop.load(Ordering::Relaxed) {
                    let now = std::time::Instant::now();
                    if now >= next {
                        print_line(&w.take_line(role));
                        next += every;
                        continue;
                    }
                    thread::sleep((next - now).min(Duration::from_millis(10)));
                }
            })
        });
        Windows { w, role, stop, ticker }
    }

    /// Stops the ticker and prints the last window (what the ticker had not
    /// printed yet).
    pub fn finish(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.ticker.take() {
            let _ = t.join();
            print_line(&self.w.take_line(self.role));
        }
    }
}

fn print_line(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_empties_the_window() {
        let w = Window::default();
        Window::add(&w.sent, 3);
        Window::add(&w.received, 2);
        w.lost.fetch_add(-1, Ordering::Relaxed);
        w.record(1500, Some(2500));
        let line = w.take_line("query");
        assert!(line.starts_with("window role=query sent=3 received=2 errors=0 timeouts=0 bytes=0 lost=-1 "), "{line}");
        assert!(!line.contains("hdr=- "), "{line}");
        let empty = w.take_line("query");
        assert!(empty.contains("sent=0 received=0") && empty.ends_with("hdr=- hdr_last=-"), "{empty}");
    }
}
