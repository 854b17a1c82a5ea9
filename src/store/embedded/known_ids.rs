//! Every ID the `meta` keyspace holds, as one in-memory Bloom filter, so that
//! a create can prove its new ID free without searching fjall.
//!
//! A create must not overwrite an existing paste, so the committer checks
//! each new ID. In fjall that check searches the memtable's skip list (a
//! cache miss and a key comparison per level) and then the filter of every
//! level-0 table and of one table per deeper level; it grows with the store,
//! and it runs on the one thread that commits, so it bounds the create rate.
//! Here it is one probe of a blocked Bloom filter (`fastbloom`: all of a key's
//! bits in one cache line). "Maybe" (a stored ID, or a false positive, about
//! 1 in 100 at capacity) still asks fjall, so the filter only has to hold
//! every stored ID; removed IDs may stay in it.
//!
//! It is filled while the store counts its pastes at startup, and the
//! committer adds each ID it stores. When more IDs were added than it was
//! sized for, a thread (`snip-ids`) builds a bigger one from a scan of `meta`
//! while the old one still answers; IDs stored meanwhile go into both.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use fastbloom::AtomicBloomFilter;

/// Bits per ID: a false positive rate of about 1 % at capacity (a false
/// positive costs one fjall lookup, what every create would cost without the filter).
const BITS_PER_ID: usize = 10;

/// The filter; see the module documentation.
pub struct KnownIds {
    filters: RwLock<Filters>,
    /// Whether a bigger filter is being built.
    rebuilding: AtomicBool,
    /// The smallest capacity, so that a young store does not rebuild often.
    min_capacity: usize,
}

struct Filters {
    /// Holds every stored ID.
    complete: Arc<Filter>,
    /// A bigger filter being filled by a scan; new IDs go into it too.
    next: Option<Arc<Filter>>,
}

struct Filter {
    bits: AtomicBloomFilter,
    capacity: usize,
    added: AtomicUsize,
}

impl Filter {
    fn with_capacity(capacity: usize) -> Self {
        Self {
            bits: AtomicBloomFilter::with_num_bits(capacity * BITS_PER_ID).expected_items(capacity),
            capacity,
            added: AtomicUsize::new(0),
        }
    }

    fn add(&self, id: &[u8]) -> usize {
        self.bits.insert(id);
        self.added.fetch_add(1, Ordering::Relaxed) + 1
    }
}

impl KnownIds {
    /// An empty filter for about `expected` IDs (at least `min_capacity`);
    /// the caller adds every stored ID before the store is used.
    pub fn new(expected: usize, min_capacity: usize) -> Self {
        let filter = Filter::with_capacity(room_for(expected, 2, min_capacity));
        Self {
            filters: RwLock::new(Filters {
                complete: Arc::new(filter),
                next: None,
            }),
            rebuilding: AtomicBool::new(false),
            min_capacity,
        }
    }

    /// `false` only if `id` is certainly not stored.
    pub fn may_hold(&self, id: &[u8]) -> bool {
        self.read().complete.bits.contains(id)
    }

    /// Records a stored ID. Returns `true` when the filter has become too
    /// full and no rebuild is running: the caller should start
    /// [`Self::rebuild`] (this call has marked it as running).
    #[must_use]
    pub fn add(&self, id: &[u8]) -> bool {
        let filters = self.read();
        if let Some(next) = &filters.next {
            next.add(id);
        }
        let complete = &filters.complete;
        complete.add(id) > complete.capacity && !self.rebuilding.swap(true, Ordering::AcqRel)
    }

    /// Replaces the filter with one sized for `stored` IDs, filled by `scan`,
    /// which must call its argument with every ID stored when it starts (and
    /// may include more). On error the old filter stays.
    pub fn rebuild<E>(
        &self,
        stored: usize,
        scan: impl FnOnce(&mut dyn FnMut(&[u8])) -> Result<(), E>,
    ) -> Result<(), E> {
        let next = Arc::new(Filter::with_capacity(room_for(
            stored,
            4,
            self.min_capacity,
        )));
        // Registered before the scan starts: an ID stored after the scan's
        // snapshot was added to `next` by `add`, one stored before is in the scan.
        self.write().next = Some(next.clone());
        let scanned = scan(&mut |id| {
            next.add(id);
        });
        {
            let mut filters = self.write();
            filters.next = None;
            if scanned.is_ok() {
                filters.complete = next;
            }
        }
        self.rebuilding.store(false, Ordering::Release);
        scanned
    }

    /// How many IDs the filter in use holds (some may be removed) and was sized for.
    #[cfg(test)]
    fn fill(&self) -> (usize, usize) {
        let complete = &self.read().complete;
        (complete.added.load(Ordering::Relaxed), complete.capacity)
    }

    fn read(&self) -> RwLockReadGuard<'_, Filters> {
        self.filters.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, Filters> {
        self.filters.write().unwrap_or_else(|e| e.into_inner())
    }
}

/// A filter's capacity: `headroom` times the IDs it starts with. At startup
/// twice (a store that stays the size it is keeps 2.5 bytes per ID, 1.25 when
/// it has doubled); when rebuilt because the store grew, four times, so that a
/// growing store is scanned once per fourfold growth (a third of a scan per
/// stored ID, amortised, instead of a whole one; a scan reads every key of
/// `meta`) at up to 5 bytes per ID just after.
fn room_for(ids: usize, headroom: usize, min_capacity: usize) -> usize {
    ids.saturating_mul(headroom).max(min_capacity)
}

/// Starts [`KnownIds::rebuild`] on its own thread, scanning `meta`'s keys.
pub fn rebuild_in_background(known: Arc<KnownIds>, meta: fjall::Keyspace, stored: usize) {
    let rebuilding = known.clone();
    let spawned = std::thread::Builder::new()
        .name("snip-ids".into())
        .spawn(move || {
            let started = std::time::Instant::now();
            let result = known.rebuild(stored, |add| scan(&meta, add));
            match result {
                Ok(()) => tracing::info!(
                    stored,
                    elapsed_ms = started.elapsed().as_millis() as u64,
                    "rebuilt the filter of stored IDs"
                ),
                Err(e) => tracing::warn!("could not rebuild the filter of stored IDs: {e}"),
            }
        });
    if let Err(e) = spawned {
        // The next ID stored asks again.
        rebuilding.rebuilding.store(false, Ordering::Release);
        tracing::warn!("could not start rebuilding the filter of stored IDs: {e}");
    }
}

/// Calls `add` with every key of `meta`.
pub fn scan(meta: &fjall::Keyspace, add: &mut dyn FnMut(&[u8])) -> Result<(), fjall::Error> {
    for entry in meta.iter() {
        add(&entry.key()?);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: usize) -> Vec<u8> {
        format!("id{n:011}").into_bytes()
    }

    #[test]
    fn holds_what_was_added_and_rejects_most_else() {
        let known = KnownIds::new(0, 1000);
        for n in 0..1000 {
            let _ = known.add(&id(n));
        }
        assert!((0..1000).all(|n| known.may_hold(&id(n))));
        let false_positives = (1000..101_000).filter(|&n| known.may_hold(&id(n))).count();
        assert!(false_positives < 2_000, "{false_positives} of 100,000");
    }

    #[test]
    fn asks_for_one_rebuild_when_full() {
        let known = KnownIds::new(0, 10);
        let due: Vec<bool> = (0..20).map(|n| known.add(&id(n))).collect();
        assert_eq!(due.iter().filter(|&&d| d).count(), 1);
        assert!(due[10], "the eleventh ID passes capacity: {due:?}");
    }

    #[test]
    fn a_rebuild_keeps_ids_added_during_its_scan() {
        let known = KnownIds::new(0, 10);
        for n in 0..11 {
            let _ = known.add(&id(n));
        }
        known
            .rebuild(11, |add| {
                for n in 0..11 {
                    add(&id(n));
                }
                // Stored while the scan runs: not in the scan, added by the committer.
                let _ = known.add(&id(99));
                Ok::<(), ()>(())
            })
            .unwrap();
        assert!(known.may_hold(&id(99)));
        assert!((0..11).all(|n| known.may_hold(&id(n))));
        assert_eq!(known.fill(), (12, 44));
    }

    #[test]
    fn a_failed_rebuild_keeps_the_old_filter() {
        let known = KnownIds::new(0, 10);
        let _ = known.add(&id(1));
        assert!(known.rebuild(1, |_| Err("disk on fire")).is_err());
        assert!(known.may_hold(&id(1)));
        assert_eq!(known.fill(), (1, 10));
        // And a later rebuild may run.
        let due = (2..13).filter(|&n| known.add(&id(n))).count();
        assert_eq!(due, 1);
    }
}
