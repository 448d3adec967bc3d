//! The roles: each opens a session, declares what it needs, prints its ready
//! line, runs, and writes its outputs (docs/formats.md §9).

use std::collections::BTreeMap;
use std::io::Read as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use zenoh::bytes::ZBytes;
use zenoh::query::{ConsolidationMode, QueryTarget};
use zenoh::sample::Sample;
use zenoh::{Session, Wait};

use crate::header::{self, Header};
use crate::output::{self, Latency, PayloadCounts, PublisherCounts, Summary};
use crate::rate::Schedule;
use crate::stats::{LatencyHistogram, Seen, StreamTracker};
use crate::window::{Window, Windows};
use crate::{epoch_at, epoch_ns, links, parse_payloads, parse_secs, ready, stopped, Common, End, Failure, Mode};

/// How often waiting loops look at the stop flag and the far end.
const POLL: Duration = Duration::from_millis(10);

/// Header of arrivals.csv (sub --arrivals).
pub const ARRIVALS_HEADER: &str = "Publisher,Payload [Bytes],One-way [ns]";

/// Header of clock.csv (the clock role): one row per exchange.
pub const CLOCK_HEADER: &str = "Instance,T1 [ns],T2 [ns],T3 [ns],T4 [ns]";

/// A clock reply: t1, t2, t3 (u64 little-endian) and the instance (u8).
const CLOCK_REPLY_SIZE: usize = 25;

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum LatencyDef {
    HalfRtt,
    Rtt,
}

#[derive(Args, Debug)]
pub struct PingArgs {
    #[command(flatten)]
    pub common: Common,
    /// Payload sizes in bytes, comma-separated, measured in this order.
    #[arg(long, value_parser = parse_payloads, default_value = "16")]
    pub payloads: std::vec::Vec<usize>,
    /// Measured round trips per payload.
    #[arg(long, default_value_t = 10_000)]
    pub samples: usize,
    /// Round trips per payload discarded before measuring.
    #[arg(long, default_value_t = 100)]
    pub warmup: usize,
    /// Seconds to wait for an echo before counting the message lost.
    #[arg(long, value_parser = parse_secs, default_value = "1")]
    pub timeout: Duration,
    /// Seconds to wait for the pong to answer a first probe.
    #[arg(long, value_parser = parse_secs, default_value = "10")]
    pub wait_peer: Duration,
    /// End the run (incomplete) after this many consecutive timeouts.
    #[arg(long, default_value_t = 5)]
    pub max_timeouts: u64,
    /// Latency written to the raw file: half the round trip or all of it.
    #[arg(long, value_enum, default_value_t = LatencyDef::HalfRtt)]
    pub latency: LatencyDef,
}

#[derive(Args, Debug)]
pub struct ServeArgs {
    #[command(flatten)]
    pub common: Common,
    /// Stop after this many seconds (0: run until SIGINT/SIGTERM).
    #[arg(long, value_parser = parse_secs, default_value = "0")]
    pub duration: Duration,
}

#[derive(Args, Debug)]
pub struct PubArgs {
    #[command(flatten)]
    pub common: Common,
    /// Payload sizes in bytes, comma-separated, each published in turn.
    #[arg(long, value_parser = parse_payloads, default_value = "16")]
    pub payloads: std::vec::Vec<usize>,
    /// Messages per second of each publisher (open loop).
    #[arg(long, default_value_t = 1000.0)]
    pub rate: f64,
    /// Publishers, each with its own schedule, phase-shifted by period/N.
    #[arg(long, default_value_t = 1)]
    pub publishers: u16,
    /// Topics: publisher i publishes on <key>/data/<i mod topics>.
    #[arg(long, default_value_t = 1)]
    pub topics: u16,
    /// Measured seconds per payload.
    #[arg(long, value_parser = parse_secs, default_value = "10")]
    pub duration: Duration,
    /// Warm-up seconds per payload (messages flagged, not measured).
    #[arg(long, value_parser = parse_secs, default_value = "1")]
    pub warmup: Duration,
    /// Run id carried in messages of 24 bytes or more (default: from the clock).
    #[arg(long)]
    pub run_id: Option<u32>,
    /// Seconds to wait for a subscriber to match.
    #[arg(long, value_parser = parse_secs, default_value = "10")]
    pub wait_peer: Duration,
    /// Microseconds before a slot that the sender stops sleeping and spins.
    #[arg(long, default_value_t = 50)]
    pub spin_us: u64,
    /// Publisher ids are id-base + i (mqgate passes instance·256, so that the
    /// publishers of several hosts differ).
    #[arg(long, default_value_t = 0)]
    pub id_base: u16,
    /// Answer clock probes (`clock` role) at this key while publishing:
    /// reply t1, t2, t3 (u64 ns, little-endian) and the instance id-base/256.
    #[arg(long)]
    pub clock_key: Option<String>,
    /// Seconds the clock probes are still answered after the last message.
    #[arg(long, value_parser = parse_secs, default_value = "2")]
    pub clock_linger: Duration,
}

#[derive(Args, Debug)]
pub struct SubArgs {
    #[command(flatten)]
    pub common: Common,
    /// Publishers expected: the run is complete when each sent its last end marker.
    #[arg(long, default_value_t = 1)]
    pub publishers: u16,
    /// Seconds without a message, after the first, that end the run (incomplete).
    #[arg(long, value_parser = parse_secs, default_value = "5")]
    pub timeout: Duration,
    /// Seconds to wait for the first message.
    #[arg(long, value_parser = parse_secs, default_value = "30")]
    pub wait_peer: Duration,
    /// Count messages of another run id (24-byte headers) as foreign and ignore them.
    #[arg(long)]
    pub run_id: Option<u32>,
    /// Also write arrivals.csv: each measured message's publisher and its
    /// one-way latency in ns, signed (not clamped), row for row with
    /// measurements.csv, for a correction by the publisher host's clock offset.
    #[arg(long)]
    pub arrivals: bool,
}

#[derive(Args, Debug)]
pub struct ClockArgs {
    #[command(flatten)]
    pub common: Common,
    /// Exchanges wanted per publisher host; once every host answered this
    /// many, one probe a second looks for new hosts.
    #[arg(long, default_value_t = 32)]
    pub probes: usize,
    /// Seconds between probes.
    #[arg(long, value_parser = parse_secs, default_value = "0.005")]
    pub interval: Duration,
    /// Seconds a probe waits for its replies.
    #[arg(long, value_parser = parse_secs, default_value = "1")]
    pub timeout: Duration,
    /// Stop after this many seconds (0: run until SIGINT/SIGTERM).
    #[arg(long, value_parser = parse_secs, default_value = "0")]
    pub duration: Duration,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    BestMatching,
    All,
    AllComplete,
}

#[derive(Args, Debug)]
pub struct QueryArgs {
    #[command(flatten)]
    pub common: Common,
    /// Query payload sizes in bytes, comma-separated (replies echo them).
    #[arg(long, value_parser = parse_payloads, default_value = "16")]
    pub payloads: std::vec::Vec<usize>,
    /// Measured queries per payload.
    #[arg(long, default_value_t = 1000)]
    pub samples: usize,
    /// Queries per payload discarded before measuring.
    #[arg(long, default_value_t = 100)]
    pub warmup: usize,
    /// Replies each query should get; fewer count as a timeout.
    #[arg(long, default_value_t = 1)]
    pub replies: u64,
    /// Query timeout in seconds (Zenoh ends the query then).
    #[arg(long, value_parser = parse_secs, default_value = "1")]
    pub timeout: Duration,
    /// Which queryables a query reaches.
    #[arg(long, value_enum, default_value_t = Target::BestMatching)]
    pub target: Target,
    /// Seconds to wait for a queryable to match.
    #[arg(long, value_parser = parse_secs, default_value = "10")]
    pub wait_peer: Duration,
    /// End the run (incomplete) after this many consecutive queries without reply.
    #[arg(long, default_value_t = 5)]
    pub max_timeouts: u64,
    /// Queries per second, open loop (0: closed loop, one query after the
    /// other): slot k is due at start + k/rate, whatever the replies do.
    #[arg(long, default_value_t = 0.0)]
    pub rate: f64,
    /// Open loop: queries in flight at most; a slot that finds them all in
    /// flight is skipped and counted (`skipped`).
    #[arg(long, default_value_t = 8)]
    pub concurrency: usize,
    /// Count the payload bytes of the replies to the measured queries
    /// (`result_bytes` in summary.json).
    #[arg(long)]
    pub result_bytes: bool,
    /// Open loop: a query ends this long after its first reply, with every
    /// reply that came by then, past --replies (fewer than --replies: a
    /// timeout); without it a query ends when Zenoh ends it (all replies
    /// in, or --timeout).
    #[arg(long, value_parser = parse_secs, value_name = "SECONDS")]
    pub agg_window: Option<Duration>,
}

#[derive(Args, Debug)]
pub struct QueryableArgs {
    #[command(flatten)]
    pub common: Common,
    /// Replies sent to each query, each echoing the query's payload (or of
    /// --reply-size bytes).
    #[arg(long, default_value_t = 1)]
    pub replies: u64,
    /// Stop after this many seconds (0: run until SIGINT/SIGTERM).
    #[arg(long, value_parser = parse_secs, default_value = "0")]
    pub duration: Duration,
    /// Bytes of each reply: the query's first 24 bytes (its header), then the
    /// filler (default: the query's payload, echoed).
    #[arg(long)]
    pub reply_size: Option<usize>,
    /// Processing delay before each reply, in seconds, from the query's arrival.
    #[arg(long, value_parser = parse_secs, default_value = "0")]
    pub proc_delay: Duration,
    /// Jitter of the processing delay in seconds: each reply waits the delay
    /// plus a uniform draw in [-jitter, +jitter], at least 0.
    #[arg(long, value_parser = parse_secs, default_value = "0")]
    pub proc_jitter: Duration,
    /// Seed of the jitter's draws.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// SplitMix64: the jitter's seeded draws (no dependency for one generator).
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A delay of base ± jitter (uniform), at least 0.
    fn delay(&mut self, base: Duration, jitter: Duration) -> Duration {
        let j = jitter.as_nanos() as u64;
        if j == 0 {
            return base;
        }
        let draw = (self.next() % (2 * j + 1)) as i128 - j as i128;
        Duration::from_nanos((base.as_nanos() as i128 + draw).max(0) as u64)
    }
}

/// A reply of size bytes to a query whose payload starts with head: head's
/// bytes (up to the 24-byte header), then the filler.
fn reply_body(head: &[u8], size: usize) -> Vec<u8> {
    let mut r = header::new_message(size);
    let n = head.len().min(header::FULL_SIZE).min(size);
    r[..n].copy_from_slice(&head[..n]);
    r
}

fn zerr(what: &str) -> impl Fn(zenoh::Error) -> Failure + '_ {
    move |e| Failure::runtime(format!("{what}: {e}"))
}

/// Reads the first bytes of a sample's payload (up to buf's size) without
/// copying the rest.
fn head(payload: &ZBytes, buf: &mut [u8]) -> usize {
    let mut r = payload.reader();
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) | Err(_) => break,
            Ok(k) => n += k,
        }
    }
    n
}

/// Sleeps until t, sleeping to within spin of it and spinning the rest, or
/// until the stop flag is set (then it returns false).
fn sleep_until(t: Instant, spin: Duration) -> bool {
    loop {
        if stopped() {
            return false;
        }
        let now = Instant::now();
        if now >= t {
            return true;
        }
        let left = t - now;
        if left > spin {
            thread::sleep((left - spin).min(Duration::from_millis(100)));
        } else {
            std::hint::spin_loop();
        }
    }
}

/// Waits until pause elapsed (zero: forever) or the stop flag is set; true
/// when stopped by the flag.
fn serve_until(pause: Duration) -> bool {
    let start = Instant::now();
    loop {
        if stopped() {
            return true;
        }
        if !pause.is_zero() && start.elapsed() >= pause {
            return false;
        }
        thread::sleep(POLL);
    }
}

fn write(
    common: &Common,
    raw: Option<(Latency, &[(usize, Vec<u64>)], &str)>,
    summary: &Summary,
) -> Result<(), Failure> {
    if let Some(dir) = &common.out {
        output::write_outputs(dir, raw, summary)?;
    }
    Ok(())
}

/// Prints a progress line (formats §9) when a payload's measured part starts.
fn progress(role: &str, size: usize) {
    use std::io::Write as _;
    println!("measuring role={role} payload={size}");
    let _ = std::io::stdout().flush();
}

fn end_of(summary: &Summary, interrupted: bool) -> End {
    if interrupted {
        End::Interrupted
    } else if summary.completed {
        End::Complete
    } else {
        End::Incomplete(summary.reason.clone())
    }
}

// ---- ping / pong --------------------------------------------------------------

pub fn ping(a: &PingArgs) -> Result<End, Failure> {
    let c = &a.common;
    if a.samples == 0 {
        return Err(Failure::usage("--samples must be at least 1"));
    }
    let session = c.open(c.mode)?;
    let (tx, rx) = mpsc::channel::<(u64, Instant)>();
    // Timestamp in the callback: the earliest moment this process saw the
    // echo, before any hand-over to the measuring thread.
    let _sub = session
        .declare_subscriber(format!("{}/pong", c.key))
        .callback(move |s: Sample| {
            let at = Instant::now();
            let mut b = [0u8; header::MIN_SIZE];
            if head(s.payload(), &mut b) == b.len() {
                let _ = tx.send((header::seq_word(&b).unwrap(), at));
            }
        })
        .wait()
        .map_err(zerr("declaring the pong subscriber"))?;
    let publisher = session
        .declare_publisher(format!("{}/ping", c.key))
        .congestion_control(c.congestion_control())
        .reliability(c.reliability())
        .express(c.express())
        .wait()
        .map_err(zerr("declaring the ping publisher"))?;
    ready("ping", &session);

    let latency = match a.latency {
        LatencyDef::HalfRtt => Latency::HalfRtt,
        LatencyDef::Rtt => Latency::Rtt,
    };
    let mut summary = c.summary("ping", c.mode, &session);
    summary.latency = latency.name().into();
    let run_id = (epoch_ns() & 0xffff_ffff) as u32;
    let mut results: Vec<(usize, Vec<u64>)> = Vec::new();
    let mut seq: u64 = 0;
    let mut interrupted = false;

    // A probe echoed back shows both directions are routed.
    let deadline = Instant::now() + a.wait_peer;
    let mut probe = header::new_message(header::MIN_SIZE);
    let mut answered = false;
    'probe: while Instant::now() < deadline {
        if stopped() {
            interrupted = true;
            break;
        }
        let h = Header { send_ns: epoch_ns(), seq, flags: header::FLAG_PROBE, ..Default::default() };
        seq += 1;
        h.encode(&mut probe);
        publisher.put(probe.clone()).wait().map_err(zerr("sending a probe"))?;
        let until = (Instant::now() + Duration::from_millis(100)).min(deadline);
        while let Ok((w, _)) = rx.recv_timeout(until.saturating_duration_since(Instant::now())) {
            if w == h.seq_word() {
                answered = true;
                break 'probe;
            }
        }
    }
    if answered {
        summary.links = links(&session);
    } else if !interrupted {
        summary.completed = false;
        summary.reason = format!("no pong answered on {}/ping within {:?}", c.key, a.wait_peer);
    }

    let mut consecutive = 0u64;
    'payloads: for &size in &a.payloads {
        if !summary.completed || interrupted {
            break;
        }
        let mut counts = PayloadCounts { payload: size as u64, ..Default::default() };
        let mut rtts = Vec::with_capacity(a.samples);
        let mut hist = LatencyHistogram::default();
        let template = header::new_message(size);
        for i in 0..(a.warmup + a.samples) {
            if stopped() {
                interrupted = true;
            }
            if interrupted || !summary.completed {
                break;
            }
            let warm = i < a.warmup;
            if i == a.warmup {
                progress("ping", size);
            }
            let h = Header {
                send_ns: epoch_ns(),
                seq,
                flags: if warm { header::FLAG_WARMUP } else { 0 },
                topic: Some(0),
                run_id: Some(run_id),
                ..Default::default()
            };
            seq += 1;
            let mut msg = template.clone();
            h.encode(&mut msg);
            let msg = ZBytes::from(msg);
            let want = h.seq_word();
            let t0 = Instant::now();
            if let Err(e) = publisher.put(msg).wait() {
                counts.errors += 1;
                eprintln!("mqgate-zenoh ping: put: {e}");
            }
            if warm {
                counts.warmup += 1;
            } else {
                counts.sent += 1;
            }
            let deadline = t0 + a.timeout;
            loop {
                match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                    Ok((w, at)) if w == want => {
                        if !warm {
                            let rtt = at.duration_since(t0).as_nanos() as u64;
                            rtts.push(rtt);
                            hist.record(latency.value_ns(rtt));
                            counts.received += 1;
                        }
                        consecutive = 0;
                        break;
                    }
                    Ok(_) => counts.late += 1, // an echo of an earlier, timed-out message
                    Err(RecvTimeoutError::Timeout) => {
                        if !warm {
                            counts.timeouts += 1;
                            counts.lost += 1;
                        }
                        consecutive += 1;
                        let matching = publisher.matching_status().wait().map(|m| m.matching()).unwrap_or(false);
                        if !matching {
                            summary.completed = false;
                            summary.reason = format!("the pong went away: no subscriber matches {}/ping", c.key);
                        } else if consecutive >= a.max_timeouts {
                            summary.completed = false;
                            summary.reason =
                                format!("{consecutive} consecutive round trips timed out after {:?}", a.timeout);
                        }
                        break;
                    }
                    Err(RecvTimeoutError::Disconnected) => {
                        summary.completed = false;
                        summary.reason = "the session closed".into();
                        counts.latency = hist.stats();
                        summary.payloads.push(counts);
                        results.push((size, rtts));
                        break 'payloads;
                    }
                }
            }
        }
        counts.latency = hist.stats();
        summary.payloads.push(counts);
        results.push((size, rtts));
    }
    write(c, Some((latency, &results, "measurements.csv")), &summary)?;
    Ok(end_of(&summary, interrupted))
}

/// Per-payload counts of a serving role, updated from Zenoh's callbacks.
#[derive(Default)]
struct ServeCounts {
    by_size: Mutex<BTreeMap<usize, PayloadCounts>>,
}

impl ServeCounts {
    fn add(&self, size: usize, f: impl FnOnce(&mut PayloadCounts)) {
        let mut m = self.by_size.lock().unwrap();
        let e = m.entry(size).or_insert_with(|| PayloadCounts { payload: size as u64, ..Default::default() });
        f(e);
    }
    fn take(&self) -> Vec<PayloadCounts> {
        self.by_size.lock().unwrap().values().cloned().collect()
    }
}

pub fn pong(a: &ServeArgs) -> Result<End, Failure> {
    let c = &a.common;
    let session = c.open(c.mode)?;
    let publisher = session
        .declare_publisher(format!("{}/pong", c.key))
        .congestion_control(c.congestion_control())
        .reliability(c.reliability())
        .express(c.express())
        .wait()
        .map_err(zerr("declaring the pong publisher"))?;
    let counts = Arc::new(ServeCounts::default());
    let cb = counts.clone();
    let _sub = session
        .declare_subscriber(format!("{}/ping", c.key))
        .callback(move |s: Sample| {
            let size = s.payload().len();
            let ok = publisher.put(s.payload().clone()).wait().is_ok();
            cb.add(size, |p| {
                if ok {
                    p.received += 1;
                    p.sent += 1
                } else {
                    p.received += 1;
                    p.errors += 1
                }
            });
        })
        .wait()
        .map_err(zerr("declaring the ping subscriber"))?;
    ready("pong", &session);
    let interrupted = serve_until(a.duration);
    let mut summary = c.summary("pong", c.mode, &session);
    summary.payloads = counts.take();
    write(c, None, &summary)?;
    // Being stopped is how a serving role is meant to end.
    let _ = interrupted;
    Ok(End::Complete)
}

pub fn router(a: &ServeArgs) -> Result<End, Failure> {
    let c = &a.common;
    if !c.connect.is_empty() && c.listen.is_empty() {
        return Err(Failure::usage("a router needs --listen endpoints for the clients"));
    }
    let session = c.open(Mode::Router)?;
    ready("router", &session);
    serve_until(a.duration);
    let summary = c.summary("router", Mode::Router, &session);
    write(c, None, &summary)?;
    Ok(End::Complete)
}

// ---- pub / sub ------------------------------------------------------------------

struct PubResult {
    counts: Vec<PayloadCounts>,
    matched_at_end: bool,
    error: Option<String>,
}

fn publish_one(session: &Session, a: &PubArgs, i: u16, run_id: u32, start: Instant, w: &Window) -> PubResult {
    let c = &a.common;
    let id = a.id_base + i;
    let topic = i % a.topics;
    let mut res = PubResult { counts: Vec::new(), matched_at_end: true, error: None };
    let publisher = match session
        .declare_publisher(format!("{}/data/{topic}", c.key))
        .congestion_control(c.congestion_control())
        .reliability(c.reliability())
        .express(c.express())
        .wait()
    {
        Ok(p) => p,
        Err(e) => {
            res.error = Some(format!("declaring publisher {id}: {e}"));
            return res;
        }
    };
    let spin = Duration::from_micros(a.spin_us);
    let warm_ns = a.warmup.as_nanos() as u64;
    let end_ns = warm_ns + a.duration.as_nanos() as u64;
    let mut phase_start = start;
    for (k, &size) in a.payloads.iter().enumerate() {
        let last = k + 1 == a.payloads.len();
        let mut counts = PayloadCounts { payload: size as u64, ..Default::default() };
        let period = 1e9 / a.rate;
        let phase = (period * f64::from(i) / f64::from(a.publishers)) as u64;
        let mut sched = Schedule::new(a.rate, phase);
        // The epoch time of phase_start: intended send times are computed on
        // the monotonic clock from here. A thread that starts past
        // phase_start (a loaded machine) must not take its "now" for it:
        // every stamp would be that much in the future.
        let base_epoch = epoch_at(phase_start);
        let template = header::new_message(size);
        let (mut seq, mut warm_seq) = (0u64, 0u64);
        let mut stopped_early = false;
        loop {
            let due = sched.next_due();
            if due >= end_ns {
                break;
            }
            let mut msg = template.clone();
            if !sleep_until(phase_start + Duration::from_nanos(due), spin) {
                stopped_early = true;
                break;
            }
            let now = phase_start.elapsed().as_nanos() as u64;
            let (slot, skipped) = sched.take_counting(now, warm_ns, end_ns);
            counts.skipped += skipped;
            if slot >= end_ns {
                break;
            }
            let warm = slot < warm_ns;
            let h = Header {
                send_ns: base_epoch + slot,
                seq: if warm { warm_seq } else { seq },
                publisher: id,
                flags: if warm { header::FLAG_WARMUP } else { 0 },
                topic: Some(topic),
                run_id: Some(run_id),
            };
            h.encode(&mut msg);
            match publisher.put(msg).wait() {
                Ok(()) if warm => {
                    warm_seq += 1;
                    counts.warmup += 1;
                }
                Ok(()) => {
                    seq += 1;
                    counts.sent += 1;
                    Window::add(&w.sent, 1);
                }
                Err(_) => {
                    counts.errors += 1;
                    Window::add(&w.errors, 1);
                }
            }
        }
        // Checked before the end marker: once the subscriber has every last
        // marker it may leave.
        res.matched_at_end &= publisher.matching_status().wait().map(|m| m.matching()).unwrap_or(false);
        // End marker: how many measured messages this payload had. Sent
        // three times so that one loss on a best-effort link does not hide it.
        let flags = header::FLAG_END_PAYLOAD | if last || stopped_early { header::FLAG_END_RUN } else { 0 };
        for _ in 0..3 {
            let mut msg = header::new_message(size);
            Header { send_ns: epoch_ns(), seq, publisher: id, flags, topic: Some(topic), run_id: Some(run_id) }
                .encode(&mut msg);
            if publisher.put(msg).wait().is_err() {
                counts.errors += 1;
                Window::add(&w.errors, 1);
            }
            thread::sleep(Duration::from_millis(1));
        }
        res.counts.push(counts);
        if stopped_early {
            break;
        }
        phase_start = Instant::now() + Duration::from_millis(50);
    }
    res
}

pub fn publish(a: &PubArgs) -> Result<End, Failure> {
    let c = &a.common;
    if !(a.rate > 0.0 && a.rate <= 1e9) {
        return Err(Failure::usage(format!("--rate {} must be in (0, 1e9] messages per second", a.rate)));
    }
    if a.publishers == 0 || a.topics == 0 {
        return Err(Failure::usage("--publishers and --topics must be at least 1"));
    }
    if a.duration.is_zero() {
        return Err(Failure::usage("--duration must be positive"));
    }
    if u32::from(a.id_base) + u32::from(a.publishers) > 65536 {
        return Err(Failure::usage("--id-base + --publishers must be at most 65536"));
    }
    let session = c.open(c.mode)?;
    let mut summary = c.summary("pub", c.mode, &session);
    // The clock service runs from before the first message until
    // --clock-linger after the last, so that subscribers probe at any time.
    let clock_q = match &a.clock_key {
        Some(key) => {
            let instance = (a.id_base >> 8) as u8;
            Some(
                session
                    .declare_queryable(key.as_str())
                    .callback(move |q| {
                        let t2 = epoch_ns();
                        let mut t1 = [0u8; 8];
                        match q.payload() {
                            Some(p) if head(p, &mut t1) == 8 => {}
                            _ => return,
                        }
                        let mut r = Vec::with_capacity(CLOCK_REPLY_SIZE);
                        r.extend_from_slice(&t1);
                        r.extend_from_slice(&t2.to_le_bytes());
                        r.extend_from_slice(&epoch_ns().to_le_bytes());
                        r.push(instance);
                        let _ = q.reply(q.key_expr().clone(), r).wait();
                    })
                    .wait()
                    .map_err(zerr("declaring the clock service"))?,
            )
        }
        None => None,
    };
    let run_id = a.run_id.unwrap_or((epoch_ns() & 0xffff_ffff) as u32);

    // Wait for every topic's subscriber before the clock starts.
    let probes: Vec<_> = (0..a.topics.min(a.publishers))
        .map(|t| session.declare_publisher(format!("{}/data/{t}", c.key)).wait())
        .collect::<Result<_, _>>()
        .map_err(zerr("declaring publishers"))?;
    ready("pub", &session);
    let deadline = Instant::now() + a.wait_peer;
    let matched = loop {
        if stopped() {
            return Ok(End::Interrupted);
        }
        if probes.iter().all(|p| p.matching_status().wait().map(|m| m.matching()).unwrap_or(false)) {
            break true;
        }
        if Instant::now() >= deadline {
            break false;
        }
        thread::sleep(POLL);
    };
    drop(probes);
    summary.links = links(&session);
    if !matched {
        summary.completed = false;
        summary.reason = format!("no subscriber matched {}/data/* within {:?}", c.key, a.wait_peer);
        write(c, None, &summary)?;
        return Ok(End::Incomplete(summary.reason));
    }

    let start = Instant::now() + Duration::from_millis(50);
    let windows = Windows::start("pub", c.window);
    let results: Vec<PubResult> = thread::scope(|s| {
        let handles: Vec<_> = (0..a.publishers)
            .map(|i| {
                let (session, w) = (&session, &*windows.w);
                s.spawn(move || publish_one(session, a, i, run_id, start, w))
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("publisher thread")).collect()
    });
    windows.finish();
    for (i, &size) in a.payloads.iter().enumerate() {
        let mut total = PayloadCounts { payload: size as u64, ..Default::default() };
        let mut any = false;
        for (id, r) in results.iter().enumerate() {
            if let Some(p) = r.counts.get(i) {
                any = true;
                total.warmup += p.warmup;
                total.sent += p.sent;
                total.skipped += p.skipped;
                total.errors += p.errors;
                total.publishers.push(PublisherCounts {
                    publisher: a.id_base + id as u16,
                    run_id: Some(run_id),
                    sent: Some(p.sent),
                    ..Default::default()
                });
            }
        }
        if any {
            summary.payloads.push(total);
        }
    }
    if let Some(e) = results.iter().find_map(|r| r.error.clone()) {
        return Err(Failure::runtime(e));
    }
    if !results.iter().all(|r| r.matched_at_end) {
        summary.completed = false;
        summary.reason = "a subscriber went away during the run".into();
    }
    if clock_q.is_some() && !stopped() && !a.clock_linger.is_zero() {
        serve_until(a.clock_linger);
    }
    drop(clock_q);
    write(c, None, &summary)?;
    Ok(end_of(&summary, stopped()))
}

#[derive(Default)]
struct SubPayload {
    size: usize,
    latencies: Vec<u64>,
    /// Publisher and signed one-way latency of each entry of latencies.
    arrivals: Vec<(u16, i64)>,
    hist: LatencyHistogram,
    counts: PayloadCounts,
    streams: BTreeMap<u16, (StreamTracker, Option<u32>)>,
}

#[derive(Default)]
struct SubState {
    payloads: Vec<SubPayload>,
    ended: std::collections::BTreeSet<u16>,
    last: Option<Instant>,
    foreign: u64,
    malformed: u64,
}

impl SubState {
    fn payload(&mut self, size: usize) -> &mut SubPayload {
        let i = match self.payloads.iter().position(|p| p.size == size) {
            Some(i) => i,
            None => {
                self.payloads.push(SubPayload {
                    size,
                    counts: PayloadCounts { payload: size as u64, ..Default::default() },
                    ..Default::default()
                });
                self.payloads.len() - 1
            }
        };
        &mut self.payloads[i]
    }

    fn on_message(&mut self, size: usize, head: &[u8], recv_ns: u64, at: Instant, run_filter: Option<u32>, w: &Window) {
        self.last = Some(at);
        let h = match Header::decode(head) {
            Ok(h) => h,
            Err(_) => {
                self.malformed += 1;
                Window::add(&w.errors, 1);
                return;
            }
        };
        if let (Some(want), Some(got)) = (run_filter, h.run_id) {
            if want != got {
                self.foreign += 1;
                return;
            }
        }
        if h.is(header::FLAG_END_PAYLOAD) {
            let p = self.payload(size);
            let s = p.streams.entry(h.publisher).or_default();
            let lost = s.0.lost();
            s.0.sent = Some(h.seq);
            w.lost.fetch_add(s.0.lost() as i64 - lost as i64, std::sync::atomic::Ordering::Relaxed);
            s.1 = h.run_id;
            if h.is(header::FLAG_END_RUN) {
                self.ended.insert(h.publisher);
            }
            return;
        }
        let p = self.payload(size);
        if h.is(header::FLAG_WARMUP) || h.is(header::FLAG_PROBE) {
            p.counts.warmup += 1;
            return;
        }
        let s = p.streams.entry(h.publisher).or_default();
        s.1 = h.run_id;
        let (lost, ooo) = (s.0.lost(), s.0.out_of_order);
        match s.0.observe(h.seq) {
            Seen::Duplicate => {
                Window::add(&w.duplicates, 1);
                return;
            }
            Seen::OutOfRange => {
                p.counts.errors += 1;
                Window::add(&w.errors, 1);
                return;
            }
            Seen::First => {}
        }
        w.lost.fetch_add(s.0.lost() as i64 - lost as i64, std::sync::atomic::Ordering::Relaxed);
        Window::add(&w.out_of_order, s.0.out_of_order - ooo);
        Window::add(&w.received, 1);
        Window::add(&w.bytes, size as u64);
        let lat = if recv_ns < h.send_ns {
            p.counts.clamped += 1;
            0
        } else {
            recv_ns - h.send_ns
        };
        p.latencies.push(lat);
        p.arrivals.push((h.publisher, recv_ns as i64 - h.send_ns as i64));
        p.hist.record(lat);
        w.record(lat, None);
    }
}

pub fn subscribe(a: &SubArgs) -> Result<End, Failure> {
    let c = &a.common;
    let session = c.open(c.mode)?;
    let state = Arc::new(Mutex::new(SubState::default()));
    let st = state.clone();
    let run_filter = a.run_id;
    let windows = Windows::start("sub", c.window);
    let w = windows.w.clone();
    let _sub = session
        .declare_subscriber(format!("{}/data/**", c.key))
        .callback(move |s: Sample| {
            let recv_ns = epoch_ns();
            let at = Instant::now();
            let mut b = [0u8; header::FULL_SIZE];
            let n = head(s.payload(), &mut b);
            st.lock().unwrap().on_message(s.payload().len(), &b[..n], recv_ns, at, run_filter, &w);
        })
        .wait()
        .map_err(zerr("declaring the subscriber"))?;
    ready("sub", &session);
    let mut summary = c.summary("sub", c.mode, &session);
    summary.latency = Latency::OneWay.name().into();
    let started = Instant::now();
    let mut interrupted = false;
    loop {
        thread::sleep(POLL);
        if stopped() {
            interrupted = true;
            break;
        }
        let st = state.lock().unwrap();
        if st.last.is_some() && summary.links.is_empty() {
            summary.links = links(&session);
        }
        if st.ended.len() >= usize::from(a.publishers) {
            break;
        }
        match st.last {
            None if started.elapsed() >= a.wait_peer => {
                summary.completed = false;
                summary.reason = format!("no message arrived on {}/data/** within {:?}", c.key, a.wait_peer);
                break;
            }
            Some(t) if t.elapsed() >= a.timeout => {
                summary.completed = false;
                summary.reason = format!(
                    "no message for {:?}; {} of {} publishers sent their last end marker",
                    a.timeout,
                    st.ended.len(),
                    a.publishers
                );
                break;
            }
            _ => {}
        }
    }
    drop(_sub);
    windows.finish();
    let mut st = state.lock().unwrap();
    let (foreign, malformed) = (st.foreign, st.malformed);
    let mut raw = Vec::new();
    let mut arrivals = Vec::new();
    for p in st.payloads.iter_mut() {
        arrivals.push((p.size, std::mem::take(&mut p.arrivals)));
        let mut counts = std::mem::take(&mut p.counts);
        for (&id, (t, run_id)) in &p.streams {
            counts.received += t.unique;
            counts.duplicates += t.duplicates;
            counts.out_of_order += t.out_of_order;
            counts.lost += t.lost();
            counts.sent += t.sent.unwrap_or(0);
            counts.publishers.push(PublisherCounts {
                publisher: id,
                run_id: *run_id,
                sent: t.sent,
                received: t.unique,
                lost: t.lost(),
                duplicates: t.duplicates,
                out_of_order: t.out_of_order,
            });
            if t.sent.is_none() && summary.completed {
                summary.completed = false;
                summary.reason = format!("publisher {id} sent no end marker for payload {}", p.size);
            }
        }
        counts.latency = p.hist.stats();
        summary.payloads.push(counts);
        raw.push((p.size, std::mem::take(&mut p.latencies)));
    }
    if foreign + malformed > 0 {
        eprintln!("mqgate-zenoh sub: ignored {foreign} messages of another run and {malformed} malformed messages");
        if let Some(p) = summary.payloads.first_mut() {
            p.errors += malformed;
        }
    }
    write(c, Some((Latency::OneWay, &raw, "measurements.csv")), &summary)?;
    if let (true, Some(dir)) = (a.arrivals, &c.out) {
        output::write_atomic(&dir.join("arrivals.csv"), |w| {
            writeln!(w, "{ARRIVALS_HEADER}")?;
            for (size, rows) in &arrivals {
                for (publisher, ns) in rows {
                    writeln!(w, "{publisher},{size},{ns}")?;
                }
            }
            Ok(())
        })?;
    }
    Ok(end_of(&summary, interrupted))
}

// ---- query / queryable ------------------------------------------------------------

pub fn query(a: &QueryArgs) -> Result<End, Failure> {
    let c = &a.common;
    if a.samples == 0 || a.replies == 0 {
        return Err(Failure::usage("--samples and --replies must be at least 1"));
    }
    if !(a.rate >= 0.0 && a.rate <= 1e6) || a.concurrency == 0 {
        return Err(Failure::usage("--rate must be in [0, 1e6] queries per second and --concurrency at least 1"));
    }
    let session = c.open(c.mode)?;
    let querier = session
        .declare_querier(format!("{}/query", c.key))
        .target(match a.target {
            Target::BestMatching => QueryTarget::BestMatching,
            Target::All => QueryTarget::All,
            Target::AllComplete => QueryTarget::AllComplete,
        })
        .consolidation(ConsolidationMode::None)
        .timeout(a.timeout)
        .congestion_control(c.congestion_control())
        .express(c.express())
        .wait()
        .map_err(zerr("declaring the querier"))?;
    ready("query", &session);
    let mut summary = c.summary("query", c.mode, &session);
    summary.latency = Latency::Rtt.name().into();
    let deadline = Instant::now() + a.wait_peer;
    let mut interrupted = false;
    loop {
        if stopped() {
            interrupted = true;
            break;
        }
        if querier.matching_status().wait().map(|m| m.matching()).unwrap_or(false) {
            summary.links = links(&session);
            break;
        }
        if Instant::now() >= deadline {
            summary.completed = false;
            summary.reason = format!("no queryable matched {}/query within {:?}", c.key, a.wait_peer);
            break;
        }
        thread::sleep(POLL);
    }
    let run_id = (epoch_ns() & 0xffff_ffff) as u32;
    let windows = Windows::start("query", c.window);
    let w = &*windows.w;
    let (mut first_all, mut last_all) = (Vec::new(), Vec::new());
    let mut seq = 0u64;
    let mut consecutive = 0u64;
    for &size in &a.payloads {
        if interrupted || !summary.completed {
            break;
        }
        if a.rate > 0.0 {
            let r = open_loop_payload(a, &querier, size, run_id, &mut seq, w);
            interrupted |= r.interrupted;
            if let Some(reason) = r.reason {
                summary.completed = false;
                summary.reason = reason;
            }
            summary.payloads.push(r.counts);
            first_all.push((size, r.first));
            last_all.push((size, r.last));
            continue;
        }
        let mut counts = PayloadCounts {
            payload: size as u64,
            replies_min: u64::MAX,
            result_bytes: a.result_bytes.then_some(0),
            ..Default::default()
        };
        let (mut first, mut last) = (Vec::with_capacity(a.samples), Vec::with_capacity(a.samples));
        let (mut hf, mut hl) = (LatencyHistogram::default(), LatencyHistogram::default());
        let template = header::new_message(size);
        for i in 0..(a.warmup + a.samples) {
            if stopped() {
                interrupted = true;
                break;
            }
            let warm = i < a.warmup;
            if i == a.warmup {
                progress("query", size);
            }
            let mut msg = template.clone();
            Header {
                send_ns: epoch_ns(),
                seq,
                flags: if warm { header::FLAG_WARMUP } else { 0 },
                topic: Some(0),
                run_id: Some(run_id),
                ..Default::default()
            }
            .encode(&mut msg);
            seq += 1;
            let msg = ZBytes::from(msg);
            let (tx, rx) = mpsc::channel::<(Instant, Option<u64>)>();
            let t0 = Instant::now();
            // The callback is dropped when Zenoh ends the query (all replies
            // in, or the timeout), which closes the channel.
            let sent = querier
                .get()
                .payload(msg)
                .callback(move |r| {
                    let at = Instant::now();
                    let _ = tx.send((at, reply_bytes(&r)));
                })
                .wait();
            if let Err(e) = sent {
                counts.errors += 1;
                Window::add(&w.errors, 1);
                eprintln!("mqgate-zenoh query: get: {e}");
                continue;
            }
            let (mut n, mut errs, mut bytes, mut t_first, mut t_last) = (0u64, 0u64, 0u64, None, None);
            let guard = t0 + a.timeout + Duration::from_secs(5);
            loop {
                match rx.recv_timeout(guard.saturating_duration_since(Instant::now())) {
                    Ok((at, ok)) => {
                        if let Some(b) = ok {
                            n += 1;
                            bytes += b;
                            t_first.get_or_insert(at);
                            t_last = Some(at);
                        } else {
                            errs += 1;
                        }
                    }
                    Err(RecvTimeoutError::Disconnected) => break,
                    Err(RecvTimeoutError::Timeout) => {
                        // Zenoh did not end the query 5 s past its timeout.
                        errs += 1;
                        break;
                    }
                }
            }
            if warm {
                counts.warmup += 1;
                continue;
            }
            counts.sent += 1;
            counts.errors += errs;
            counts.replies += n;
            let q = OpenQuery {
                started: Some(t0),
                replies: n,
                errors: errs,
                bytes,
                first: t_first,
                last: t_last,
                ..Default::default()
            };
            Window::add(&w.sent, 1);
            account(&q, 0, a.replies, w);
            if let Some(total) = counts.result_bytes.as_mut() {
                *total += bytes;
            }
            counts.replies_min = counts.replies_min.min(n);
            counts.replies_max = counts.replies_max.max(n);
            if n < a.replies {
                counts.timeouts += 1;
            }
            match (t_first, t_last) {
                (Some(f), Some(l)) => {
                    counts.received += 1;
                    let (f, l) = (f.duration_since(t0).as_nanos() as u64, l.duration_since(t0).as_nanos() as u64);
                    first.push(f);
                    last.push(l);
                    hf.record(f);
                    hl.record(l);
                    consecutive = 0;
                }
                _ => {
                    counts.lost += 1;
                    consecutive += 1;
                    let matching = querier.matching_status().wait().map(|m| m.matching()).unwrap_or(false);
                    if !matching {
                        summary.completed = false;
                        summary.reason = format!("the queryable went away: none matches {}/query", c.key);
                        break;
                    }
                    if consecutive >= a.max_timeouts {
                        summary.completed = false;
                        summary.reason =
                            format!("{consecutive} consecutive queries got no reply within {:?}", a.timeout);
                        break;
                    }
                }
            }
        }
        if counts.replies_min == u64::MAX {
            counts.replies_min = 0;
        }
        counts.latency = hf.stats();
        counts.latency_last = hl.stats();
        summary.payloads.push(counts);
        first_all.push((size, first));
        last_all.push((size, last));
    }
    windows.finish();
    write(c, Some((Latency::Rtt, &first_all, "measurements.csv")), &summary)?;
    if let Some(dir) = &c.out {
        output::write_raw_file(&dir.join("measurements_last.csv"), Latency::Rtt, &last_all)?;
    }
    Ok(end_of(&summary, interrupted))
}

pub fn queryable(a: &QueryableArgs) -> Result<End, Failure> {
    let c = &a.common;
    if a.replies == 0 {
        return Err(Failure::usage("--replies must be at least 1"));
    }
    let session = c.open(c.mode)?;
    let counts = Arc::new(ServeCounts::default());
    let cb = counts.clone();
    let replies = a.replies;
    // Replies take the query's congestion control; express is theirs.
    let express = c.express();
    let served = Arc::new(AtomicU64::new(0));
    let served_cb = served.clone();
    let (reply_size, delay, jitter) = (a.reply_size, a.proc_delay, a.proc_jitter);
    let rng = Arc::new(Mutex::new(SplitMix(a.seed)));
    let windows = Windows::start("queryable", c.window);
    let w = windows.w.clone();
    let _q = session
        .declare_queryable(format!("{}/query", c.key))
        .callback(move |q| {
            let at = Instant::now();
            let payload = q.payload().cloned().unwrap_or_default();
            let size = payload.len();
            let body = reply_size.map(|n| {
                let mut h = [0u8; header::FULL_SIZE];
                let k = head(&payload, &mut h);
                ZBytes::from(reply_body(&h[..k], n))
            });
            let (cb, served_cb, rng, w) = (cb.clone(), served_cb.clone(), rng.clone(), w.clone());
            let answer = move || {
                let mut errors = 0;
                for _ in 0..replies {
                    let d = rng.lock().unwrap().delay(delay, jitter);
                    if !d.is_zero() {
                        thread::sleep((at + d).saturating_duration_since(Instant::now()));
                    }
                    let b = body.clone().unwrap_or_else(|| payload.clone());
                    if q.reply(q.key_expr().clone(), b).express(express).wait().is_err() {
                        errors += 1;
                    }
                }
                served_cb.fetch_add(1, Ordering::Relaxed);
                // Queries taken (and their bytes) and replies sent.
                Window::add(&w.received, 1);
                Window::add(&w.bytes, size as u64);
                Window::add(&w.sent, replies - errors);
                Window::add(&w.errors, errors);
                cb.add(size, |p| {
                    p.received += 1;
                    p.replies += replies - errors;
                    p.errors += errors;
                });
            };
            // A delayed query gets a thread of its own, so that it does not
            // hold the next one back.
            if delay.is_zero() && jitter.is_zero() {
                answer();
            } else {
                thread::spawn(answer);
            }
        })
        .wait()
        .map_err(zerr("declaring the queryable"))?;
    ready("queryable", &session);
    serve_until(a.duration);
    drop(_q);
    windows.finish();
    let mut summary = c.summary("queryable", c.mode, &session);
    summary.payloads = counts.take();
    write(c, None, &summary)?;
    Ok(End::Complete)
}

/// What one open-loop query saw.
#[derive(Default, Clone)]
struct OpenQuery {
    started: Option<Instant>,
    warm: bool,
    replies: u64,
    errors: u64,
    /// Payload bytes of the replies.
    bytes: u64,
    first: Option<Instant>,
    last: Option<Instant>,
    done: bool,
}

/// Events of open-loop queries, by slot: a reply (time, its payload bytes
/// or None for an error reply) or the end of the query (Zenoh dropped its
/// callback).
enum QueryEvent {
    Reply(usize, Instant, Option<u64>),
    Done(usize),
}

/// reply_bytes is the payload size of an ok reply, None for an error reply.
fn reply_bytes(r: &zenoh::query::Reply) -> Option<u64> {
    r.result().ok().map(|s| s.payload().len() as u64)
}

/// Sends QueryEvent::Done when the query's callback is dropped.
struct QueryDone {
    slot: usize,
    tx: mpsc::Sender<QueryEvent>,
}

impl Drop for QueryDone {
    fn drop(&mut self) {
        let _ = self.tx.send(QueryEvent::Done(self.slot));
    }
}

struct OpenLoop {
    counts: PayloadCounts,
    first: Vec<u64>,
    last: Vec<u64>,
    reason: Option<String>,
    interrupted: bool,
}

/// The open-loop queries of a payload: what each saw, how many are in
/// flight, and, with --agg-window, when those that had a reply close.
struct OpenQueries {
    qs: Vec<OpenQuery>,
    in_flight: usize,
    agg: Option<Duration>,
    /// (closing time, slot), in the order of the first replies: the window
    /// is the same for all, so the times are in order.
    closing: std::collections::VecDeque<(Instant, usize)>,
    /// --replies: a measured query that ended with fewer is a timeout.
    want: u64,
}

impl OpenQueries {
    fn new(n: usize, agg: Option<Duration>, want: u64) -> OpenQueries {
        OpenQueries { qs: vec![OpenQuery::default(); n], in_flight: 0, agg, closing: Default::default(), want }
    }

    fn on_event(&mut self, ev: QueryEvent, w: &Window) {
        match ev {
            QueryEvent::Reply(i, at, ok) => {
                let q = &mut self.qs[i];
                let closed = match (self.agg, q.first) {
                    (Some(agg), Some(f)) => at > f + agg,
                    _ => false,
                };
                if q.done || closed {
                    return; // after its --agg-window
                }
                if let Some(bytes) = ok {
                    if q.first.is_none() {
                        if let Some(agg) = self.agg {
                            self.closing.push_back((at + agg, i));
                        }
                    }
                    q.replies += 1;
                    q.bytes += bytes;
                    q.first.get_or_insert(at);
                    q.last = Some(at);
                } else {
                    q.errors += 1;
                }
            }
            QueryEvent::Done(i) => self.end(i, w),
        }
    }

    /// Ends the queries whose --agg-window closed by now.
    fn expire(&mut self, now: Instant, w: &Window) {
        while let Some(&(t, i)) = self.closing.front() {
            if t > now {
                break;
            }
            self.closing.pop_front();
            self.end(i, w);
        }
    }

    /// Ends query i (once) and counts it into the window.
    fn end(&mut self, i: usize, w: &Window) {
        let q = &mut self.qs[i];
        if q.done {
            return;
        }
        q.done = true;
        self.in_flight -= 1;
        if !q.warm {
            account(q, 0, self.want, w);
        }
    }
}

/// Counts an ended measured query into the window: replies received, their
/// bytes, errors (plus extra), a timeout below want replies, and its times
/// to the first and last reply.
fn account(q: &OpenQuery, extra_errors: u64, want: u64, w: &Window) {
    Window::add(&w.queries, 1);
    Window::add(&w.replies, q.replies);
    Window::add(&w.received, q.replies);
    Window::add(&w.bytes, q.bytes);
    Window::add(&w.errors, q.errors + extra_errors);
    Window::add(&w.timeouts, u64::from(q.replies < want));
    if let (Some(t0), Some(f), Some(l)) = (q.started, q.first, q.last) {
        w.record(f.duration_since(t0).as_nanos() as u64, Some(l.duration_since(t0).as_nanos() as u64));
    }
}

/// Open-loop queries of one payload: --warmup then --samples slots at
/// --rate, each sending a query unless --concurrency are in flight (then
/// the slot is skipped and counted). Times to the first and last reply are
/// from the query's send, rows in slot order.
fn open_loop_payload(
    a: &QueryArgs,
    querier: &zenoh::query::Querier<'_>,
    size: usize,
    run_id: u32,
    seq: &mut u64,
    w: &Window,
) -> OpenLoop {
    let total = a.warmup + a.samples;
    let period_ns = (1e9 / a.rate).round() as u64;
    let (tx, rx) = mpsc::channel::<QueryEvent>();
    let mut oq = OpenQueries::new(total, a.agg_window, a.replies);
    let mut out = OpenLoop {
        counts: PayloadCounts {
            payload: size as u64,
            replies_min: u64::MAX,
            result_bytes: a.result_bytes.then_some(0),
            ..Default::default()
        },
        first: Vec::with_capacity(a.samples),
        last: Vec::with_capacity(a.samples),
        reason: None,
        interrupted: false,
    };
    let template = header::new_message(size);
    let start = Instant::now() + Duration::from_millis(20);
    for i in 0..total {
        if i == a.warmup {
            progress("query", size);
        }
        let due = start + Duration::from_nanos(period_ns.saturating_mul(i as u64));
        // Replies and ends arrive while the slot is awaited.
        loop {
            let now = Instant::now();
            oq.expire(now, w);
            if now >= due || stopped() {
                break;
            }
            if let Ok(ev) = rx.recv_timeout((due - now).min(POLL)) {
                oq.on_event(ev, w);
            }
        }
        while let Ok(ev) = rx.try_recv() {
            oq.on_event(ev, w);
        }
        oq.expire(Instant::now(), w);
        if stopped() {
            out.interrupted = true;
            break;
        }
        let warm = i < a.warmup;
        if oq.in_flight >= a.concurrency {
            if !warm {
                out.counts.skipped += 1;
            }
            continue;
        }
        let mut msg = template.clone();
        Header {
            send_ns: epoch_ns(),
            seq: *seq,
            flags: if warm { header::FLAG_WARMUP } else { 0 },
            topic: Some(0),
            run_id: Some(run_id),
            ..Default::default()
        }
        .encode(&mut msg);
        *seq += 1;
        let (reply_tx, done) = (tx.clone(), QueryDone { slot: i, tx: tx.clone() });
        oq.in_flight += 1;
        oq.qs[i].warm = warm;
        oq.qs[i].started = Some(Instant::now());
        if !warm {
            Window::add(&w.sent, 1);
        }
        // The callback owns `done`: when Zenoh ends the query (all replies
        // in, or its timeout) and drops the callback, the end is reported.
        let sent = querier
            .get()
            .payload(ZBytes::from(msg))
            .callback(move |r| {
                let at = Instant::now();
                let _owned = &done;
                let _ = reply_tx.send(QueryEvent::Reply(i, at, reply_bytes(&r)));
            })
            .wait();
        if let Err(e) = sent {
            oq.qs[i].errors += 1;
            eprintln!("mqgate-zenoh query: get: {e}");
        }
    }
    // The queries in flight end by their timeout (or --agg-window); Zenoh
    // is given 5 s more.
    let guard = Instant::now() + a.timeout + Duration::from_secs(5);
    while oq.in_flight > 0 {
        let now = Instant::now();
        oq.expire(now, w);
        if oq.in_flight == 0 || now >= guard {
            break;
        }
        match rx.recv_timeout(guard.saturating_duration_since(now).min(POLL)) {
            Ok(ev) => oq.on_event(ev, w),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
    }
    // Queries Zenoh never ended count as errors, in the last window too.
    for q in oq.qs.iter().filter(|q| q.started.is_some() && !q.warm && !q.done) {
        account(q, 1, a.replies, w);
    }
    let (mut hf, mut hl) = (LatencyHistogram::default(), LatencyHistogram::default());
    for q in &oq.qs {
        let Some(t0) = q.started else { continue };
        if q.warm {
            out.counts.warmup += 1;
            continue;
        }
        let c = &mut out.counts;
        c.sent += 1;
        c.errors += q.errors + u64::from(!q.done);
        c.replies += q.replies;
        if let Some(total) = c.result_bytes.as_mut() {
            *total += q.bytes;
        }
        c.replies_min = c.replies_min.min(q.replies);
        c.replies_max = c.replies_max.max(q.replies);
        if q.replies < a.replies {
            c.timeouts += 1;
        }
        match (q.first, q.last) {
            (Some(f), Some(l)) => {
                c.received += 1;
                let (f, l) = (f.duration_since(t0).as_nanos() as u64, l.duration_since(t0).as_nanos() as u64);
                out.first.push(f);
                out.last.push(l);
                hf.record(f);
                hl.record(l);
            }
            _ => c.lost += 1,
        }
    }
    if out.counts.replies_min == u64::MAX {
        out.counts.replies_min = 0;
    }
    out.counts.latency = hf.stats();
    out.counts.latency_last = hl.stats();
    if out.counts.lost > 0 && !querier.matching_status().wait().map(|m| m.matching()).unwrap_or(false) {
        out.reason = Some(format!(
            "the queryable went away: none matches the query key ({} queries unanswered)",
            out.counts.lost
        ));
    }
    out
}

// ---- clock ----------------------------------------------------------------------

/// One clock exchange: the publisher host's instance and the four times
/// (t1, t4 on this host's clock, t2, t3 on the publisher host's).
type ClockRow = (u8, u64, u64, u64, u64);

/// Parses a clock reply to the probe sent at t1, read at t4.
fn clock_row(reply: &[u8], t1: u64, t4: u64) -> Option<ClockRow> {
    if reply.len() != CLOCK_REPLY_SIZE {
        return None;
    }
    let word = |i: usize| u64::from_le_bytes(reply[i * 8..i * 8 + 8].try_into().unwrap());
    if word(0) != t1 {
        return None;
    }
    Some((reply[24], t1, word(1), word(2), t4))
}

/// Probes the clocks of the publishers that serve `--key` (pub
/// --clock-key): every --interval a query to all of them carrying t1, each
/// reply giving t2, t3 and its instance, t4 read in the reply callback; once
/// every instance answered --probes times, one probe a second. Writes
/// clock.csv; mqgate estimates the offsets (internal/clockoffset).
pub fn clock(a: &ClockArgs) -> Result<End, Failure> {
    let c = &a.common;
    if a.probes == 0 || a.timeout.is_zero() {
        return Err(Failure::usage("--probes and --timeout must be positive"));
    }
    let session = c.open(c.mode)?;
    ready("clock", &session);
    let start = Instant::now();
    let mut rows: Vec<ClockRow> = Vec::new();
    let mut per: BTreeMap<u8, usize> = BTreeMap::new();
    let mut interrupted = false;
    loop {
        if stopped() {
            interrupted = true;
            break;
        }
        if !a.duration.is_zero() && start.elapsed() >= a.duration {
            break;
        }
        let (tx, rx) = mpsc::channel::<(u64, Vec<u8>)>();
        let t1 = epoch_ns();
        // The callback is dropped when Zenoh ends the query: rx then
        // reports the end.
        let sent = session
            .get(c.key.as_str())
            .payload(t1.to_le_bytes().to_vec())
            .target(QueryTarget::All)
            .consolidation(ConsolidationMode::None)
            .timeout(a.timeout)
            .callback(move |r| {
                let t4 = epoch_ns();
                if let Ok(s) = r.result() {
                    let mut b = [0u8; CLOCK_REPLY_SIZE + 1];
                    let n = head(s.payload(), &mut b);
                    let _ = tx.send((t4, b[..n].to_vec()));
                }
            })
            .wait();
        if let Err(e) = sent {
            eprintln!("mqgate-zenoh clock: get: {e}");
        }
        let guard = Instant::now() + a.timeout + Duration::from_secs(1);
        while let Ok((t4, b)) = rx.recv_timeout(guard.saturating_duration_since(Instant::now())) {
            if let Some(row) = clock_row(&b, t1, t4) {
                *per.entry(row.0).or_default() += 1;
                rows.push(row);
            }
        }
        let wanting = per.is_empty() || per.values().any(|&n| n < a.probes);
        let pause = if wanting { a.interval } else { a.interval.max(Duration::from_secs(1)) };
        if serve_until(pause.max(Duration::from_millis(1))) {
            interrupted = true;
            break;
        }
    }
    if let Some(dir) = &c.out {
        fs_create(dir)?;
        output::write_atomic(&dir.join("clock.csv"), |w| {
            writeln!(w, "{CLOCK_HEADER}")?;
            for (inst, t1, t2, t3, t4) in &rows {
                writeln!(w, "{inst},{t1},{t2},{t3},{t4}")?;
            }
            Ok(())
        })?;
    }
    if interrupted {
        return Ok(End::Interrupted);
    }
    Ok(End::Complete)
}

fn fs_create(dir: &std::path::Path) -> Result<(), Failure> {
    std::fs::create_dir_all(dir).map_err(|e| Failure::runtime(format!("creating {}: {e}", dir.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(h: Header, size: usize) -> Vec<u8> {
        let mut m = header::new_message(size);
        h.encode(&mut m);
        m
    }

    #[test]
    fn processing_delays_and_replies() {
        let mut r = SplitMix(1);
        let base = Duration::from_millis(2);
        let jitter = Duration::from_millis(1);
        let draws: Vec<Duration> = (0..1000).map(|_| r.delay(base, jitter)).collect();
        assert!(draws.iter().all(|d| *d >= Duration::from_millis(1) && *d <= Duration::from_millis(3)));
        assert!(
            draws.iter().any(|d| *d < Duration::from_micros(1100))
                && draws.iter().any(|d| *d > Duration::from_micros(2900))
        );
        assert_eq!(SplitMix(1).delay(base, jitter), draws[0], "seeded");
        assert_eq!(SplitMix(1).delay(Duration::ZERO, jitter * 10).min(Duration::ZERO), Duration::ZERO);
        let q: Vec<u8> = (0..30u8).collect();
        let b = reply_body(&q[..24], 40);
        assert_eq!(&b[..24], &q[..24]);
        assert_eq!(b.len(), 40);
        assert_eq!(b[30], (30 % 251) as u8, "filler");
        assert_eq!(reply_body(&q[..24], 8), q[..8].to_vec());
    }

    #[test]
    fn open_loop_events_count_replies_and_bytes() {
        let w = Window::default();
        let mut oq = OpenQueries::new(2, None, 2);
        oq.in_flight = 2;
        let at = Instant::now();
        oq.qs[0].started = Some(at);
        oq.on_event(QueryEvent::Reply(0, at + Duration::from_micros(10), Some(100)), &w);
        oq.on_event(QueryEvent::Reply(0, at + Duration::from_micros(30), Some(28)), &w);
        oq.on_event(QueryEvent::Reply(0, at, None), &w);
        oq.on_event(QueryEvent::Done(0), &w);
        oq.on_event(QueryEvent::Done(0), &w);
        let q = &oq.qs[0];
        assert_eq!((q.replies, q.bytes, q.errors, q.done), (2, 128, 1, true));
        assert_eq!((oq.qs[1].replies, oq.qs[1].bytes, oq.in_flight), (0, 0, 1));
        let o = |c: &AtomicU64| c.load(Ordering::Relaxed);
        assert_eq!((o(&w.queries), o(&w.replies), o(&w.bytes), o(&w.errors), o(&w.timeouts)), (1, 2, 128, 1, 0));
    }

    #[test]
    fn agg_window_ends_a_query_after_its_first_reply() {
        let w = Window::default();
        let mut oq = OpenQueries::new(1, Some(Duration::from_millis(5)), 3);
        oq.in_flight = 1;
        let at = Instant::now();
        oq.qs[0].started = Some(at);
        oq.on_event(QueryEvent::Reply(0, at + Duration::from_millis(1), Some(8)), &w);
        oq.on_event(QueryEvent::Reply(0, at + Duration::from_millis(2), Some(8)), &w);
        oq.expire(at + Duration::from_millis(5), &w);
        assert_eq!((oq.in_flight, oq.qs[0].done), (1, false), "open until 1 ms + 5 ms");
        oq.expire(at + Duration::from_millis(6), &w);
        assert_eq!((oq.in_flight, oq.qs[0].done), (0, true));
        // A late reply and Zenoh's end change nothing.
        oq.on_event(QueryEvent::Reply(0, at + Duration::from_millis(7), Some(8)), &w);
        // Nor does a reply after the window that is read before it closes.
        let mut late = OpenQueries::new(1, Some(Duration::from_millis(5)), 1);
        late.in_flight = 1;
        late.qs[0].started = Some(at);
        late.on_event(QueryEvent::Reply(0, at + Duration::from_millis(1), Some(8)), &w);
        late.on_event(QueryEvent::Reply(0, at + Duration::from_millis(7), Some(8)), &w);
        assert_eq!(late.qs[0].replies, 1);
        oq.on_event(QueryEvent::Done(0), &w);
        assert_eq!((oq.qs[0].replies, oq.in_flight), (2, 0));
        let o = |c: &AtomicU64| c.load(Ordering::Relaxed);
        assert_eq!((o(&w.queries), o(&w.replies), o(&w.timeouts)), (1, 2, 1), "2 of --replies 3: a timeout");
    }

    #[test]
    fn clock_replies() {
        let mut r = Vec::new();
        for w in [7u64, 100, 150] {
            r.extend_from_slice(&w.to_le_bytes());
        }
        r.push(3);
        assert_eq!(clock_row(&r, 7, 60), Some((3, 7, 100, 150, 60)));
        assert_eq!(clock_row(&r, 8, 60), None, "the reply to another probe");
        assert_eq!(clock_row(&r[..24], 7, 60), None, "no instance");
    }

    #[test]
    fn subscriber_state_counts_per_publisher() {
        let mut st = SubState::default();
        let w = Window::default();
        let t = Instant::now();
        let base = Header { send_ns: 1_000, topic: Some(0), run_id: Some(7), ..Default::default() };
        // Publisher 0: warm-up, then 0 1 1 3 2 and an end marker of 5.
        st.on_message(32, &msg(Header { flags: header::FLAG_WARMUP, ..base }, 32)[..24], 2_000, t, Some(7), &w);
        for s in [0, 1, 1, 3, 2] {
            st.on_message(32, &msg(Header { seq: s, ..base }, 32)[..24], 1_500 + s, t, Some(7), &w);
        }
        st.on_message(
            32,
            &msg(Header { seq: 5, flags: header::FLAG_END_PAYLOAD | header::FLAG_END_RUN, ..base }, 32)[..24],
            0,
            t,
            Some(7),
            &w,
        );
        // Publisher 1, whose clock is ahead: clamped to 0.
        st.on_message(32, &msg(Header { publisher: 1, send_ns: 9_000, ..base }, 32)[..24], 2_000, t, Some(7), &w);
        // Another run: ignored.
        st.on_message(32, &msg(Header { run_id: Some(8), ..base }, 32)[..24], 2_000, t, Some(7), &w);
        // Too short to hold a header.
        st.on_message(8, &[0u8; 8], 2_000, t, Some(7), &w);
        assert_eq!((st.foreign, st.malformed), (1, 1));
        assert_eq!(st.ended.len(), 1);
        let p = &st.payloads[0];
        assert_eq!(p.latencies, vec![500, 501, 503, 502, 0]);
        // arrivals.csv keeps the sign and the publisher of each.
        assert_eq!(p.arrivals, vec![(0, 500), (0, 501), (0, 503), (0, 502), (1, -7_000)]);
        assert_eq!((p.counts.warmup, p.counts.clamped), (1, 1));
        let (t0, run) = &p.streams[&0];
        assert_eq!((t0.unique, t0.duplicates, t0.out_of_order, t0.lost(), *run), (4, 1, 1, 1, Some(7)));
        assert_eq!(p.streams[&1].0.sent, None);
        // The window counted the same: 4 + 1 unique measured messages of 32
        // bytes, one duplicate, one out of order, one malformed, the one gap
        // (0 1 3 2 of 5) and publisher 1's gap-free stream.
        let o = |c: &std::sync::atomic::AtomicU64| c.load(Ordering::Relaxed);
        assert_eq!(
            (o(&w.received), o(&w.bytes), o(&w.duplicates), o(&w.out_of_order), o(&w.errors)),
            (5, 160, 1, 1, 1)
        );
        assert_eq!(w.lost.load(Ordering::Relaxed), 1);
    }
}
