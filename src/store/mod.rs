//! Storage: the [`Store`] the HTTP layer talks to, split by concern into
//! traits, and its backends.
//!
//! - [`PasteStore`] (`pastes`): storing, reading, opening, burning,
//!   deleting, listing and searching pastes (`search`);
//! - [`AccountStore`] (`accounts`): tenants, tokens and browser sessions;
//! - [`Maintenance`] (`maintenance`): sweeping, scanning for backups,
//!   health, the figures of a metrics scrape, closing;
//! - [`RateStore`] (`rates`): rate-limit buckets, which only a store shared
//!   by several instances has.
//!
//! Each backend implements each trait in the file of that concern
//! (`embedded/pastes.rs`, `postgres/accounts.rs`, …). The metering
//! decorator (`metrics::MeteredStore`) wraps them from the metrics layer, so
//! nothing here knows about metrics.

use std::sync::{Mutex, MutexGuard};

pub use crate::core::tenant::Authority;

mod accounts;
pub mod codec;
mod combiner;
mod cursor;
pub mod dump;
pub mod embedded;
mod error;
mod group_commit;
mod maintenance;
mod open;
mod opened;
mod paste_cache;
mod pastes;
pub mod postgres;
mod rates;
mod search;
pub mod transfer;

pub use accounts::AccountStore;
pub use codec::{Encoding, NewBody};
pub use cursor::ListCursor;
pub use embedded::{Durability, EmbeddedOptions, EmbeddedStore};
pub use error::{BackendError, Cause, StoreError, is_disk_full};
pub use maintenance::{CacheStats, Maintenance, ScanPage, SweepReport};
pub use open::{Location, OpenOptions, open};
pub use opened::{BodyReader, Opened, OpenedBody, StoredBody};
pub use pastes::{ListPage, ListQuery, MAX_LIST_SCAN, Paste, PasteStore, PutLimits, Taken, Usage};
pub(crate) use pastes::{create_with_free_id, no_randomness};
pub use postgres::{PostgresOptions, PostgresStore};
pub use rates::{GcraOutcome, RateStore};
pub use search::{MAX_SEARCH_RESULTS, SearchQuery};

/// Everything snip needs from a storage backend: its pastes, its accounts
/// and its maintenance, and the rate buckets it shares with other
/// instances, if it has any. The server holds one as `Arc<dyn Store>`.
pub trait Store: PasteStore + AccountStore + Maintenance {
    /// The rate-limit buckets this store shares with other instances, if it
    /// has any; without them, limits are counted in process.
    fn shared_rates(&self) -> Option<&dyn RateStore>;
}

/// Locks a mutex whose data stays consistent even if a holder panicked
/// (every critical section in the stores is a handful of updates).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}
