//! Rate-limit buckets kept in the store, an optional capability: a store
//! that several instances share offers them through [`Store::shared_rates`],
//! so spreading requests over instances does not multiply a rate.
//!
//! [`Store::shared_rates`]: super::Store::shared_rates

use std::time::Duration;

use async_trait::async_trait;

use super::StoreError;

/// The outcome of counting one request against a shared rate bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GcraOutcome {
    /// Allowed; this many more fit in the burst right now.
    Allowed {
        /// Requests left in the burst.
        remaining: u32,
    },
    /// Refused; the next request fits after this long.
    Limited {
        /// Time until a request would be allowed.
        retry_after: Duration,
    },
}

/// Rate-limit buckets shared by every instance that uses the same store.
#[async_trait]
pub trait RateStore: Send + Sync {
    /// Counts one request against the bucket `key` (GCRA: one request per
    /// `interval`, up to `burst` back to back).
    async fn acquire(
        &self,
        key: &str,
        interval: Duration,
        burst: u32,
    ) -> Result<GcraOutcome, StoreError>;
}
