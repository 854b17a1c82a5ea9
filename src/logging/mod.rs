//! The server's logs: `tracing` events and the per-request line, both written
//! through one buffered [`sink`] so that they keep their order and cost no
//! system call per line.
//!
//! [`init`] installs the `tracing` subscriber (filter from `--log`, text or
//! JSON from `--log-format`) writing into the sink; [`request()`] writes a
//! request's line, formatted by [`request`](mod@request) rather than by the
//! subscriber because it is paid on every request.

use std::sync::OnceLock;
use std::time::SystemTime;

use tracing_subscriber::EnvFilter;

pub mod request;
pub mod sink;

pub use request::RequestLine;
use sink::{Flusher, Sink};

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line.
    Json,
}

/// Where request lines go, once [`init`] ran.
static INSTALLED: OnceLock<Installed> = OnceLock::new();

struct Installed {
    sink: Sink,
    format: LogFormat,
    /// Whether `--log` lets request lines through. Asked once: the filter
    /// cannot change while snip runs, and asking `tracing` on every request
    /// would add a thread-local dispatcher lookup and the filter's match to each.
    request_lines: bool,
}

/// Keeps the log flusher running; dropping it writes out what is buffered.
pub struct LogGuard {
    _flusher: Flusher,
}

/// Installs the process's logging: `directives` in `EnvFilter` syntax (`--log`),
/// lines in `format`. Call once, before serving.
pub fn init(directives: &str, format: LogFormat) -> anyhow::Result<LogGuard> {
    // The storage engine's own info lines, and PostgreSQL's notices ("schema
    // … already exists, skipping") that tokio_postgres logs at info, are
    // noise to an operator; keep their warnings.
    let mut directives = directives.to_owned();
    for quiet in ["fjall", "lsm_tree", "tokio_postgres"] {
        if !directives.contains(quiet) {
            directives.push_str(&format!(",{quiet}=warn"));
        }
    }
    let filter = EnvFilter::try_new(&directives).unwrap_or_else(|_| EnvFilter::new("info"));
    let (sink, flusher) = Sink::start()?;
    let logs = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(colors_wanted())
        .with_writer(sink.clone());
    match format {
        LogFormat::Text => logs.try_init(),
        // Fields at the top level (not under "fields"), so collectors see
        // `route`, `status`, … directly.
        LogFormat::Json => logs.json().flatten_event(true).try_init(),
    }
    .map_err(|e| anyhow::anyhow!("cannot install the logger: {e}"))?;
    flush_before_panic_reports(sink.clone());
    let _ = INSTALLED.set(Installed {
        sink,
        format,
        request_lines: request::enabled(),
    });
    Ok(LogGuard { _flusher: flusher })
}

/// Colors only for a person at a terminal, and never with `NO_COLOR` set.
fn colors_wanted() -> bool {
    use std::io::IsTerminal;
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && std::io::stderr().is_terminal()
}

/// A panic message goes straight to stderr; buffered lines from before the
/// panic are written first, so the log reads in order.
fn flush_before_panic_reports(sink: Sink) {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        sink.flush();
        report(info);
    }));
}

/// Logs one request's line, if request lines are on (`--log`).
pub fn request(line: &RequestLine<'_>) {
    match INSTALLED.get() {
        Some(installed) => {
            if installed.request_lines {
                request::format(installed.format, line, SystemTime::now(), |bytes| {
                    installed.sink.append(bytes);
                });
            }
        }
        // Without `init` (the router embedded elsewhere), an ordinary event,
        // filtered by whatever subscriber is installed.
        None => tracing::info!(
            target: request::TARGET,
            method = line.method,
            route = line.route,
            status = line.status,
            bytes = line.bytes,
            latency_us = u64::try_from(line.latency.as_micros()).unwrap_or(u64::MAX),
            client = %line.client,
            "request"
        ),
    }
}
