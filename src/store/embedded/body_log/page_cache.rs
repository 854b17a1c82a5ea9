//! The OS's page cache as the body log uses it ([`PageCache`], the kernel's
//! in [`Kernel`]), and the thread that writes sealed segments back.

use std::fs::File;
use std::path::Path;
use std::sync::{Arc, mpsc};

use super::Segment;
use crate::store::StoreError;

/// The OS's page cache as the body log uses it: reads that must not wait
/// for the disk, and writing sealed segments back. [`Kernel`] is the real
/// one; tests put in a stand-in whose answers they choose, because what the
/// kernel keeps cached is not theirs to decide.
pub trait PageCache: Send + Sync + 'static {
    /// Fills `buf` from `file` at `offset` if that needs no disk read;
    /// `false` if it would (or if the file system cannot say).
    fn read_if_cached(&self, file: &File, buf: &mut [u8], offset: u64) -> bool;

    /// Writes a sealed segment back, waiting until it is on disk; its pages
    /// stay cached.
    fn write_back(&self, file: &File, path: &Path);
}

/// Linux's page cache: `preadv2` with `RWF_NOWAIT`, and `fdatasync`.
pub struct Kernel;

impl PageCache for Kernel {
    fn read_if_cached(&self, file: &File, buf: &mut [u8], offset: u64) -> bool {
        use rustix::io::{ReadWriteFlags, preadv2};
        let len = buf.len();
        // A zero-length read succeeds at once; RWF_NOWAIT only concerns waiting.
        let read = preadv2(
            file,
            &mut [std::io::IoSliceMut::new(buf)],
            offset,
            ReadWriteFlags::NOWAIT,
        );
        // Partly cached (a short read), not cached (EAGAIN), or not supported here.
        read.is_ok_and(|n| n == len)
    }

    fn write_back(&self, file: &File, path: &Path) {
        // Not durability (without `--sync` nothing waits for it): a bound on
        // dirty pages. A failure here is seen again by the next sync, if any.
        if let Err(e) = file.sync_data() {
            tracing::debug!(path = %path.display(), error = %e, "cannot write back body segment");
        }
    }
}

/// Writes each sealed segment back, on a thread of its own
/// ("snip-writeback"): not on the committer, which every create waits for,
/// because writing back a whole segment takes milliseconds or more (the file
/// system allocates its blocks then). With `--sync` the committer has synced
/// it when sealing, so nothing is sent here.
pub(super) struct Writeback {
    jobs: mpsc::Sender<Job>,
}

enum Job {
    Sealed(Arc<Segment>),
    /// Answered once every earlier job is done (tests).
    #[cfg(test)]
    Settle(mpsc::Sender<()>),
}

impl Writeback {
    /// Starts the thread; it ends when the body log is dropped.
    pub(super) fn start(page_cache: Arc<dyn PageCache>) -> Result<Self, StoreError> {
        let (jobs, queue) = mpsc::channel();
        std::thread::Builder::new()
            .name("snip-writeback".into())
            .spawn(move || Self::run(&queue, page_cache.as_ref()))
            .map_err(|e| StoreError::backend_caused("cannot start the writeback thread", e))?;
        Ok(Self { jobs })
    }

    fn run(queue: &mpsc::Receiver<Job>, page_cache: &dyn PageCache) {
        for job in queue {
            match job {
                Job::Sealed(sealed) => page_cache.write_back(&sealed.file, &sealed.path),
                #[cfg(test)]
                Job::Settle(done) => {
                    let _ = done.send(());
                }
            }
        }
    }

    pub(super) fn sealed(&self, segment: Arc<Segment>) {
        // Fails only once the thread is gone (it never stops first).
        let _ = self.jobs.send(Job::Sealed(segment));
    }

    /// Waits until every segment sealed so far has been handled.
    #[cfg(test)]
    pub(super) fn settle(&self) {
        let (done, wait) = mpsc::channel();
        if self.jobs.send(Job::Settle(done)).is_ok() {
            let _ = wait.recv();
        }
    }
}
