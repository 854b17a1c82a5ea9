//! Progress for what a person waits on: uploads and downloads over
//! [`THRESHOLD`], and backups, restores and migrations, drawn on standard
//! error only when it is a terminal, so pipes, logs and scripts never see it.

use std::io::IsTerminal;
use std::time::Duration;

use bytes::Bytes;
use indicatif::{ProgressBar, ProgressStyle};

/// Below this a transfer is over before a bar would be worth reading.
pub const THRESHOLD: u64 = 1024 * 1024;

/// The size of each piece an upload is handed to the connection in, so the
/// bar moves while it is sent.
const CHUNK: usize = 64 * 1024;

/// A bar for `total` bytes labelled `what`, or `None` when standard error is
/// not a terminal or the transfer is small.
pub fn bar(total: u64, what: &str) -> Option<ProgressBar> {
    if total < THRESHOLD || !std::io::stderr().is_terminal() {
        return None;
    }
    let style = ProgressStyle::with_template(
        "{msg} {bytes}/{total_bytes} {binary_bytes_per_sec} eta {eta}",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar());
    let bar = ProgressBar::new(total).with_style(style);
    bar.set_message(what.to_owned());
    Some(bar)
}

/// A spinner for work of unknown size labelled `what`, counting bytes with
/// [`ProgressBar::inc`] when `counts_bytes`; `None` when standard error is not
/// a terminal. Finish it with [`ProgressBar::finish_and_clear`].
pub fn spinner(what: &str, counts_bytes: bool) -> Option<ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let template = if counts_bytes {
        "{spinner} {msg} {bytes} {binary_bytes_per_sec} {elapsed}"
    } else {
        "{spinner} {msg} {elapsed}"
    };
    let style =
        ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_spinner());
    let bar = ProgressBar::new_spinner()
        .with_style(style)
        .with_message(what.to_owned());
    // Drawn at once, then kept moving while the work gives no news.
    bar.tick();
    bar.enable_steady_tick(Duration::from_millis(120));
    Some(bar)
}

/// Clears a bar or spinner, if there is one, before the final message.
pub fn finish(bar: Option<ProgressBar>) {
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
}

/// An upload body that advances `bar` as the connection takes each piece.
pub fn upload_body(body: Vec<u8>, bar: ProgressBar) -> reqwest::Body {
    let body = Bytes::from(body);
    let pieces: Vec<Bytes> = (0..body.len())
        .step_by(CHUNK)
        .map(|start| body.slice(start..body.len().min(start + CHUNK)))
        .collect();
    let stream = futures_util::stream::iter(pieces.into_iter().map(move |piece| {
        bar.inc(piece.len() as u64);
        Ok::<_, std::io::Error>(piece)
    }));
    reqwest::Body::wrap_stream(stream)
}
