//! The global allocator: mimalloc, called the way its C API is meant to be.
//!
//! Why mimalloc at all: a request passes through some twenty small
//! allocations in hyper, axum and tower, and mimalloc's thread-local free
//! lists serve them far more cheaply than glibc's malloc, and return memory
//! to the OS when idle. It is built with `no_thp`, because the transparent
//! huge pages it would otherwise ask for are committed at start and inflate
//! the idle memory.
//!
//! Why not the `mimalloc` crate's `MiMalloc`: it sends every allocation to
//! `mi_malloc_aligned`, and mimalloc 3 serves an aligned request from a
//! plain size class only when that class is a power of two. Every other
//! size (a 208-byte header table, a 1.7 KiB request future) would take the
//! slower, over-allocating aligned path whenever the free list is empty
//! (purpleprotocol/mimalloc_rust#170). Here, as in Rust's own `System`
//! allocator, an alignment that every mimalloc block of that size already
//! has (at most 16, and no larger than the size) goes to the plain
//! functions; only the rare larger alignments (tokio's cache-padded task
//! cells) use the aligned ones.
//!
//! Memory that mimalloc frees goes back to the OS within [`PURGE_EVERY`]
//! while snip is busy, and as soon as it goes idle ([`start_purger`]), not
//! only when mimalloc's own delay of a second has passed and a thread next
//! allocates: fjall frees a memtable of megabytes at every flush and
//! allocates the next one, and a second of such churn held about 20 MiB of
//! RSS that nothing used, which an idle server kept. Purging at once instead
//! (a delay of 0) returns every emptied page the moment it empties, and a
//! create flood spends much of its time faulting the same pages back in;
//! one purge every tenth of a second costs next to nothing.
//!
//! C libraries (zstd) allocate through glibc's malloc, not this one;
//! [`map_large_c_blocks`] makes it hand back what they free.
//!
//! The only `unsafe` code in snip: the allocator interface is unsafe by
//! definition, and each function below forwards to mimalloc (or glibc)
//! unchanged.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use libmimalloc_sys as mi;

/// The largest alignment mimalloc gives every block of at least that size
/// (`MI_MAX_ALIGN_SIZE`; smaller blocks are aligned to their size class).
const NATURAL_ALIGN: usize = 16;

/// How long memory freed while snip is busy may stay with mimalloc.
pub const PURGE_EVERY: Duration = Duration::from_millis(100);

// Declared here rather than through the sys crate's `extended` feature,
// which would add a dependency for one function of the library it links.
unsafe extern "C" {
    fn mi_collect(force: bool);
}

/// The purger's state: whether a runtime thread has parked since its last
/// purge, and how it is woken.
struct Purger {
    busy: AtomicBool,
    idle: Mutex<()>,
    wake: Condvar,
}

static PURGER: OnceLock<Purger> = OnceLock::new();

/// Starts the thread that hands freed memory back to the OS (see the module
/// comment): once a runtime thread parks ([`note_activity`]), it waits
/// [`PURGE_EVERY`] and purges everything mimalloc holds free, then sleeps
/// until a thread parks again, so an idle server neither keeps freed memory
/// nor wakes up. An operator who sets `MIMALLOC_PURGE_DELAY` gets mimalloc's
/// own purging as set, and no thread.
pub fn start_purger() -> std::io::Result<()> {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
        return Ok(());
    }
    PURGER.get_or_init(Purger::new).spawn()
}

/// Makes glibc's malloc, which C libraries (zstd) allocate through, map
/// every block of 128 KiB or more on its own, so that freeing one hands it
/// back to the OS. By default glibc raises that threshold each time such a
/// block is freed, and later large blocks come from an arena whose free
/// top it never returns: training a zstd dictionary left 7 MiB of RSS
/// behind that way, for the process's life.
pub fn map_large_c_blocks() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes glibc's tuning; a fixed threshold also
    // turns its dynamic adjustment off. Called before any such allocation.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 << 10);
    }
}

/// Hands everything mimalloc holds free back to the OS now, as the purger
/// would: after a burst of work that no runtime thread's park follows at
/// once, such as opening the store. Nothing when the purger is not running
/// (`MIMALLOC_PURGE_DELAY` set, or not a server).
pub fn purge_now() {
    if PURGER.get().is_some() {
        purge();
    }
}

/// Forces a purge of every arena's free memory, whichever thread freed it.
fn purge() {
    // SAFETY: a plain FFI call.
    unsafe { mi_collect(true) }
}

/// Tells the purger that a runtime thread is parking: the work it did since
/// the last purge may have freed memory. Costs a clock read and a load of a
/// shared flag while a purge is already due.
pub fn note_activity() {
    let Some(purger) = PURGER.get() else { return };
    // Pages a thread emptied stay with it until it collects them; the purger
    // can only purge what threads have returned.
    thread_local! {
        static COLLECTED: Cell<Option<Instant>> = const { Cell::new(None) };
    }
    let now = Instant::now();
    if COLLECTED
        .get()
        .is_none_or(|at| now.duration_since(at) >= PURGE_EVERY)
    {
        COLLECTED.set(Some(now));
        // SAFETY: a plain FFI call; unforced, it collects this thread's pages.
        unsafe { mi_collect(false) }
    }
    purger.note();
}

impl Purger {
    fn new() -> Self {
        Self {
            busy: AtomicBool::new(false),
            idle: Mutex::new(()),
            wake: Condvar::new(),
        }
    }

    fn spawn(&'static self) -> std::io::Result<()> {
        std::thread::Builder::new()
            .name("snip-purge".into())
            .spawn(move || self.run())
            .map(drop)
    }

    /// Asks for a purge, waking the thread if none was due.
    fn note(&self) {
        if !self.busy.load(Ordering::Relaxed) && !self.busy.swap(true, Ordering::AcqRel) {
            let _idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
            self.wake.notify_one();
        }
    }

    fn run(&self) {
        loop {
            {
                let idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
                let _idle = self
                    .wake
                    .wait_while(idle, |()| !self.busy.load(Ordering::Acquire))
                    .unwrap_or_else(PoisonError::into_inner);
            }
            std::thread::sleep(PURGE_EVERY);
            // Cleared before purging: a park from now on asks for the next purge.
            self.busy.store(false, Ordering::Release);
            purge();
        }
    }
}

/// mimalloc as Rust's global allocator (see the module comment).
pub struct Mimalloc;

/// Whether a plain mimalloc block of `size` bytes is aligned enough for `align`.
fn natural(align: usize, size: usize) -> bool {
    align <= NATURAL_ALIGN && align <= size
}

// SAFETY: every function returns what mimalloc returns for the same size and
// alignment (a null pointer on failure, as `GlobalAlloc` requires), memory is
// only ever freed or resized by mimalloc, and a plain block is used only when
// `natural` holds, which mimalloc guarantees to be aligned enough.
unsafe impl GlobalAlloc for Mimalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let (size, align) = (layout.size(), layout.align());
        // SAFETY: plain FFI calls; mimalloc accepts any size and power-of-two alignment.
        unsafe {
            if natural(align, size) {
                mi::mi_malloc(size).cast()
            } else {
                mi::mi_malloc_aligned(size, align).cast()
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let (size, align) = (layout.size(), layout.align());
        // SAFETY: as in `alloc`.
        unsafe {
            if natural(align, size) {
                mi::mi_zalloc(size).cast()
            } else {
                mi::mi_zalloc_aligned(size, align).cast()
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: the caller passes a pointer this allocator returned, which
        // mimalloc frees whatever function allocated it.
        unsafe { mi::mi_free(ptr.cast::<c_void>()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let align = layout.align();
        // SAFETY: `ptr` came from this allocator; the new block keeps `align`.
        unsafe {
            if natural(align, new_size) {
                mi::mi_realloc(ptr.cast::<c_void>(), new_size).cast()
            } else {
                mi::mi_realloc_aligned(ptr.cast::<c_void>(), new_size, align).cast()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A park asks for one purge, which the thread carries out and clears,
    /// and a later park asks again.
    #[test]
    fn the_purger_answers_every_park() {
        let purger: &'static Purger = Box::leak(Box::new(Purger::new()));
        purger.spawn().unwrap();
        for _ in 0..2 {
            purger.note();
            assert!(purger.busy.load(Ordering::Acquire));
            // The purge clears the flag: wait for that signal, however long
            // the machine takes to schedule the thread, short of a hang.
            let hung = Instant::now() + Duration::from_secs(60);
            while purger.busy.load(Ordering::Acquire) {
                assert!(Instant::now() < hung, "the purger never purged");
                std::thread::sleep(PURGE_EVERY / 10);
            }
        }
    }

    /// Every block has the alignment its layout asked for, across sizes that
    /// take the plain path and the aligned one, and keeps its bytes through
    /// growing and shrinking.
    #[test]
    fn blocks_are_aligned_and_keep_their_bytes() {
        for align in [1, 2, 4, 8, 16, 32, 64, 128, 4096] {
            for size in [1, 7, 8, 12, 16, 24, 48, 200, 208, 1784, 4000, 70_000] {
                let Ok(layout) = Layout::from_size_align(size, align) else {
                    continue;
                };
                // SAFETY: a non-zero size; every pointer is freed by the same allocator.
                unsafe {
                    let p = Mimalloc.alloc(layout);
                    assert!(!p.is_null());
                    assert_eq!(p as usize % align, 0, "size {size} align {align}");
                    p.write_bytes(0xab, size);
                    let grown = Mimalloc.realloc(p, layout, size * 3);
                    assert_eq!(grown as usize % align, 0, "grown {size} align {align}");
                    assert!((0..size).all(|i| *grown.add(i) == 0xab));
                    let grown_layout = Layout::from_size_align_unchecked(size * 3, align);
                    let half = size.div_ceil(2);
                    let shrunk = Mimalloc.realloc(grown, grown_layout, half);
                    assert_eq!(shrunk as usize % align, 0, "shrunk {size} align {align}");
                    assert!((0..half).all(|i| *shrunk.add(i) == 0xab));
                    Mimalloc.dealloc(shrunk, Layout::from_size_align_unchecked(half, align));
                    let z = Mimalloc.alloc_zeroed(layout);
                    assert_eq!(z as usize % align, 0);
                    assert!((0..size).all(|i| *z.add(i) == 0));
                    Mimalloc.dealloc(z, layout);
                }
            }
        }
    }
}
