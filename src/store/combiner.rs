//! Write combining: concurrent creates share one write, for both backends.
//!
//! The embedded store commits a group as one fjall write batch. fjall applies
//! a batch under one journal lock: the journal `write(2)` and the memtable
//! inserts happen while it is held. When every create commits its own batch,
//! the runtime threads queue on that lock (a futex sleep and two context
//! switches each time) and every create pays its own syscall. PostgreSQL
//! commits a group as one multi-row `INSERT`: one round trip and one commit
//! (one WAL flush) for the group instead of one per create.
//!
//! Here a create queues its entry and waits, asynchronously, for its outcome.
//! One committer at a time, on a blocking thread, takes everything queued,
//! commits it as one batch, sends each caller its outcome, and goes on until
//! the queue is empty; the create that finds no committer running starts one.
//! So under load one journal write acknowledges many creates, a waiting
//! create frees its runtime thread, and no thread is kept when nothing is
//! written.
//!
//! Outcomes are sent to each caller directly, not through a lock callers
//! queue on: tokio runs a task woken by another task on the waker's thread,
//! so callers woken one by one from a lock would resume one after another on
//! one runtime thread while the others idle.
//!
//! The commit runs on a blocking thread because fjall sleeps a writer (up to
//! 100 ms at a time) while its memtable flushes lag, and a runtime thread
//! asleep there would stall every connection it serves. PostgreSQL's commit
//! waits for its round trip there too (`Handle::block_on`): one parked thread
//! per combiner, and the next group forms while it waits.

use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;

use super::{StoreError, lock};

/// Items waiting to be committed together; see the module documentation.
pub struct Combiner<T> {
    state: Arc<Mutex<State<T>>>,
}

struct State<T> {
    queue: Vec<(T, oneshot::Sender<Outcome>)>,
    /// Whether a committer is running; it empties the queue before it stops.
    committing: bool,
}

/// What committing an item gave (errors are per item: one can be a duplicate ID).
pub type Outcome = Result<(), StoreError>;

/// How a group is committed and how an abandoned item is undone.
pub trait Commit<T> {
    /// Commits `group` as one write; one outcome per item, in order.
    fn commit(&self, group: Vec<T>) -> Vec<Outcome>;
    /// Undoes what was done for an item that will never be committed (its
    /// caller went away before its group was taken).
    fn abandon(&self, item: T);
}

impl<T> Default for Combiner<T> {
    fn default() -> Self {
        Self {
            state: Arc::new(Mutex::new(State {
                queue: Vec::new(),
                committing: false,
            })),
        }
    }
}

impl<T: Send + 'static> Combiner<T> {
    /// Queues `item` and waits until it is committed.
    ///
    /// If the returned future is dropped before the committer takes the item,
    /// the item is `abandon`ed instead of committed; once taken, it is
    /// committed whether or not anyone waits.
    pub async fn submit<C>(&self, item: T, how: &Arc<C>) -> Outcome
    where
        C: Commit<T> + Send + Sync + 'static,
    {
        let (sender, outcome) = oneshot::channel();
        let start = {
            let mut state = lock(&self.state);
            state.queue.push((item, sender));
            !std::mem::replace(&mut state.committing, true)
        };
        if start {
            let mut committer = Committer {
                state: self.state.clone(),
                how: how.clone(),
                finished: false,
            };
            tokio::task::spawn_blocking(move || committer.run());
        }
        // An error only if the runtime shut down before the committer ran.
        outcome
            .await
            .unwrap_or_else(|_| Err(StoreError::backend("the write was not committed")))
    }
}

/// Commits groups until the queue is empty, on a blocking thread.
struct Committer<T, C: Commit<T>> {
    state: Arc<Mutex<State<T>>>,
    how: Arc<C>,
    /// Set when `run` found the queue empty and handed over `committing`.
    finished: bool,
}

impl<T, C: Commit<T>> Committer<T, C> {
    fn run(&mut self) {
        loop {
            let group = {
                let mut state = lock(&self.state);
                if state.queue.is_empty() {
                    state.committing = false;
                    self.finished = true;
                    return;
                }
                std::mem::take(&mut state.queue)
            };
            let mut items = Vec::with_capacity(group.len());
            let mut senders = Vec::with_capacity(group.len());
            for (item, sender) in group {
                if sender.is_closed() {
                    self.how.abandon(item);
                } else {
                    items.push(item);
                    senders.push(sender);
                }
            }
            if items.is_empty() {
                continue;
            }
            // A panic here is a bug; it must not leave this group's callers,
            // or those queued behind them, waiting forever.
            let outcomes = std::panic::catch_unwind(AssertUnwindSafe(|| self.how.commit(items)))
                .unwrap_or_else(|_| {
                    tracing::error!("a write batch panicked while being committed");
                    let failed = || Err(StoreError::backend("the write was not committed"));
                    senders.iter().map(|_| failed()).collect()
                });
            for (sender, outcome) in senders.into_iter().zip(outcomes) {
                // The caller may have gone away meanwhile; its paste is stored all the same.
                let _gone = sender.send(outcome);
            }
        }
    }
}

/// A committer that never ran (the runtime shut down) gives up what is
/// queued, so that no caller waits forever.
impl<T, C: Commit<T>> Drop for Committer<T, C> {
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        let queued = {
            let mut state = lock(&self.state);
            state.committing = false;
            std::mem::take(&mut state.queue)
        };
        for (item, _sender) in queued {
            self.how.abandon(item);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records the groups it commits; odd items are refused as duplicates.
    #[derive(Default)]
    struct Recorder {
        groups: Mutex<Vec<Vec<u32>>>,
        abandoned: Mutex<Vec<u32>>,
        /// When set, the next commit waits for a message on it.
        gate: Mutex<Option<std::sync::mpsc::Receiver<()>>>,
        /// When set, the next commit panics.
        panics: std::sync::atomic::AtomicBool,
    }

    impl Commit<u32> for Recorder {
        fn commit(&self, group: Vec<u32>) -> Vec<Outcome> {
            if self
                .panics
                .swap(false, std::sync::atomic::Ordering::Relaxed)
            {
                std::panic::panic_any("commit failed");
            }
            let gate = lock(&self.gate).take();
            if let Some(gate) = gate {
                gate.recv().unwrap();
            }
            let outcomes = group.iter().map(|&n| expected(n)).collect();
            lock(&self.groups).push(group);
            outcomes
        }

        fn abandon(&self, item: u32) {
            lock(&self.abandoned).push(item);
        }
    }

    fn expected(n: u32) -> Outcome {
        if n.is_multiple_of(2) {
            Ok(())
        } else {
            Err(StoreError::IdTaken)
        }
    }

    type Shared = Arc<(Combiner<u32>, Arc<Recorder>)>;

    fn submit(shared: &Shared, n: u32) -> tokio::task::JoinHandle<Outcome> {
        let shared = shared.clone();
        tokio::spawn(async move { shared.0.submit(n, &shared.1).await })
    }

    fn queued(shared: &Shared) -> usize {
        lock(&shared.0.state).queue.len()
    }

    /// Polls `future` once and fails with `why` if it finished.
    async fn still_pending(future: std::pin::Pin<&mut impl Future>, why: &str) {
        tokio::select! {
            biased;
            _ = future => panic!("{why}"),
            () = tokio::task::yield_now() => {}
        }
    }

    /// A combiner whose first commit waits until the returned sender sends.
    fn gated() -> (Shared, std::sync::mpsc::Sender<()>) {
        let (open, gate) = std::sync::mpsc::channel();
        let recorder = Recorder {
            gate: Mutex::new(Some(gate)),
            ..Recorder::default()
        };
        (Arc::new((Combiner::default(), Arc::new(recorder))), open)
    }

    /// Submits item 0 and waits until its commit is held at the gate.
    async fn first_commit_held(shared: &Shared) -> tokio::task::JoinHandle<Outcome> {
        let first = submit(shared, 0);
        while lock(&shared.1.gate).is_some() {
            tokio::task::yield_now().await;
        }
        first
    }

    /// Awaits the tasks of `items` and checks that each got its own item's outcome.
    async fn check_outcomes(
        items: impl Iterator<Item = u32>,
        tasks: Vec<tokio::task::JoinHandle<Outcome>>,
    ) {
        for (n, task) in items.zip(tasks) {
            let outcome = task.await.unwrap();
            assert_eq!(
                outcome.is_ok(),
                expected(n).is_ok(),
                "item {n}: {outcome:?}"
            );
        }
    }

    /// Items queued while a commit runs go in one group, and each caller gets its own outcome.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn waiting_items_are_committed_together() {
        let (shared, open) = gated();
        let first = first_commit_held(&shared).await;
        let rest: Vec<_> = (1..=8).map(|n| submit(&shared, n)).collect();
        while queued(&shared) < 8 {
            tokio::task::yield_now().await;
        }
        open.send(()).unwrap();
        check_outcomes(0..=8, std::iter::once(first).chain(rest).collect()).await;
        let mut groups = lock(&shared.1.groups).clone();
        groups[1].sort_unstable();
        assert_eq!(groups, vec![vec![0], (1..=8).collect::<Vec<_>>()]);
        assert!(lock(&shared.1.abandoned).is_empty());
        // The committer stops once the queue is empty (it may not have looked yet).
        while lock(&shared.0.state).committing {
            tokio::task::yield_now().await;
        }
    }

    /// A caller that goes away once its item is being committed: the item is
    /// still committed and every other caller gets its own outcome.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_item_taken_for_commit_is_committed_without_its_caller() {
        let (shared, open) = gated();
        let mut first = Box::pin(shared.0.submit(0, &shared.1));
        while lock(&shared.1.gate).is_some() {
            still_pending(first.as_mut(), "committed before the gate opened").await;
        }
        let others: Vec<_> = (1..=4).map(|n| submit(&shared, n)).collect();
        while queued(&shared) < 4 {
            tokio::task::yield_now().await;
        }
        drop(first);
        open.send(()).unwrap();
        check_outcomes(1..=4, others).await;
        let mut groups = lock(&shared.1.groups).clone();
        groups[1].sort_unstable();
        assert_eq!(groups, vec![vec![0], (1..=4).collect::<Vec<_>>()]);
        assert!(lock(&shared.1.abandoned).is_empty());
    }

    /// A caller that goes away before its item is taken has it abandoned, not committed.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_item_given_up_before_it_is_taken_is_abandoned() {
        let (shared, open) = gated();
        let first = first_commit_held(&shared).await;
        let mut waiting = Box::pin(shared.0.submit(6, &shared.1));
        still_pending(waiting.as_mut(), "committed while the gate is closed").await;
        let kept = submit(&shared, 8);
        while queued(&shared) < 2 {
            tokio::task::yield_now().await;
        }
        drop(waiting);
        open.send(()).unwrap();
        check_outcomes([0, 8].into_iter(), vec![first, kept]).await;
        assert_eq!(*lock(&shared.1.abandoned), vec![6]);
        assert_eq!(*lock(&shared.1.groups), vec![vec![0], vec![8]]);
        // The combiner still works afterwards.
        assert!(submit(&shared, 2).await.unwrap().is_ok());
    }

    /// A commit that panics (a bug) answers its callers with an error, and
    /// the combiner goes on committing.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_panicking_commit_answers_with_an_error() {
        let shared: Shared = Arc::default();
        shared
            .1
            .panics
            .store(true, std::sync::atomic::Ordering::Relaxed);
        let outcome = submit(&shared, 2).await.unwrap();
        assert!(
            matches!(&outcome, Err(StoreError::Backend(m)) if m.to_string().contains("not committed")),
            "{outcome:?}"
        );
        assert!(submit(&shared, 4).await.unwrap().is_ok());
        assert_eq!(*lock(&shared.1.groups), vec![vec![4]]);
    }
}
