//! Background tasks that wait for work instead of waking on a timer, so that
//! a server nobody uses burns no CPU.
//!
//! A [`Doorbell`] sits between a hot path (a request) and a task that has
//! nothing to do until that path runs again (a cleanup, a ping). The task
//! waits on it; the hot path rings it, which costs one atomic load while
//! nobody waits. [`Activity`] adds the most common condition: whether the
//! hot path ran at all since the task last looked.

use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::Notify;

/// Wakes a waiting task when a hot path runs; see the module documentation.
#[derive(Debug, Default)]
pub struct Doorbell {
    /// Set while a task waits (between its check and its wake-up).
    waiting: AtomicBool,
    wake: Notify,
}

impl Doorbell {
    /// Wakes the waiting task, if there is one. Call it after making the
    /// change the task's `ready` check looks for.
    pub fn ring(&self) {
        // A load first: a swap would write the shared line on every call.
        if self.waiting.load(Ordering::SeqCst) && self.waiting.swap(false, Ordering::SeqCst) {
            self.wake.notify_one();
        }
    }

    /// Resolves once `ready` holds, checking it again at every ring. One
    /// task waits at a time; dropping the wait (a `select!` that chose
    /// another branch) stops it cleanly.
    pub async fn wait_until(&self, ready: impl Fn() -> bool) {
        let _flag = Flag(&self.waiting);
        loop {
            // Flag first, check second; a ring after the flag is set stores
            // a permit if it comes before the wait, so no change is missed
            // (both sides are SeqCst, so either the check sees the change
            // or the ring sees the flag).
            self.waiting.store(true, Ordering::SeqCst);
            if ready() {
                return;
            }
            self.wake.notified().await;
        }
    }

    /// Whether a task waits now.
    pub fn is_waited_on(&self) -> bool {
        self.waiting.load(Ordering::SeqCst)
    }
}

/// Whether something (a read, a write) happened since the task that
/// watches it last took the answer, and a doorbell for when it next does.
#[derive(Debug, Default)]
pub struct Activity {
    happened: AtomicBool,
    bell: Doorbell,
}

impl Activity {
    /// Notes that it happened, waking the task if it waits. One relaxed
    /// load when it has happened already since the last [`Self::take`].
    pub fn note(&self) {
        if !self.happened.load(Ordering::Relaxed) {
            self.happened.store(true, Ordering::SeqCst);
            self.bell.ring();
        }
    }

    /// Whether it happened since the last call; starts a new watch.
    pub fn take(&self) -> bool {
        self.happened.swap(false, Ordering::SeqCst)
    }

    /// Resolves once it has happened since the last [`Self::take`].
    pub async fn next(&self) {
        self.bell
            .wait_until(|| self.happened.load(Ordering::SeqCst))
            .await;
    }

    /// Whether a task waits in [`Self::next`] now.
    pub fn is_waited_on(&self) -> bool {
        self.bell.is_waited_on()
    }
}

/// Clears the waiting flag when a wait ends, however it ends.
struct Flag<'a>(&'a AtomicBool);

impl Drop for Flag<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::AtomicUsize;
    use std::time::Duration;

    use futures_util::FutureExt;

    use super::*;

    /// A bound on waits that must end, so that a lost wake-up fails the test
    /// instead of hanging it.
    const BOUND: Duration = Duration::from_secs(10);

    #[tokio::test]
    async fn returns_at_once_when_ready() {
        let bell = Doorbell::default();
        tokio::time::timeout(BOUND, bell.wait_until(|| true))
            .await
            .expect("waited although ready");
        assert!(!bell.is_waited_on());
    }

    #[tokio::test]
    async fn a_ring_after_the_change_wakes_the_waiter() {
        let bell = Arc::new(Doorbell::default());
        let work = Arc::new(AtomicUsize::new(0));
        let waiter = tokio::spawn({
            let (bell, work) = (bell.clone(), work.clone());
            async move { bell.wait_until(|| work.load(Ordering::SeqCst) > 0).await }
        });
        // The waiter has checked and found nothing once it flags its wait.
        while !bell.is_waited_on() {
            tokio::task::yield_now().await;
        }
        // A ring without the change wakes it only to wait again.
        bell.ring();
        work.fetch_add(1, Ordering::SeqCst);
        bell.ring();
        tokio::time::timeout(BOUND, waiter)
            .await
            .expect("the ring was lost")
            .unwrap();
        assert!(!bell.is_waited_on());
    }

    #[tokio::test]
    async fn a_dropped_wait_is_no_longer_waited_on() {
        let bell = Doorbell::default();
        tokio::select! {
            biased;
            () = bell.wait_until(|| false) => unreachable!("never ready"),
            () = std::future::ready(()) => {}
        }
        assert!(!bell.is_waited_on());
    }

    #[tokio::test]
    async fn an_activity_is_taken_once_and_wakes_the_next_wait() {
        let activity = Arc::new(Activity::default());
        assert!(!activity.take(), "nothing happened yet");
        let waiter = tokio::spawn({
            let activity = activity.clone();
            async move { activity.next().await }
        });
        while !activity.is_waited_on() {
            tokio::task::yield_now().await;
        }
        activity.note();
        activity.note();
        tokio::time::timeout(BOUND, waiter)
            .await
            .expect("the note was lost")
            .unwrap();
        assert!(activity.take());
        assert!(!activity.take(), "taken twice");
        assert!(
            activity.next().now_or_never().is_none(),
            "ready without a note"
        );
    }

    #[test]
    fn ringing_with_nobody_waiting_leaves_no_permit_behind() {
        let bell = Doorbell::default();
        bell.ring();
        assert!(!bell.is_waited_on());
        // Had the ring stored a permit, this wait would be ready at once.
        assert!(bell.wake.notified().now_or_never().is_none());
    }
}
