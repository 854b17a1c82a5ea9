//! Write combining: concurrent creates share one fjall write batch.
//!
//! fjall applies a batch under one journal lock: the journal `write(2)` and
//! the memtable inserts happen while it is held. When every create commits its
//! own batch, the runtime threads queue on that lock (a futex sleep and two
//! context switches each time) and every create pays its own syscall.
//!
//! Here a create queues its entry and then waits, asynchronously, for its
//! turn. Whoever gets the turn commits everything queued at that moment as one
//! batch, so under load one journal write acknowledges many creates, and a
//! create that waits frees its thread for other requests instead of sleeping.
//! Those whose entry was committed meanwhile find their result and leave.
//!
//! The commit itself runs on a blocking thread: fjall sleeps a writer (up to
//! 100 ms at a time) while its memtable flushes lag, and a runtime thread
//! asleep there would stall every connection it serves. One hop per group
//! costs little under load; an isolated create pays about 6,000 more
//! instructions for it.

use std::sync::{Arc, Mutex, OnceLock};

use super::{StoreError, lock};

/// The result of one queued item, set by whoever commits it.
type Slot<R> = Arc<OnceLock<R>>;

/// Items waiting to be committed together; see the module documentation.
pub struct Combiner<T> {
    queue: Mutex<Vec<(T, Slot<Outcome>)>>,
    /// Held by whoever commits; owned, so the commit can keep it after the
    /// future that took it is gone.
    turn: Arc<tokio::sync::Mutex<()>>,
}

/// What committing an item gave (errors are per item: one can be a duplicate ID).
pub type Outcome = Result<(), StoreError>;

/// How a group is committed and how an abandoned item is undone.
pub trait Commit<T> {
    /// Commits `group` as one write; one outcome per item, in order.
    fn commit(&self, group: Vec<T>) -> Vec<Outcome>;
    /// Undoes what was done for an item that will never be committed (its
    /// caller went away before its turn).
    fn abandon(&self, item: T);
}

impl<T> Default for Combiner<T> {
    fn default() -> Self {
        Self {
            queue: Mutex::new(Vec::new()),
            turn: Arc::default(),
        }
    }
}

impl<T> Combiner<T> {
    /// Queues `item` and waits until it is committed, by this call or another.
    ///
    /// If the returned future is dropped before the item's turn, the item is
    /// taken off the queue and `abandon`ed; once a group holding it is being
    /// committed, it is committed whether or not anyone waits.
    pub async fn submit<C>(&self, item: T, how: &Arc<C>) -> Outcome
    where
        T: Send + 'static,
        C: Commit<T> + Send + Sync + 'static,
    {
        let mut slot: Slot<Outcome> = Arc::default();
        lock(&self.queue).push((item, slot.clone()));
        let mut pending = Pending {
            combiner: self,
            slot: slot.clone(),
            how: how.as_ref(),
            armed: true,
        };
        let turn = self.turn.clone().lock_owned().await;
        if slot.get().is_none() {
            let group = std::mem::take(&mut *lock(&self.queue));
            let committer = how.clone();
            // On a blocking thread: fjall may stall a writer (it sleeps while
            // flushes lag), and the runtime's threads must go on serving
            // reads. The closure owns the group, the slots and the turn, so
            // even if this future is dropped now, the group is committed,
            // every slot is set, and only then is the turn given up.
            let commit = tokio::task::spawn_blocking(move || {
                let (items, slots): (Vec<T>, Vec<Slot<Outcome>>) = group.into_iter().unzip();
                for (slot, outcome) in slots.iter().zip(committer.commit(items)) {
                    let _unset_before = slot.set(outcome);
                }
                drop(slots);
                drop(turn);
            });
            // A failed task (a panic in `commit`) leaves slots unset: answered below.
            let _finished = commit.await;
        } else {
            drop(turn);
        }
        // Committed: nothing to abandon any more, and the slot is ours alone
        // (the committer dropped its handles before giving up the turn, and
        // we held or waited for the turn).
        pending.armed = false;
        drop(pending);
        Arc::get_mut(&mut slot)
            .and_then(OnceLock::take)
            .unwrap_or_else(|| Err(StoreError::Backend("the write was not committed".into())))
    }
}

/// Takes an abandoned item off the queue when `submit`'s future is dropped early.
struct Pending<'a, T, C: Commit<T>> {
    combiner: &'a Combiner<T>,
    slot: Slot<Outcome>,
    how: &'a C,
    /// Cleared once the item is committed.
    armed: bool,
}

impl<T, C: Commit<T>> Drop for Pending<'_, T, C> {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let mut queue = lock(&self.combiner.queue);
        // Not in the queue any more: a group holding it was committed.
        if let Some(at) = queue.iter().position(|(_, s)| Arc::ptr_eq(s, &self.slot)) {
            let (item, _) = queue.swap_remove(at);
            drop(queue);
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
    }

    impl Commit<u32> for Recorder {
        fn commit(&self, group: Vec<u32>) -> Vec<Outcome> {
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
        let first = submit(&shared, 0);
        while lock(&shared.1.gate).is_some() {
            tokio::task::yield_now().await;
        }
        let rest: Vec<_> = (1..=8).map(|n| submit(&shared, n)).collect();
        while lock(&shared.0.queue).len() < 8 {
            tokio::task::yield_now().await;
        }
        open.send(()).unwrap();
        check_outcomes(0..=8, std::iter::once(first).chain(rest).collect()).await;
        let mut groups = lock(&shared.1.groups).clone();
        groups[1].sort_unstable();
        assert_eq!(groups, vec![vec![0], (1..=8).collect::<Vec<_>>()]);
        assert!(lock(&shared.1.abandoned).is_empty());
    }

    /// A caller that goes away while it commits a group: the group is still
    /// committed and every other caller gets its own outcome.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_committer_that_goes_away_still_commits_the_group() {
        let (shared, open) = gated();
        let held = shared.0.turn.clone().lock_owned().await;
        // First in line for the turn (Tokio's mutex is fair), so it commits.
        let mut committer = Box::pin(shared.0.submit(0, &shared.1));
        still_pending(committer.as_mut(), "committed while the turn is held").await;
        let others: Vec<_> = (1..=4).map(|n| submit(&shared, n)).collect();
        while lock(&shared.0.queue).len() < 5 {
            tokio::task::yield_now().await;
        }
        drop(held);
        while lock(&shared.1.gate).is_some() {
            still_pending(committer.as_mut(), "committed before the gate opened").await;
        }
        drop(committer);
        open.send(()).unwrap();
        check_outcomes(1..=4, others).await;
        let mut groups = lock(&shared.1.groups).clone();
        groups[0].sort_unstable();
        assert_eq!(groups, vec![(0..=4).collect::<Vec<_>>()]);
        assert!(lock(&shared.1.abandoned).is_empty());
    }

    /// A caller that goes away before its turn takes its item off the queue.
    #[tokio::test]
    async fn an_item_given_up_before_its_turn_is_abandoned() {
        let shared: Shared = Arc::default();
        let turn = shared.0.turn.clone().lock_owned().await;
        let mut waiting = Box::pin(shared.0.submit(6, &shared.1));
        still_pending(waiting.as_mut(), "committed while another holds the turn").await;
        drop(waiting);
        drop(turn);
        assert_eq!(*lock(&shared.1.abandoned), vec![6]);
        assert!(lock(&shared.0.queue).is_empty());
        assert!(lock(&shared.1.groups).is_empty());
        // The combiner still works afterwards.
        assert!(submit(&shared, 2).await.unwrap().is_ok());
    }
}
