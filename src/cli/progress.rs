//! Progress bars for transfers a person waits on: uploads and downloads over
//! [`THRESHOLD`], drawn on standard error only when it is a terminal, so
//! pipes, logs and scripts never see them.

use std::io::IsTerminal;

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
