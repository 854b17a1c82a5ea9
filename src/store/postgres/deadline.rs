//! The deadline of every operation on PostgreSQL (`--store-timeout`), and
//! what happens to its connections when it passes.
//!
//! A database link can freeze without breaking: the socket stays open, no
//! reset arrives, and a statement waits forever. So each operation (its
//! statements, and its transaction as a whole) runs under one deadline;
//! past it the operation is dropped and fails with
//! [`StoreError::TimedOut`] (a `503`). A connection the operation held
//! may still have a statement in flight, or a dead link, so it is closed
//! instead of going back to the pool ([`Lease`]): the next request gets a
//! fresh connection, not the stuck one. TCP keepalives and a TCP user
//! timeout (set where the store connects) end the links that die
//! meanwhile while idle in the pool.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use deadpool_postgres::Object;

use crate::store::StoreError;

tokio::task_local! {
    /// Set while an operation runs under its deadline: whether it was cut
    /// off, which the connections it leased read when they are dropped.
    static CUT_OFF: Arc<AtomicBool>;
}

/// Runs `operation` for at most `limit`; past it, the operation is dropped
/// (its leased connections closed) and fails with [`StoreError::TimedOut`].
pub async fn within<T>(
    limit: Duration,
    operation: impl Future<Output = Result<T, StoreError>>,
) -> Result<T, StoreError> {
    let cut_off = Arc::new(AtomicBool::new(false));
    let mut operation = Box::pin(CUT_OFF.scope(cut_off.clone(), operation));
    match tokio::time::timeout(limit, operation.as_mut()).await {
        Ok(result) => result,
        Err(_) => {
            // Before the drop: the leases dropped with it read this.
            cut_off.store(true, Ordering::Release);
            drop(operation);
            Err(StoreError::TimedOut(limit))
        }
    }
}

/// A pooled connection lent to one operation: back to the pool when
/// dropped, unless the operation was cut off by its deadline; then it is
/// closed.
pub struct Lease {
    object: Option<Object>,
    /// The flag of the operation that leased it (none outside [`within`]).
    cut_off: Option<Arc<AtomicBool>>,
}

impl Lease {
    /// Lends `object` to the operation running now.
    pub fn new(object: Object) -> Self {
        Self {
            object: Some(object),
            cut_off: CUT_OFF.try_with(Arc::clone).ok(),
        }
    }
}

impl std::ops::Deref for Lease {
    type Target = Object;

    fn deref(&self) -> &Object {
        // `object` is `None` only inside `drop`.
        self.object.as_ref().unwrap_or_else(|| unreachable!())
    }
}

impl std::ops::DerefMut for Lease {
    fn deref_mut(&mut self) -> &mut Object {
        self.object.as_mut().unwrap_or_else(|| unreachable!())
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        let cut_off = self
            .cut_off
            .as_ref()
            .is_some_and(|cut| cut.load(Ordering::Acquire));
        if cut_off && let Some(object) = self.object.take() {
            // Taken out of the pool; dropping the client closes the connection.
            drop(Object::take(object));
            tracing::info!("closed a database connection cut off by the store deadline");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An operation past its deadline fails at the deadline as timed out,
    /// and is dropped then; one within it gives its own outcome.
    #[tokio::test]
    async fn an_operation_is_cut_off_at_its_deadline() {
        let limit = Duration::from_millis(50);
        let started = std::time::Instant::now();
        let stuck = within(limit, std::future::pending::<Result<(), StoreError>>()).await;
        assert!(
            matches!(stuck, Err(StoreError::TimedOut(d)) if d == limit),
            "{stuck:?}"
        );
        assert!(started.elapsed() < Duration::from_secs(5));
        let seen = within(limit, async {
            Ok(CUT_OFF.try_with(|cut| cut.load(Ordering::Acquire)))
        })
        .await;
        assert!(matches!(seen, Ok(Ok(false))), "{seen:?}");
    }
}
