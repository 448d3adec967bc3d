//! mqgate-zenoh measures Zenoh for mqgate: one binary whose subcommands are
//! the roles of a measurement (ping/pong, pub/sub, query/queryable, router).
//! The measuring roles time messages themselves, with the clocks described in
//! docs/formats.md §9, and write mqgate's raw measurements file (formats §2)
//! and a summary.json of counts; nothing outside this process sits between a
//! message and its timestamp.
//!
//! On stdout each role prints one `ready …` line once it can take part, and
//! one `done …` line when it ends (formats §9); diagnostics go to stderr.
//!
//! Exit codes: 0 complete; 1 failure (no session, an output file could not
//! be written); 2 usage error; 4 incomplete run (the far end never came or
//! went away; partial results are written and summary.json says why); 130
//! interrupted (SIGINT/SIGTERM) after writing what was measured.

mod header;
mod output;
mod rate;
mod roles;
mod stats;
mod window;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use clap::{Args, Parser, Subcommand, ValueEnum};
use zenoh::qos::{CongestionControl, Reliability};
use zenoh::{Config, Session, Wait};

/// The zenoh crate version this helper is built against (Cargo.toml pins it;
/// a test checks Cargo.lock agrees).
pub const ZENOH_VERSION: &str = "1.10.2";

/// Set by SIGINT/SIGTERM: every loop checks it and ends, keeping its data.
pub static STOP: AtomicBool = AtomicBool::new(false);

pub fn stopped() -> bool {
    STOP.load(Ordering::Relaxed)
}

/// CLOCK_SHIFT_ENV, when set to a number of nanoseconds (signed), shifts
/// every wall-clock reading of this process by it: a host whose clock is
/// that far ahead (behind, negative), so that the clock-offset correction
/// can be tested on one machine.
pub const CLOCK_SHIFT_ENV: &str = "MQGATE_ZENOH_CLOCK_SHIFT_NS";

/// The shift of CLOCK_SHIFT_ENV, read once at start.
static CLOCK_SHIFT: AtomicI64 = AtomicI64::new(0);

/// Nanoseconds since the Unix epoch (CLOCK_REALTIME, shifted by
/// CLOCK_SHIFT_ENV when set).
pub fn epoch_ns() -> u64 {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0);
    now.saturating_add_signed(CLOCK_SHIFT.load(Ordering::Relaxed))
}

/// The epoch_ns time of the monotonic instant t, past or future. Both clocks
/// are read together (the pair with the shortest monotonic span of a few
/// tries), so that a thread preempted between the readings, or reaching t
/// late, does not shift every time computed from it.
pub fn epoch_at(t: Instant) -> u64 {
    let mut best: Option<(u64, Instant, Duration)> = None;
    for _ in 0..5 {
        let a = Instant::now();
        let e = epoch_ns();
        let span = a.elapsed();
        if best.map_or(true, |(_, _, s)| span < s) {
            best = Some((e, a + span / 2, span));
        }
        if span < Duration::from_micros(20) {
            break;
        }
    }
    let (e, at, _) = best.expect("at least one reading");
    if t >= at {
        e + (t - at).as_nanos() as u64
    } else {
        e.saturating_sub((at - t).as_nanos() as u64)
    }
}

#[derive(Parser, Debug)]
#[command(name = "mqgate-zenoh", version = concat!(env!("CARGO_PKG_VERSION"), " (zenoh ", "1.10.2", ")"))]
#[command(about = "Zenoh measurement roles for mqgate (see README.md and docs/formats.md §9)")]
struct Cli {
    #[command(subcommand)]
    role: Role,
}

#[derive(Subcommand, Debug)]
enum Role {
    /// Closed-loop round trips to a pong: one message in flight.
    Ping(roles::PingArgs),
    /// Echo every ping back, unchanged, until stopped.
    Pong(roles::ServeArgs),
    /// Open-loop publishers at a fixed rate each.
    Pub(roles::PubArgs),
    /// Receive publications, time them one way, count losses.
    Sub(roles::SubArgs),
    /// Closed-loop queries to queryables: time to first and last reply.
    Query(roles::QueryArgs),
    /// Reply to every query, until stopped.
    Queryable(roles::QueryableArgs),
    /// A Zenoh router for client-mode runs, until stopped.
    Router(roles::ServeArgs),
    /// Probe the publishers' clocks (pub --clock-key) and write clock.csv.
    Clock(roles::ClockArgs),
}

/// Settings every role shares: how to reach the others and with which QoS.
#[derive(Args, Debug, Clone)]
pub struct Common {
    /// Zenoh session mode.
    #[arg(long, value_enum, default_value_t = Mode::Peer)]
    pub mode: Mode,
    /// Endpoint to connect to, e.g. tcp/127.0.0.1:7447 (repeatable).
    #[arg(long = "connect", value_name = "ENDPOINT")]
    pub connect: Vec<String>,
    /// Endpoint to listen on, e.g. tcp/127.0.0.1:0 (repeatable).
    #[arg(long = "listen", value_name = "ENDPOINT")]
    pub listen: Vec<String>,
    /// Zenoh configuration file (JSON5) applied before the flags above.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Links one transport may use (transport/unicast/max_links); 2 lets
    /// reliable messages take a TCP link and best-effort ones a UDP link
    /// between the same two nodes.
    #[arg(long, value_name = "N")]
    pub max_links: Option<u32>,
    /// Lease of this node's sessions in seconds (transport/link/tx/lease;
    /// Zenoh's default 10): the far end of a link closes it when nothing,
    /// not even one of the keep-alives sent four times per lease, arrived
    /// within the lease this node announced.
    #[arg(long, value_parser = parse_secs, value_name = "SECONDS")]
    pub lease: Option<Duration>,
    /// Keep multicast scouting on (off by default: endpoints are explicit).
    #[arg(long)]
    pub scouting: bool,
    /// Key expression prefix of the run's topics.
    #[arg(long, default_value = "mqgate/bench")]
    pub key: String,
    /// Reliability of the data publishers (Publisher::reliability).
    #[arg(long, value_enum, default_value_t = Rel::Reliable)]
    pub reliability: Rel,
    /// Congestion control of the data publishers; default: block when
    /// reliable, drop when best effort.
    #[arg(long, value_enum)]
    pub congestion_control: Option<Cc>,
    /// Let Zenoh batch messages instead of sending each at once (express off).
    #[arg(long)]
    pub no_express: bool,
    /// Directory for the output files; created if missing.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Print a `window …` line of what the role counted every SECONDS (pub,
    /// sub, query, queryable), and the last one before its files.
    #[arg(long, value_parser = parse_secs, value_name = "SECONDS")]
    pub window: Option<Duration>,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Peer,
    Client,
    Router,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rel {
    BestEffort,
    Reliable,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cc {
    Drop,
    Block,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Peer => "peer",
            Mode::Client => "client",
            Mode::Router => "router",
        }
    }
}

impl Common {
    pub fn reliability(&self) -> Reliability {
        match self.reliability {
            Rel::BestEffort => Reliability::BestEffort,
            Rel::Reliable => Reliability::Reliable,
        }
    }

    pub fn congestion_control(&self) -> CongestionControl {
        match self.congestion_control.unwrap_or(match self.reliability {
            Rel::Reliable => Cc::Block,
            Rel::BestEffort => Cc::Drop,
        }) {
            Cc::Block => CongestionControl::Block,
            Cc::Drop => CongestionControl::Drop,
        }
    }

    pub fn express(&self) -> bool {
        !self.no_express
    }

    /// The Zenoh configuration these settings describe.
    pub fn zenoh_config(&self, mode: Mode) -> Result<Config, Failure> {
        let mut c = match &self.config {
            Some(p) => Config::from_file(p).map_err(|e| Failure::usage(format!("--config {}: {e}", p.display())))?,
            None => Config::default(),
        };
        let set = |c: &mut Config, key: &str, value: String| {
            c.insert_json5(key, &value).map_err(|e| Failure::usage(format!("zenoh configuration {key} = {value}: {e}")))
        };
        set(&mut c, "mode", format!("\"{}\"", mode.name()))?;
        if !self.connect.is_empty() {
            set(&mut c, "connect/endpoints", serde_json::to_string(&self.connect).unwrap())?;
        }
        if !self.listen.is_empty() {
            set(&mut c, "listen/endpoints", serde_json::to_string(&self.listen).unwrap())?;
        }
        if let Some(n) = self.max_links {
            set(&mut c, "transport/unicast/max_links", n.to_string())?;
        }
        if let Some(l) = self.lease {
            set(&mut c, "transport/link/tx/lease", l.as_millis().max(1).to_string())?;
        }
        if !self.scouting {
            set(&mut c, "scouting/multicast/enabled", "false".into())?;
        }
        Ok(c)
    }

    /// Opens the session, failing with a message that names the endpoints.
    pub fn open(&self, mode: Mode) -> Result<Session, Failure> {
        let config = self.zenoh_config(mode)?;
        zenoh::open(config).wait().map_err(|e| {
            Failure::runtime(format!(
                "cannot open a zenoh session (mode {}, connect [{}], listen [{}]): {e}",
                mode.name(),
                self.connect.join(", "),
                self.listen.join(", ")
            ))
        })
    }

    /// The summary fields these settings fill.
    pub fn summary(&self, role: &str, mode: Mode, session: &Session) -> output::Summary {
        output::Summary {
            format: output::SUMMARY_FORMAT.into(),
            role: role.into(),
            helper_version: env!("CARGO_PKG_VERSION").into(),
            zenoh_version: ZENOH_VERSION.into(),
            zid: session.zid().to_string(),
            mode: mode.name().into(),
            key: self.key.clone(),
            reliability: match self.reliability {
                Rel::BestEffort => "best-effort",
                Rel::Reliable => "reliable",
            }
            .into(),
            congestion_control: match self.congestion_control() {
                CongestionControl::Block => "block",
                _ => "drop",
            }
            .into(),
            express: self.express(),
            completed: true,
            ..Default::default()
        }
    }
}

/// Prints the ready line (formats §9): role, session id and the locators the
/// session listens on, so that the others can connect to a port picked by
/// the system.
pub fn ready(role: &str, session: &Session) {
    let locators: Vec<String> = session.info().locators().wait().iter().map(|l| l.to_string()).collect();
    println!("ready role={role} zid={} locators={}", session.zid(), locators.join(","));
    use std::io::Write as _;
    let _ = std::io::stdout().flush();
}

/// The session's links (formats §9, summary.json `links`).
pub fn links(session: &Session) -> Vec<String> {
    session
        .info()
        .links()
        .wait()
        .map(|l| match l.reliability() {
            Some(Reliability::Reliable) => format!("{} -> {} reliable", l.src(), l.dst()),
            Some(Reliability::BestEffort) => format!("{} -> {} best-effort", l.src(), l.dst()),
            None => format!("{} -> {}", l.src(), l.dst()),
        })
        .collect()
}

/// How a role ended.
pub enum End {
    Complete,
    /// Partial results were written; the reason is in summary.json.
    Incomplete(String),
    Interrupted,
}

/// Failure is an error that ends a role with an exit code.
#[derive(Debug)]
pub struct Failure {
    pub code: u8,
    pub msg: String,
}

impl Failure {
    pub fn usage(msg: impl Into<String>) -> Failure {
        Failure { code: 2, msg: msg.into() }
    }
    pub fn runtime(msg: impl Into<String>) -> Failure {
        Failure { code: 1, msg: msg.into() }
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Failure {
        Failure::runtime(format!("writing results: {e}"))
    }
}

/// Parses a duration in seconds (fractions allowed).
pub fn parse_secs(s: &str) -> Result<Duration, String> {
    let v: f64 = s.parse().map_err(|_| format!("{s:?} is not a number of seconds"))?;
    if !v.is_finite() || v < 0.0 {
        return Err(format!("{s:?} is not a non-negative number of seconds"));
    }
    Ok(Duration::from_secs_f64(v))
}

/// Parses a comma-separated list of payload sizes of at least 16 bytes.
pub fn parse_payloads(s: &str) -> Result<Vec<usize>, String> {
    let mut out = Vec::new();
    for p in s.split(',') {
        let n: usize = p.trim().parse().map_err(|_| format!("payload {p:?} is not a size in bytes"))?;
        if n < header::MIN_SIZE {
            return Err(format!("payload {n} is smaller than the {}-byte header", header::MIN_SIZE));
        }
        if n > 64 << 20 {
            return Err(format!("payload {n} is larger than 64 MiB"));
        }
        if out.contains(&n) {
            return Err(format!("payload {n} is listed twice"));
        }
        out.push(n);
    }
    Ok(out)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Ok(v) = std::env::var(CLOCK_SHIFT_ENV) {
        match v.trim().parse::<i64>() {
            Ok(n) => CLOCK_SHIFT.store(n, Ordering::Relaxed),
            Err(_) => {
                eprintln!("mqgate-zenoh: {CLOCK_SHIFT_ENV}={v:?}: expected a number of nanoseconds");
                return ExitCode::from(2);
            }
        }
    }
    zenoh::init_log_from_env_or("error");
    if let Err(e) = ctrlc::set_handler(|| STOP.store(true, Ordering::Relaxed)) {
        eprintln!("mqgate-zenoh: cannot handle signals: {e}");
        return ExitCode::from(1);
    }
    let (name, result) = match &cli.role {
        Role::Ping(a) => ("ping", roles::ping(a)),
        Role::Pong(a) => ("pong", roles::pong(a)),
        Role::Pub(a) => ("pub", roles::publish(a)),
        Role::Sub(a) => ("sub", roles::subscribe(a)),
        Role::Query(a) => ("query", roles::query(a)),
        Role::Queryable(a) => ("queryable", roles::queryable(a)),
        Role::Router(a) => ("router", roles::router(a)),
        Role::Clock(a) => ("clock", roles::clock(a)),
    };
    let code = match result {
        Ok(End::Complete) => {
            println!("done role={name} status=complete");
            0
        }
        Ok(End::Incomplete(reason)) => {
            println!("done role={name} status=incomplete");
            eprintln!("mqgate-zenoh {name}: incomplete run: {reason}");
            4
        }
        Ok(End::Interrupted) => {
            println!("done role={name} status=interrupted");
            130
        }
        Err(f) => {
            eprintln!("mqgate-zenoh {name}: {}", f.msg);
            f.code
        }
    };
    use std::io::Write as _;
    let _ = std::io::stdout().flush();
    ExitCode::from(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epoch_at_a_past_instant_is_in_the_past() {
        // A past instant is not "now" (a late thread's mistake): a second
        // ago is a second before now, within a generous margin for a
        // loaded machine.
        let t = Instant::now() - Duration::from_secs(1);
        let (at, now) = (epoch_at(t) as i64, epoch_ns() as i64);
        assert!((now - at - 1_000_000_000).abs() < 300_000_000, "epoch_at(1 s ago) = now - {} ns", now - at);
        let f = Instant::now() + Duration::from_secs(1);
        let (at, now) = (epoch_at(f) as i64, epoch_ns() as i64);
        assert!((at - now - 1_000_000_000).abs() < 300_000_000, "epoch_at(in 1 s) = now + {} ns", at - now);
    }

    #[test]
    fn cargo_lock_pins_the_zenoh_version_reported() {
        let lock = include_str!("../Cargo.lock");
        let want = format!("name = \"zenoh\"\nversion = \"{ZENOH_VERSION}\"\n");
        assert!(lock.contains(&want), "Cargo.lock does not pin zenoh {ZENOH_VERSION}");
    }

    #[test]
    fn payload_lists() {
        assert_eq!(parse_payloads("16,1024, 16384").unwrap(), vec![16, 1024, 16384]);
        assert!(parse_payloads("8").unwrap_err().contains("smaller than the 16-byte header"));
        assert!(parse_payloads("16,16").unwrap_err().contains("twice"));
        assert!(parse_payloads("16,x").unwrap_err().contains("\"x\""));
    }

    #[test]
    fn seconds() {
        assert_eq!(parse_secs("0.25").unwrap(), Duration::from_millis(250));
        assert!(parse_secs("-1").is_err());
        assert!(parse_secs("NaN").is_err());
    }

    #[test]
    fn qos_defaults_follow_reliability() {
        let c = Cli::parse_from(["mqgate-zenoh", "pong", "--reliability", "best-effort"]);
        let Role::Pong(a) = c.role else { panic!() };
        assert_eq!(a.common.congestion_control(), CongestionControl::Drop);
        assert_eq!(a.common.reliability(), Reliability::BestEffort);
        let c =
            Cli::parse_from(["mqgate-zenoh", "pong", "--congestion-control", "block", "--reliability", "best-effort"]);
        let Role::Pong(a) = c.role else { panic!() };
        assert_eq!(a.common.congestion_control(), CongestionControl::Block);
    }

    #[test]
    fn config_from_flags() {
        let c = Cli::parse_from(["mqgate-zenoh", "pong", "--mode", "client", "--connect", "tcp/127.0.0.1:7447"]);
        let Role::Pong(a) = c.role else { panic!() };
        let cfg = a.common.zenoh_config(Mode::Client).unwrap();
        let json = format!("{cfg}");
        assert!(json.contains("tcp/127.0.0.1:7447"), "{json}");
        let bad = Common { connect: vec!["nonsense".into()], ..a.common.clone() };
        assert!(bad.zenoh_config(Mode::Client).is_err());
    }

    #[test]
    fn lease_from_flag() {
        let lease = |args: &[&str]| {
            let c = Cli::parse_from([&["mqgate-zenoh", "router"], args].concat());
            let Role::Router(a) = c.role else { panic!() };
            a.common.zenoh_config(Mode::Router).unwrap().get_json("transport/link/tx/lease").unwrap()
        };
        assert_eq!(lease(&[]), "10000");
        assert_eq!(lease(&["--lease", "2.5"]), "2500");
    }
}
