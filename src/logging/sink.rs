//! Where every log line goes: an in-memory buffer that a background thread
//! writes to stderr in batches.
//!
//! Writing each line with its own `write(2)` would cost a system call per
//! request and make the runtime's workers contend for stderr's lock. Here a
//! line is a `memcpy` into a shared buffer under a briefly held mutex; the
//! first line into an empty buffer wakes the flusher, which waits [`GATHER`]
//! for more and writes the whole batch at once. An idle server writes nothing and the flusher sleeps
//! on a condition variable, so it costs no CPU.
//!
//! Order is kept: batches leave in the order their lines arrived. Warnings
//! and errors are written at once (with everything buffered before them), so
//! the last words before a crash are not left in memory. A full buffer
//! ([`MAX_BUFFERED`]) is written by the logging thread itself: when stderr
//! cannot keep up, logging slows the server down rather than using unbounded
//! memory or dropping lines. A `kill -9` loses at most [`GATHER`] of lines.

use std::io::Write;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use tracing::Level;
use tracing_subscriber::fmt::MakeWriter;

/// How long the flusher lets a batch gather after its first line.
pub const GATHER: Duration = Duration::from_millis(20);
/// Buffered bytes at which the logging thread writes the batch itself.
pub const MAX_BUFFERED: usize = 1 << 20;
/// Capacity kept between batches; a burst's larger buffer is given back.
const KEEP_CAPACITY: usize = 64 << 10;

/// A cheap handle to the shared buffer.
#[derive(Clone)]
pub struct Sink {
    shared: Arc<Shared>,
}

struct Shared {
    /// Where batches go: standard error, or a test's buffer.
    out: Mutex<Box<dyn Write + Send>>,
    /// Lines not yet written.
    pending: Mutex<Pending>,
    /// Signalled when the first line arrives in an empty buffer, and at stop.
    wake: Condvar,
    /// The batch being written. Also the write lock: it is taken while
    /// `pending` is still held, so batches leave in the order they were cut.
    writing: Mutex<Vec<u8>>,
}

#[derive(Default)]
struct Pending {
    lines: Vec<u8>,
    stopping: bool,
}

/// Stops the flusher and writes what is left when dropped.
pub struct Flusher {
    sink: Sink,
    thread: Option<JoinHandle<()>>,
}

impl Sink {
    /// A sink writing to standard error, and its flusher thread (`snip-log`).
    pub fn start() -> std::io::Result<(Sink, Flusher)> {
        Self::start_writing_to(Box::new(std::io::stderr()))
    }

    /// A sink writing to `out`, and its flusher thread.
    pub fn start_writing_to(out: Box<dyn Write + Send>) -> std::io::Result<(Sink, Flusher)> {
        let sink = Sink {
            shared: Arc::new(Shared {
                out: Mutex::new(out),
                pending: Mutex::new(Pending::default()),
                wake: Condvar::new(),
                writing: Mutex::new(Vec::new()),
            }),
        };
        let worker = sink.clone();
        let thread = std::thread::Builder::new()
            .name("snip-log".into())
            .spawn(move || worker.run_flusher())?;
        let flusher = Flusher {
            sink: sink.clone(),
            thread: Some(thread),
        };
        Ok((sink, flusher))
    }

    /// Buffers one or more whole lines.
    pub fn append(&self, lines: &[u8]) {
        let mut pending = lock(&self.shared.pending);
        let was_empty = pending.lines.is_empty();
        pending.lines.extend_from_slice(lines);
        if pending.lines.len() >= MAX_BUFFERED {
            self.write_out(pending);
            return;
        }
        drop(pending);
        if was_empty {
            self.shared.wake.notify_one();
        }
    }

    /// Writes everything buffered so far, now.
    pub fn flush(&self) {
        self.write_out(lock(&self.shared.pending));
    }

    /// Cuts the pending lines into a batch and writes it.
    fn write_out(&self, mut pending: MutexGuard<'_, Pending>) {
        let mut batch = lock(&self.shared.writing);
        std::mem::swap(&mut pending.lines, &mut *batch);
        drop(pending);
        if batch.is_empty() {
            return;
        }
        // Nowhere to report a failed write of the log itself.
        let _ = lock(&self.shared.out).write_all(&batch);
        batch.clear();
        batch.shrink_to(KEEP_CAPACITY);
    }

    fn run_flusher(&self) {
        loop {
            let mut pending = lock(&self.shared.pending);
            while pending.lines.is_empty() && !pending.stopping {
                pending = self
                    .shared
                    .wake
                    .wait(pending)
                    .unwrap_or_else(PoisonError::into_inner);
            }
            if pending.stopping {
                self.write_out(pending);
                return;
            }
            drop(pending);
            std::thread::sleep(GATHER);
            self.flush();
        }
    }
}

impl Drop for Flusher {
    fn drop(&mut self) {
        lock(&self.sink.shared.pending).stopping = true;
        self.sink.shared.wake.notify_one();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        self.sink.flush();
    }
}

/// Poisoning cannot leave the buffer inconsistent (a panic mid-`extend`
/// leaves whole bytes), so a poisoned lock is used as is.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What `tracing-subscriber` writes one formatted event into.
pub struct SinkWriter<'a> {
    sink: &'a Sink,
    urgent: bool,
}

impl Write for SinkWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.sink.append(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for SinkWriter<'_> {
    fn drop(&mut self) {
        if self.urgent {
            self.sink.flush();
        }
    }
}

impl<'a> MakeWriter<'a> for Sink {
    type Writer = SinkWriter<'a>;

    fn make_writer(&'a self) -> SinkWriter<'a> {
        SinkWriter {
            sink: self,
            urgent: false,
        }
    }

    fn make_writer_for(&'a self, meta: &tracing::Metadata<'_>) -> SinkWriter<'a> {
        SinkWriter {
            sink: self,
            urgent: *meta.level() <= Level::WARN,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    /// A writer the test can read back: every `write` call is one batch.
    #[derive(Clone, Default)]
    struct Batches(Arc<Mutex<Vec<Vec<u8>>>>);

    impl Write for Batches {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            lock(&self.0).push(buf.to_vec());
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Batches {
        fn text(&self) -> String {
            String::from_utf8(lock(&self.0).concat()).expect("UTF-8")
        }
        fn count(&self) -> usize {
            lock(&self.0).len()
        }
    }

    fn wait_until(done: impl Fn() -> bool) {
        let deadline = Instant::now() + Duration::from_secs(5);
        while !done() {
            assert!(Instant::now() < deadline, "timed out");
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    #[test]
    fn lines_leave_in_order_in_few_batches() {
        let out = Batches::default();
        let (sink, _flusher) = Sink::start_writing_to(Box::new(out.clone())).expect("start");
        let expected: String = (0..1000).map(|i| format!("line {i}\n")).collect();
        for i in 0..1000 {
            sink.append(format!("line {i}\n").as_bytes());
        }
        wait_until(|| out.text().len() == expected.len());
        assert_eq!(out.text(), expected);
        // One write per gathered batch, not one per line.
        assert!(out.count() < 100, "{} writes", out.count());
    }

    #[test]
    fn warnings_are_written_at_once_with_what_came_before() {
        let out = Batches::default();
        let (sink, _flusher) = Sink::start_writing_to(Box::new(out.clone())).expect("start");
        sink.append(b"info\n");
        {
            let mut urgent = SinkWriter {
                sink: &sink,
                urgent: true,
            };
            urgent.write_all(b"warn\n").expect("write");
        }
        // Written by the dropped writer itself, before the flusher's gathering delay.
        assert_eq!(out.text(), "info\nwarn\n");
    }

    #[test]
    fn a_full_buffer_is_written_by_the_logging_thread() {
        let out = Batches::default();
        let (sink, _flusher) = Sink::start_writing_to(Box::new(out.clone())).expect("start");
        let mut line = vec![b'x'; MAX_BUFFERED];
        line.push(b'\n');
        sink.append(&line);
        // Already written when append returns: nothing waited for the flusher.
        assert_eq!(out.text().len(), line.len());
    }

    #[test]
    fn stopping_writes_what_is_left() {
        let out = Batches::default();
        let (sink, flusher) = Sink::start_writing_to(Box::new(out.clone())).expect("start");
        sink.append(b"last words\n");
        drop(flusher);
        assert_eq!(out.text(), "last words\n");
    }
}
