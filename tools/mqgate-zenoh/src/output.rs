//! Output files (docs/formats.md §2 and §9): raw latencies in mqgate's raw
//! measurements format and a summary of counts in JSON, each written
//! atomically (a temporary file in the same directory, synced, then renamed).

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::Path;

use serde::Serialize;

/// Header of the raw measurements file (formats §2).
pub const RAW_HEADER: &str = "Sample,Payload [Bytes],Latency [us]";

/// Summary format name written in every summary.json.
pub const SUMMARY_FORMAT: &str = "mqgate-zenoh-summary/1";

/// How latency values in the raw file are defined (formats §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Latency {
    /// Half the round trip (ping, default).
    HalfRtt,
    /// The whole round trip.
    Rtt,
    /// Receive time minus the send time in the header.
    OneWay,
}

impl Latency {
    pub fn name(self) -> &'static str {
        match self {
            Latency::HalfRtt => "half-rtt",
            Latency::Rtt => "rtt",
            Latency::OneWay => "one-way",
        }
    }

    /// The value written for a measured duration of ns nanoseconds, in
    /// half-nanoseconds (so that half a round trip stays exact).
    fn half_ns(self, ns: u64) -> u64 {
        match self {
            Latency::HalfRtt => ns,
            _ => 2 * ns,
        }
    }

    /// The value in whole nanoseconds (rounded down), for histograms.
    pub fn value_ns(self, ns: u64) -> u64 {
        self.half_ns(ns) / 2
    }
}

/// Appends a latency given in half-nanoseconds as microseconds: three
/// decimals for a whole nanosecond, four (ending in 5) for a half one.
fn append_us(out: &mut String, half_ns: u64) {
    use std::fmt::Write as _;
    let ns = half_ns / 2;
    let _ = write!(out, "{}.{:03}", ns / 1000, ns % 1000);
    if half_ns % 2 == 1 {
        out.push('5');
    }
}

/// Writes path atomically: write fills a temporary file beside it, which is
/// synced and renamed over path only when write succeeded.
pub fn write_atomic(path: &Path, write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no file name"))?;
    let tmp = dir.join(format!(".{}.tmp{}", name.to_string_lossy(), std::process::id()));
    let result = (|| {
        let f = File::create(&tmp)?;
        let mut w = BufWriter::new(f);
        write(&mut w)?;
        let f = w.into_inner().map_err(|e| e.into_error())?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Writes the raw measurements: for each payload in order, its latencies
/// (nanoseconds as measured: round trips or one-way) as rows numbered from 1.
pub fn write_raw(w: &mut dyn Write, latency: Latency, payloads: &[(usize, Vec<u64>)]) -> io::Result<()> {
    let mut line = String::with_capacity(64);
    writeln!(w, "{RAW_HEADER}")?;
    for (payload, values) in payloads {
        for (i, &ns) in values.iter().enumerate() {
            line.clear();
            use std::fmt::Write as _;
            let _ = write!(line, "{},{},", i + 1, payload);
            append_us(&mut line, latency.half_ns(ns));
            line.push('\n');
            w.write_all(line.as_bytes())?;
        }
    }
    Ok(())
}

/// Summary is summary.json: what ran and what was counted, per payload.
#[derive(Debug, Serialize, Default, Clone)]
pub struct Summary {
    pub format: String,
    pub role: String,
    pub helper_version: String,
    pub zenoh_version: String,
    pub zid: String,
    pub mode: String,
    pub key: String,
    pub reliability: String,
    pub congestion_control: String,
    pub express: bool,
    /// Definition of the raw file's latencies; empty for roles that measure
    /// nothing (pong, queryable, router).
    pub latency: String,
    pub completed: bool,
    /// Why the run is not complete (empty when it is).
    pub reason: String,
    /// The links to the far end once it answered: "SRC -> DST" and the
    /// link's reliability when Zenoh reports one.
    pub links: Vec<String>,
    pub payloads: Vec<PayloadCounts>,
}

/// PayloadCounts are one payload's counts. Fields a role does not count are
/// zero (docs/formats.md §9 says which role counts what).
#[derive(Debug, Serialize, Default, Clone)]
pub struct PayloadCounts {
    pub payload: u64,
    pub warmup: u64,
    pub sent: u64,
    pub received: u64,
    pub lost: u64,
    pub timeouts: u64,
    pub duplicates: u64,
    pub out_of_order: u64,
    pub late: u64,
    pub skipped: u64,
    pub clamped: u64,
    pub errors: u64,
    pub replies: u64,
    pub replies_min: u64,
    pub replies_max: u64,
    /// Payload bytes of the replies to the measured queries (query role,
    /// written only with --result-bytes: readers of summaries without it
    /// reject fields they do not know).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_bytes: Option<u64>,
    pub latency: Option<LatencyStats>,
    pub latency_last: Option<LatencyStats>,
    pub publishers: Vec<PublisherCounts>,
}

/// LatencyStats summarise one HDR histogram (3 significant digits, 1 ns to 10 s)
/// of the values written to the raw file, in nanoseconds.
#[derive(Debug, Serialize, Default, Clone, PartialEq)]
pub struct LatencyStats {
    pub count: u64,
    pub min_ns: u64,
    pub p50_ns: u64,
    pub p90_ns: u64,
    pub p99_ns: u64,
    pub p999_ns: u64,
    pub max_ns: u64,
    pub mean_ns: u64,
    pub above_range: u64,
    /// The histogram in HdrHistogram's V2 compressed encoding, base64.
    pub hdr: String,
}

/// PublisherCounts are what a subscriber counted of one publisher.
#[derive(Debug, Serialize, Default, Clone)]
pub struct PublisherCounts {
    pub publisher: u16,
    pub run_id: Option<u32>,
    /// Measured messages the publisher announced in its end marker; null
    /// when the marker never arrived.
    pub sent: Option<u64>,
    pub received: u64,
    pub lost: u64,
    pub duplicates: u64,
    pub out_of_order: u64,
}

/// Writes a raw file, or, when nothing was measured, makes sure none is
/// there: a raw file has at least one row (formats §2), and one left by an
/// earlier run must not be taken for this run's.
pub fn write_raw_file(path: &Path, latency: Latency, payloads: &[(usize, Vec<u64>)]) -> io::Result<()> {
    if payloads.iter().all(|(_, v)| v.is_empty()) {
        return match fs::remove_file(path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        };
    }
    write_atomic(path, |w| write_raw(w, latency, payloads))
}

/// Writes summary as indented JSON followed by a newline.
pub fn write_summary(w: &mut dyn Write, summary: &Summary) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *w, summary)?;
    writeln!(w)
}

/// Writes the raw file (when latencies is Some) and summary.json into dir.
pub fn write_outputs(
    dir: &Path,
    latencies: Option<(Latency, &[(usize, Vec<u64>)], &str)>,
    summary: &Summary,
) -> io::Result<()> {
    fs::create_dir_all(dir)?;
    if let Some((latency, payloads, name)) = latencies {
        write_raw_file(&dir.join(name), latency, payloads)?;
    }
    write_atomic(&dir.join("summary.json"), |w| write_summary(w, summary))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(latency: Latency, payloads: &[(usize, Vec<u64>)]) -> String {
        let mut out = Vec::new();
        write_raw(&mut out, latency, payloads).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn raw_half_rtt_is_exact() {
        let got = raw(Latency::HalfRtt, &[(16, vec![117_251, 1_000, 3]), (1024, vec![2_000_000])]);
        assert_eq!(
            got,
            "Sample,Payload [Bytes],Latency [us]\n1,16,58.6255\n2,16,0.500\n3,16,0.0015\n1,1024,1000.000\n"
        );
    }

    #[test]
    fn raw_rtt_and_one_way_print_nanoseconds() {
        assert_eq!(raw(Latency::Rtt, &[(16, vec![58_625])]), "Sample,Payload [Bytes],Latency [us]\n1,16,58.625\n");
        assert_eq!(
            raw(Latency::OneWay, &[(32, vec![0, 7])]),
            "Sample,Payload [Bytes],Latency [us]\n1,32,0.000\n2,32,0.007\n"
        );
    }

    #[test]
    fn no_raw_file_without_samples() {
        let dir = std::env::temp_dir().join(format!("mqgate-zenoh-raw-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("measurements.csv");
        write_raw_file(&path, Latency::Rtt, &[(16, vec![5_000])]).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "Sample,Payload [Bytes],Latency [us]\n1,16,5.000\n");
        // A later run that measured nothing leaves no file behind, not even
        // the earlier one.
        write_raw_file(&path, Latency::Rtt, &[(16, vec![]), (1024, vec![])]).unwrap();
        assert!(!path.exists());
        write_raw_file(&path, Latency::Rtt, &[]).unwrap();
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn value_ns_follows_the_definition() {
        assert_eq!(Latency::HalfRtt.value_ns(101), 50);
        assert_eq!(Latency::Rtt.value_ns(101), 101);
        assert_eq!(Latency::OneWay.value_ns(101), 101);
    }

    #[test]
    fn summary_json_shape() {
        let s = Summary {
            format: SUMMARY_FORMAT.into(),
            role: "sub".into(),
            completed: false,
            reason: "no message for 2s".into(),
            payloads: vec![PayloadCounts {
                payload: 16,
                received: 3,
                publishers: vec![PublisherCounts { publisher: 1, sent: None, received: 3, ..Default::default() }],
                ..Default::default()
            }],
            ..Default::default()
        };
        let mut out = Vec::new();
        write_summary(&mut out, &s).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("{\n  \"format\": \"mqgate-zenoh-summary/1\",\n  \"role\": \"sub\",\n"), "{text}");
        assert!(text.contains("\"latency\": null,"));
        assert!(text.contains("\"sent\": null,"));
        assert!(text.ends_with("}\n"));
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["payloads"][0]["publishers"][0]["received"], 3);
    }

    #[test]
    fn result_bytes_only_when_counted() {
        let text = |c: PayloadCounts| {
            let s = Summary { format: SUMMARY_FORMAT.into(), completed: true, payloads: vec![c], ..Default::default() };
            let mut out = Vec::new();
            write_summary(&mut out, &s).unwrap();
            String::from_utf8(out).unwrap()
        };
        let without = text(PayloadCounts { payload: 16, replies_max: 2, ..Default::default() });
        assert!(!without.contains("result_bytes"), "{without}");
        let with = text(PayloadCounts { payload: 16, replies_max: 2, result_bytes: Some(4096), ..Default::default() });
        assert!(
            with.contains("\"replies_max\": 2,\n      \"result_bytes\": 4096,\n      \"latency\": null,"),
            "{with}"
        );
    }

    #[test]
    fn atomic_write_replaces_only_on_success() {
        let dir = std::env::temp_dir().join(format!("mqgate-zenoh-test-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("out.csv");
        write_atomic(&path, |w| w.write_all(b"first\n")).unwrap();
        let err = write_atomic(&path, |w| {
            w.write_all(b"half")?;
            Err(io::Error::other("disk full"))
        });
        assert!(err.is_err());
        assert_eq!(fs::read_to_string(&path).unwrap(), "first\n");
        let leftovers: Vec<_> = fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(leftovers, vec![std::ffi::OsString::from("out.csv")]);
        fs::remove_dir_all(&dir).unwrap();
    }
}
