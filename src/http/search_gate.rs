//! The bound on searches running at once (`--search-concurrency`).
//!
//! A search is the one request whose work grows with the tenant's data: it
//! ranks many pastes, in PostgreSQL's processes or tantivy's. Run all at
//! once, a burst of searches shares the CPUs with each other and with every
//! other request, so each takes as long as the whole burst. Through the
//! gate, at most a few run, each at full speed, and the rest wait their
//! turn in order: the slowest search of a burst finishes sooner, and
//! creates and reads keep the CPUs the gate leaves free
//! (docs/design.md, "Search").

use std::future::Future;

use tokio::sync::Semaphore;

/// Lets at most a fixed number of searches run at once; the others wait,
/// first come first served.
#[derive(Debug)]
pub struct SearchGate {
    permits: Semaphore,
}

impl SearchGate {
    /// A gate for `concurrency` searches at once (at least one).
    pub fn new(concurrency: usize) -> Self {
        Self {
            permits: Semaphore::new(concurrency.max(1)),
        }
    }

    /// Runs `search` once fewer than the gate's number of searches run.
    pub async fn run<T>(&self, search: impl Future<Output = T>) -> T {
        let _permit = self
            .permits
            .acquire()
            .await
            .expect("the search gate's semaphore is never closed");
        search.await
    }
}

#[cfg(test)]
mod tests {
    use std::pin::pin;

    use futures_util::FutureExt;

    use super::*;

    /// A search waits while the gate's only permit is held, and runs as
    /// soon as it is given back.
    #[tokio::test]
    async fn a_search_waits_for_a_free_permit() {
        let gate = SearchGate::new(1);
        let held = gate.permits.acquire().await.unwrap();
        let mut search = pin!(gate.run(async { 7 }));
        assert_eq!((&mut search).now_or_never(), None);
        drop(held);
        assert_eq!(search.now_or_never(), Some(7));
    }

    /// Searches within the bound run without waiting.
    #[tokio::test]
    async fn searches_within_the_bound_do_not_wait() {
        let gate = SearchGate::new(2);
        let _held = gate.permits.acquire().await.unwrap();
        assert_eq!(gate.run(async { 7 }).now_or_never(), Some(7));
    }

    /// A bound of zero is a bound of one: searches still run.
    #[test]
    fn zero_is_one() {
        assert_eq!(SearchGate::new(0).permits.available_permits(), 1);
    }
}
