//! The per-request log line, formatted by hand.
//!
//! Every request gets one line, so its cost is paid at full request rate,
//! and `tracing-subscriber`'s formatter spends it on field visitors, `fmt`
//! machinery and the timestamp's calendar arithmetic. This writes the same
//! line, in the same text or JSON shape as the formatter's, with integer
//! formatting by `itoa` and the timestamp's date and time of day formatted
//! once per second per thread.
//!
//! The line is still governed by `--log`: [`enabled`] asks `tracing` whether
//! `snip::request` is on at INFO (once, when logging is installed), so
//! `--log info,snip::request=warn` turns request lines off.

use std::cell::RefCell;
use std::io::Write as _;
use std::net::IpAddr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::LogFormat;

/// The target request lines are logged under (`--log snip::request=…`).
pub const TARGET: &str = "snip::request";

/// What one request line says.
pub struct RequestLine<'a> {
    /// The request method.
    pub method: &'a str,
    /// The matched route's template (`/raw/{id}`), never the path.
    pub route: &'a str,
    /// The response status.
    pub status: u16,
    /// The response body's size (its lower bound when streamed).
    pub bytes: u64,
    /// Time from the request's arrival to its response's head.
    pub latency: Duration,
    /// The client, after trusted-proxy resolution.
    pub client: IpAddr,
}

/// Whether request lines are logged.
pub fn enabled() -> bool {
    tracing::enabled!(target: TARGET, tracing::Level::INFO)
}

thread_local! {
    /// This thread's line buffer and timestamp cache, reused for every line.
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

#[derive(Default)]
struct Scratch {
    line: Vec<u8>,
    /// The second `date_time` was formatted for.
    second: u64,
    /// `YYYY-MM-DDTHH:MM:SS` of `second`.
    date_time: Vec<u8>,
}

/// Formats `line` as of `now` and hands it to `emit`.
pub fn format(
    format: LogFormat,
    line: &RequestLine<'_>,
    now: SystemTime,
    emit: impl FnOnce(&[u8]),
) {
    SCRATCH.with(|scratch| {
        let mut scratch = scratch.borrow_mut();
        let Scratch {
            line: out,
            second,
            date_time,
        } = &mut *scratch;
        out.clear();
        let since_epoch = now.duration_since(UNIX_EPOCH).unwrap_or_default();
        if *second != since_epoch.as_secs() || date_time.is_empty() {
            *second = since_epoch.as_secs();
            date_time.clear();
            let whole = UNIX_EPOCH + Duration::from_secs(*second);
            // "YYYY-MM-DDTHH:MM:SSZ": keep all but the Z.
            let _ = write!(date_time, "{}", humantime::format_rfc3339_seconds(whole));
            date_time.pop();
        }
        let shape = match format {
            LogFormat::Text => &TEXT,
            LogFormat::Json => &JSON,
        };
        write_line(out, shape, date_time, since_epoch.subsec_micros(), line);
        emit(out);
    });
}

/// The literal text around a line's fields: before the timestamp, then
/// before the method, route, status, bytes, latency and client, and after
/// the client. Both shapes carry the same fields in the same order.
type Shape = [&'static [u8]; 8];

/// `2026-11-24T07:06:55.430678Z  INFO snip::request: request method=GET route="/raw/{id}" status=200 bytes=1024 latency_us=24 client=127.0.0.1`
const TEXT: Shape = [
    b"",
    b"  INFO snip::request: request method=",
    b" route=\"",
    b"\" status=",
    b" bytes=",
    b" latency_us=",
    b" client=",
    b"\n",
];

/// The JSON shape of `tracing-subscriber`'s flattened events. Methods are
/// HTTP tokens and route templates are ours: neither needs escaping.
const JSON: Shape = [
    b"{\"timestamp\":\"",
    b"\",\"level\":\"INFO\",\"message\":\"request\",\"method\":\"",
    b"\",\"route\":\"",
    b"\",\"status\":",
    b",\"bytes\":",
    b",\"latency_us\":",
    b",\"client\":\"",
    b"\",\"target\":\"snip::request\"}\n",
];

/// Writes `line` in `shape`, stamped with `date_time` and `micros`.
fn write_line(
    out: &mut Vec<u8>,
    shape: &Shape,
    date_time: &[u8],
    micros: u32,
    line: &RequestLine<'_>,
) {
    let [start, method, route, status, bytes, latency, client, end] = shape;
    out.extend_from_slice(start);
    timestamp(out, date_time, micros);
    out.extend_from_slice(method);
    out.extend_from_slice(line.method.as_bytes());
    out.extend_from_slice(route);
    out.extend_from_slice(line.route.as_bytes());
    out.extend_from_slice(status);
    number(out, line.status.into());
    out.extend_from_slice(bytes);
    number(out, line.bytes);
    out.extend_from_slice(latency);
    number(out, micros_of(line.latency));
    out.extend_from_slice(client);
    ip(out, line.client);
    out.extend_from_slice(end);
}

fn timestamp(out: &mut Vec<u8>, date_time: &[u8], micros: u32) {
    out.extend_from_slice(date_time);
    out.push(b'.');
    // Six digits, zero-padded.
    let mut digits = [b'0'; 6];
    let mut rest = micros;
    for digit in digits.iter_mut().rev() {
        *digit = b'0' + (rest % 10) as u8;
        rest /= 10;
    }
    out.extend_from_slice(&digits);
    out.push(b'Z');
}

fn number(out: &mut Vec<u8>, n: u64) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

fn micros_of(latency: Duration) -> u64 {
    u64::try_from(latency.as_micros()).unwrap_or(u64::MAX)
}

fn ip(out: &mut Vec<u8>, ip: IpAddr) {
    match ip {
        IpAddr::V4(v4) => {
            for (i, octet) in v4.octets().into_iter().enumerate() {
                if i > 0 {
                    out.push(b'.');
                }
                number(out, octet.into());
            }
        }
        // Rarer, and its shortest form has rules (`::`, embedded IPv4) best left to std.
        IpAddr::V6(v6) => {
            let _ = write!(out, "{v6}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> RequestLine<'static> {
        RequestLine {
            method: "GET",
            route: "/raw/{id}",
            status: 200,
            bytes: 1024,
            latency: Duration::from_micros(37),
            client: IpAddr::from([10, 0, 0, 255]),
        }
    }

    fn formatted(format: LogFormat, line: &RequestLine<'_>, now: SystemTime) -> String {
        let mut text = String::new();
        super::format(format, line, now, |bytes| {
            text = String::from_utf8(bytes.to_vec()).expect("UTF-8");
        });
        text
    }

    // 2026-11-24T07:06:55Z, and 5 µs past it.
    const SECOND: u64 = 1_795_504_015;

    #[test]
    fn text_line_has_the_formatters_shape() {
        let now = UNIX_EPOCH + Duration::from_secs(SECOND) + Duration::from_micros(5);
        assert_eq!(
            formatted(LogFormat::Text, &sample(), now),
            "2026-11-24T07:06:55.000005Z  INFO snip::request: request method=GET \
             route=\"/raw/{id}\" status=200 bytes=1024 latency_us=37 client=10.0.0.255\n"
        );
    }

    #[test]
    fn json_line_is_one_object_with_typed_fields() {
        let now = UNIX_EPOCH + Duration::from_secs(SECOND) + Duration::from_micros(999_999);
        let mut line = sample();
        line.client = "2001:db8::1".parse().expect("IPv6");
        let text = formatted(LogFormat::Json, &line, now);
        assert!(text.ends_with('\n'));
        let value: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        assert_eq!(value["timestamp"], "2026-11-24T07:06:55.999999Z");
        assert_eq!(value["level"], "INFO");
        assert_eq!(value["target"], TARGET);
        assert_eq!(value["route"], "/raw/{id}");
        assert_eq!(value["status"], 200);
        assert_eq!(value["bytes"], 1024);
        assert_eq!(value["latency_us"], 37);
        assert_eq!(value["client"], "2001:db8::1");
    }

    #[test]
    fn the_cached_second_follows_the_clock() {
        let first = UNIX_EPOCH + Duration::from_secs(SECOND);
        let next_day = first + Duration::from_secs(86_400 + 3_600);
        assert!(
            formatted(LogFormat::Text, &sample(), first).starts_with("2026-11-24T07:06:55.000000Z")
        );
        assert!(
            formatted(LogFormat::Text, &sample(), next_day)
                .starts_with("2026-11-25T08:06:55.000000Z")
        );
        assert!(formatted(LogFormat::Text, &sample(), first).starts_with("2026-11-24T07:06:55."));
    }
}
