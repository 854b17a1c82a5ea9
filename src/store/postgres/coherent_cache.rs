//! What a PostgreSQL instance keeps in memory: pastes it has read (the
//! shared [`PasteCache`]), and the tokens and tenants every authenticated
//! request looks up, kept coherent across instances by notifications
//! (`listener`, `notify`).
//!
//! Three rules make an entry safe to serve:
//! - Every statement that removes a paste, revokes a token, or changes or
//!   deletes a tenant notifies in its own transaction, so the notification
//!   is delivered when the change commits; each instance's listener evicts
//!   what it names, and the instance that made the change evicts before it
//!   answers.
//! - A fill never resurrects an entry evicted meanwhile: each key belongs to
//!   one of [`STRIPES`] generation counters; a reader takes a [`Ticket`]
//!   before its database read, and its result is kept only if the
//!   generation is unchanged, checked and inserted under the stripe's lock,
//!   under which every eviction bumps it.
//! - Entries are served only while the listener vouches for them: until
//!   [`TRUST`] after the moment a timely ping of its connection was sent
//!   (`trusted_until`, in milliseconds on a monotonic clock). PostgreSQL
//!   sends a listener the notifications of every change committed before a
//!   query reached it ahead of that query's answer, and the listener evicts
//!   each before it reads the next message, so a ping's answer vouches for
//!   every change committed before the ping was sent: a change is served
//!   at most [`TRUST`] after it committed, whatever happens to the listener
//!   (a stall, a frozen link). A lost connection withdraws the trust at
//!   once; a new connection empties the cache (bumping every generation)
//!   after its `LISTEN` and only then trusts it again, so a change made
//!   while no one listened is never served.
//!
//! The listener pings only while something reads the cache: every lookup
//! notes that it read, and a listener that has found no read for a while
//! (`listener::PARK_AFTER`) waits on [`CoherentCache::until_read`] instead of
//! pinging. The trust then lapses on its own; the first read after the
//! pause misses (reading through to the database) and wakes the listener,
//! whose next timely ping vouches again. So an idle instance sends nothing
//! and wakes for nothing.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use quick_cache::sync::Cache;

use super::notify::Invalidation;
use crate::core::tenant::{Tenant, TokenRecord};
use crate::core::{PasteId, UnixTime};
use crate::idle::Activity;
use crate::store::paste_cache::PasteCache;
use crate::store::{CacheStats, Paste, lock};

/// Generation counters; more stripes, fewer fills refused for an eviction
/// of an unrelated key.
const STRIPES: usize = 64;

/// Most tokens and most tenants kept (each a few hundred bytes).
const ACCOUNTS: usize = 10_000;

/// How long a timely ping keeps the cache trusted, from the moment it was
/// sent: the longest another instance may serve what a change removed
/// after the change committed. The listener pings every second while the
/// cache is read, so a connection that answers within a second never lets
/// the trust lapse under reads.
pub const TRUST: Duration = Duration::from_secs(2);

/// The generation of a key's stripe, taken before a database read.
#[derive(Debug, Clone, Copy)]
pub struct Ticket {
    stripe: usize,
    generation: u64,
}

/// The instance's cache; see the module documentation.
pub struct CoherentCache {
    pastes: PasteCache,
    tokens: Cache<[u8; 32], TokenRecord>,
    tenants: Cache<String, Tenant>,
    generations: Box<[Mutex<u64>]>,
    /// What `trusted_until` counts from.
    clock: Instant,
    /// Milliseconds since `clock` until which entries may be served; 0
    /// while the listener is not connected.
    trusted_until: AtomicU64,
    /// Noted by every lookup, taken by the listener at each ping.
    reads: Activity,
    invalidations: AtomicU64,
    listens: AtomicU64,
}

/// What a key is, so that a paste ID and a tenant name that are the same
/// text fall in different stripes more often than not.
#[derive(Clone, Copy)]
enum Kind {
    Paste = 1,
    Token = 2,
    Tenant = 3,
}

fn stripe(kind: Kind, key: &[u8]) -> usize {
    // FNV-1a: cheap, and IDs and token hashes are uniformly random already.
    let hash = key
        .iter()
        .fold(0xcbf2_9ce4_8422_2325_u64 ^ kind as u64, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
    (hash % STRIPES as u64) as usize
}

impl CoherentCache {
    /// A cache holding about `bytes` of pastes, untrusted until the listener says otherwise.
    pub fn new(bytes: u64) -> Self {
        Self {
            pastes: PasteCache::new(bytes),
            tokens: Cache::new(ACCOUNTS),
            tenants: Cache::new(ACCOUNTS),
            generations: (0..STRIPES).map(|_| Mutex::new(0)).collect(),
            clock: Instant::now(),
            trusted_until: AtomicU64::new(0),
            reads: Activity::default(),
            invalidations: AtomicU64::new(0),
            listens: AtomicU64::new(0),
        }
    }

    /// `at` in milliseconds since `clock`, rounded down (so a trust ends
    /// no later than it says), and never 0, which means "not connected".
    fn millis(&self, at: Instant) -> u64 {
        let elapsed = at.saturating_duration_since(self.clock).as_millis();
        u64::try_from(elapsed).unwrap_or(u64::MAX).max(1)
    }

    fn trusted(&self) -> bool {
        self.millis(Instant::now()) < self.trusted_until.load(Ordering::Acquire)
    }

    /// Whether a lookup may be answered from the cache; notes the read, so
    /// that the listener keeps vouching.
    fn serving(&self) -> bool {
        self.reads.note();
        self.trusted()
    }

    /// Whether anything read the cache since the last call (the listener,
    /// at each ping).
    pub fn take_reads(&self) -> bool {
        self.reads.take()
    }

    /// Resolves at the first read of the cache since [`Self::take_reads`].
    pub async fn until_read(&self) {
        self.reads.next().await;
    }

    /// A live paste, if it is cached and the cache is trusted.
    pub fn paste(&self, id: &PasteId, now: UnixTime) -> Option<Paste> {
        if !self.serving() {
            return None;
        }
        self.pastes
            .get(id.as_str())
            .filter(|p| !p.meta.is_expired(now))
    }

    /// A token record, if it is cached and the cache is trusted.
    pub fn token(&self, hash: &[u8; 32]) -> Option<TokenRecord> {
        self.serving().then(|| self.tokens.get(hash)).flatten()
    }

    /// A tenant, if it is cached and the cache is trusted.
    pub fn tenant(&self, name: &str) -> Option<Tenant> {
        self.serving().then(|| self.tenants.get(name)).flatten()
    }

    fn ticket(&self, stripe: usize) -> Ticket {
        Ticket {
            stripe,
            generation: *lock(&self.generations[stripe]),
        }
    }

    /// The ticket to fill paste `id` with after reading it.
    pub fn paste_ticket(&self, id: &str) -> Ticket {
        self.ticket(stripe(Kind::Paste, id.as_bytes()))
    }

    /// The ticket to fill the token with hash `hash` with.
    pub fn token_ticket(&self, hash: &[u8; 32]) -> Ticket {
        self.ticket(stripe(Kind::Token, hash))
    }

    /// The ticket to fill tenant `name` with.
    pub fn tenant_ticket(&self, name: &str) -> Ticket {
        self.ticket(stripe(Kind::Tenant, name.as_bytes()))
    }

    /// Runs `insert` if nothing of `ticket`'s stripe was evicted since it was
    /// taken and the cache is trusted, under the stripe's lock.
    fn fill(&self, ticket: Ticket, insert: impl FnOnce()) {
        let generation = lock(&self.generations[ticket.stripe]);
        if *generation == ticket.generation && self.trusted() {
            insert();
        }
    }

    /// Keeps a paste read with `ticket` (not if it is a burn paste or large).
    pub fn fill_paste(&self, ticket: Ticket, paste: &Paste) {
        self.fill(ticket, || self.pastes.fill(paste));
    }

    /// Keeps a token read with `ticket`.
    pub fn fill_token(&self, ticket: Ticket, record: &TokenRecord) {
        self.fill(ticket, || self.tokens.insert(record.hash, record.clone()));
    }

    /// Keeps a tenant read with `ticket`.
    pub fn fill_tenant(&self, ticket: Ticket, tenant: &Tenant) {
        self.fill(ticket, || {
            self.tenants.insert(tenant.name.clone(), tenant.clone());
        });
    }

    /// Bumps `stripe`'s generation and runs `evict` under its lock.
    fn evict(&self, stripe: usize, evict: impl FnOnce()) {
        let mut generation = lock(&self.generations[stripe]);
        *generation += 1;
        evict();
    }

    /// Bumps every generation, then empties what `empty` empties: no fill
    /// that began before can land afterwards.
    fn evict_all(&self, empty: impl FnOnce()) {
        let mut held: Vec<_> = self.generations.iter().map(lock).collect();
        for generation in &mut held {
            **generation += 1;
        }
        empty();
    }

    /// Forgets what `change` names (a change this instance made, or one the
    /// listener heard of).
    pub fn invalidate(&self, change: &Invalidation) {
        match change {
            Invalidation::Paste(id) => self.evict(stripe(Kind::Paste, id.as_bytes()), || {
                self.pastes.evict(id);
            }),
            Invalidation::Token(hash) => self.evict(stripe(Kind::Token, hash), || {
                self.tokens.remove(hash);
            }),
            Invalidation::Tenant(name) => self.evict(stripe(Kind::Tenant, name.as_bytes()), || {
                self.tenants.remove(name.as_str());
            }),
            // Its tokens went with it, and which those were is not known
            // here; deleting a tenant is rare enough to forget all.
            Invalidation::TenantGone(_) => self.evict_all(|| {
                self.tokens.clear();
                self.tenants.clear();
            }),
            Invalidation::Unknown => self.evict_all(|| self.clear()),
        }
    }

    /// Counts a notification the listener received, then applies it.
    pub fn received(&self, change: &Invalidation) {
        self.invalidate(change);
        self.invalidations.fetch_add(1, Ordering::Relaxed);
    }

    fn clear(&self) {
        self.pastes.clear();
        self.tokens.clear();
        self.tenants.clear();
    }

    /// Stops serving entries at once (the listener lost its connection).
    pub fn distrust(&self) {
        self.trusted_until.store(0, Ordering::Release);
    }

    /// Empties the cache and trusts it until `until`: the listener listens
    /// again, so from now on every change reaches it.
    pub fn restart(&self, until: Instant) {
        self.evict_all(|| self.clear());
        self.listens.fetch_add(1, Ordering::Relaxed);
        self.trusted_until
            .store(self.millis(until), Ordering::Release);
    }

    /// Extends the trust after a timely ping, to [`TRUST`] after the ping
    /// was sent; never revives it once withdrawn (only [`Self::restart`] does).
    pub fn vouch(&self, until: Instant) {
        let until = self.millis(until);
        let _ = self
            .trusted_until
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |current| {
                (current != 0).then_some(until.max(current))
            });
    }

    /// What `/metrics` reports.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            pastes: self.pastes.len() as u64,
            tokens: self.tokens.len() as u64,
            tenants: self.tenants.len() as u64,
            invalidations: self.invalidations.load(Ordering::Relaxed),
            listens: self.listens.load(Ordering::Relaxed),
            // A listener waiting for a read last had a timely answer: the
            // trust lapsed for want of readers, not of a connection, and
            // the next read brings it back.
            trusted: self.trusted()
                || (self.trusted_until.load(Ordering::Acquire) != 0 && self.reads.is_waited_on()),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use bytes::Bytes;

    use super::*;
    use crate::core::{PasteMeta, Visibility};

    const NOW: UnixTime = 1_000;

    fn paste(id: &str, burn: bool) -> Paste {
        Paste {
            meta: Arc::new(PasteMeta {
                id: id.into(),
                created_at: 1,
                expires_at: Some(NOW + 10),
                burn,
                encrypted: false,
                lang: None,
                name: None,
                content_type: "text/plain; charset=utf-8".into(),
                size: 5,
                delete_token_hash: [0; 32],
                owner: None,
                visibility: Visibility::Unlisted,
                redirect: None,
                key_check: None,
                files: Vec::new(),
                author: None,
            }),
            body: Bytes::from_static(b"hello"),
            compressed: None,
        }
    }

    fn new_id() -> PasteId {
        PasteId::generate(12).unwrap()
    }

    fn trusted_cache() -> CoherentCache {
        let cache = CoherentCache::new(1 << 20);
        cache.restart(Instant::now() + TRUST);
        cache
    }

    /// Lets the trust lapse, as time passing without a timely ping would.
    fn lapse(cache: &CoherentCache) {
        let now = cache.millis(Instant::now());
        cache.trusted_until.store(now, Ordering::Release);
    }

    /// A read that took its ticket before an eviction cannot fill afterwards;
    /// one that took it after can.
    #[test]
    fn a_fill_never_resurrects_an_evicted_paste() {
        let cache = trusted_cache();
        let id = new_id();
        let p = paste(id.as_str(), false);
        let ticket = cache.paste_ticket(id.as_str());
        cache.invalidate(&Invalidation::Paste(id.as_str().into()));
        cache.fill_paste(ticket, &p);
        assert!(cache.paste(&id, NOW).is_none());
        let ticket = cache.paste_ticket(id.as_str());
        cache.fill_paste(ticket, &p);
        assert!(cache.paste(&id, NOW).is_some());
        cache.invalidate(&Invalidation::Paste(id.as_str().into()));
        assert!(cache.paste(&id, NOW).is_none());
    }

    /// Untrusted, nothing is served or filled; a restart empties the cache
    /// and refuses fills whose ticket is older; expired and burn pastes are never served.
    #[test]
    fn serves_only_while_trusted() {
        let cache = trusted_cache();
        let id = new_id();
        let ticket = cache.paste_ticket(id.as_str());
        cache.fill_paste(ticket, &paste(id.as_str(), false));
        cache.distrust();
        assert!(cache.paste(&id, NOW).is_none());
        cache.vouch(Instant::now() + TRUST * 50);
        assert!(cache.paste(&id, NOW).is_none(), "a ping revived trust");
        let old = cache.paste_ticket(id.as_str());
        cache.fill_paste(old, &paste(id.as_str(), false));
        cache.restart(Instant::now() + TRUST);
        assert!(cache.paste(&id, NOW).is_none(), "not emptied");
        cache.fill_paste(old, &paste(id.as_str(), false));
        assert!(cache.paste(&id, NOW).is_none(), "an old ticket filled");
        let ticket = cache.paste_ticket(id.as_str());
        cache.fill_paste(ticket, &paste(id.as_str(), false));
        assert!(cache.paste(&id, NOW).is_some());
        assert!(cache.paste(&id, NOW + 10).is_none(), "expired or untrusted");
        lapse(&cache);
        assert!(cache.paste(&id, NOW).is_none(), "trust lapsed");
        cache.vouch(Instant::now() + TRUST);
        let burn = new_id();
        let ticket = cache.paste_ticket(burn.as_str());
        cache.fill_paste(ticket, &paste(burn.as_str(), true));
        assert!(cache.paste(&burn, NOW).is_none());
    }

    /// A deleted tenant takes every cached token with it.
    #[test]
    fn a_deleted_tenant_forgets_its_tokens() {
        let cache = trusted_cache();
        let record = TokenRecord {
            id: "t1".into(),
            hash: [7; 32],
            tenant: "team".into(),
            read_only: false,
            created_at: 1,
            expires_at: None,
        };
        let ticket = cache.token_ticket(&record.hash);
        cache.fill_token(ticket, &record);
        assert!(cache.token(&record.hash).is_some());
        let before = cache.token_ticket(&record.hash);
        cache.received(&Invalidation::TenantGone("team".into()));
        assert!(cache.token(&record.hash).is_none());
        cache.fill_token(before, &record);
        assert!(cache.token(&record.hash).is_none());
        assert_eq!(cache.stats().invalidations, 1);
    }

    /// A listener that found no read waits until a lookup; meanwhile the
    /// cache reads as trusted (the next read brings the trust back) until a
    /// lost connection withdraws it.
    #[tokio::test]
    async fn a_lookup_wakes_a_listener_waiting_for_reads() {
        let cache = Arc::new(trusted_cache());
        assert!(!cache.take_reads(), "nothing read yet");
        let waiter = tokio::spawn({
            let cache = cache.clone();
            async move { cache.until_read().await }
        });
        while !cache.reads.is_waited_on() {
            tokio::task::yield_now().await;
        }
        lapse(&cache);
        assert!(cache.stats().trusted, "idle reads as untrusted");
        assert!(cache.token(&[1; 32]).is_none());
        tokio::time::timeout(std::time::Duration::from_secs(10), waiter)
            .await
            .expect("the lookup did not wake the listener")
            .unwrap();
        assert!(!cache.stats().trusted, "awake, the trust lapsed");
        assert!(cache.take_reads());
        assert!(!cache.take_reads(), "a read counted twice");
        cache.vouch(Instant::now() + TRUST);
        assert!(cache.stats().trusted, "a timely ping revives lapsed trust");
        cache.distrust();
        assert!(!cache.stats().trusted);
    }
}
