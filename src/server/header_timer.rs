//! The header-read deadline of one connection, as a hyper [`Timer`].
//!
//! hyper bounds the time a client takes to send a request head (and, on a
//! kept-alive connection, to start the next one) with a timer it creates
//! for every request and drops once the head is parsed. hyper-util's
//! `TokioTimer` makes each of those a new boxed tokio `Sleep` (a cache-line
//! aligned allocation, which takes mimalloc's slow path), inserts it into the
//! timer wheel while the connection waits for the next request, and removes
//! it again: work paid on every request, for a deadline that almost never
//! goes off.
//!
//! Here a connection keeps one tokio `Sleep` for its whole life, created the
//! first time a deadline is waited on. hyper still asks for a new deadline
//! per request, but that is a small box pointing at the shared `Sleep`, and
//! waiting on it moves the `Sleep` to the new instant. Deadlines of one
//! connection only grow, and tokio moves a sleep to a later instant with one
//! compare-and-swap, leaving its wheel entry where it was until the old
//! instant comes. A deadline that is dropped leaves the `Sleep` armed; when
//! it goes off nobody is waiting on it, and the connection's task is woken
//! once for nothing.
//!
//! One connection, one timer: hyper's HTTP/1 server uses its timer for the
//! header-read deadline only, and holds one such deadline at a time.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use hyper::rt::{Sleep, Timer};

/// The shared `Sleep`, created on first use.
type Shared = Arc<Mutex<Option<Pin<Box<tokio::time::Sleep>>>>>;

/// The timer of one connection: give each connection its own.
#[derive(Clone, Default)]
pub struct HeaderTimer {
    sleep: Shared,
}

impl Timer for HeaderTimer {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn Sleep>> {
        self.sleep_until(self.now() + duration)
    }

    /// tokio's clock, which is the system's except in tests with paused time.
    fn now(&self) -> Instant {
        tokio::time::Instant::now().into_std()
    }

    fn sleep_until(&self, deadline: Instant) -> Pin<Box<dyn Sleep>> {
        Box::pin(Deadline {
            at: deadline.into(),
            sleep: self.sleep.clone(),
        })
    }
}

/// One deadline: complete once the connection's `Sleep`, moved to `at`, has gone off.
struct Deadline {
    at: tokio::time::Instant,
    sleep: Shared,
}

impl Future for Deadline {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // Uncontended: only the connection's own task polls its deadlines.
        let mut slot = self.sleep.lock().unwrap_or_else(PoisonError::into_inner);
        let sleep = match slot.as_mut() {
            Some(sleep) => {
                if sleep.deadline() != self.at {
                    sleep.as_mut().reset(self.at);
                }
                sleep
            }
            None => slot.insert(Box::pin(tokio::time::sleep_until(self.at))),
        };
        sleep.as_mut().poll(cx)
    }
}

impl Sleep for Deadline {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::poll_fn;

    /// Whether `deadline` has gone off, without waiting.
    fn done(deadline: &mut Pin<Box<dyn Sleep>>) -> bool {
        let mut cx = Context::from_waker(std::task::Waker::noop());
        deadline.as_mut().poll(&mut cx).is_ready()
    }

    /// Waits (in paused time) until `deadline` goes off, and checks that
    /// this took `expected` (tokio rounds deadlines up to its next 1 ms tick).
    async fn wait(deadline: &mut Pin<Box<dyn Sleep>>, expected: Duration) {
        let started = tokio::time::Instant::now();
        poll_fn(|cx| deadline.as_mut().poll(cx)).await;
        let took = started.elapsed();
        assert!(
            took >= expected && took <= expected + Duration::from_millis(2),
            "went off after {took:?}, not {expected:?}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_deadline_goes_off_at_its_instant() {
        let timer = HeaderTimer::default();
        let mut first = timer.sleep(Duration::from_secs(5));
        assert!(!done(&mut first));
        wait(&mut first, Duration::from_secs(5)).await;
    }

    /// The next request's later deadline moves the shared sleep: it does
    /// not go off at the earlier one's instant.
    #[tokio::test(start_paused = true)]
    async fn a_later_deadline_is_not_cut_short_by_an_earlier_one() {
        let timer = HeaderTimer::default();
        let mut first = timer.sleep(Duration::from_secs(5));
        assert!(!done(&mut first));
        tokio::time::advance(Duration::from_secs(3)).await;
        drop(first);
        let mut second = timer.sleep(Duration::from_secs(5));
        wait(&mut second, Duration::from_secs(5)).await;
    }

    /// After a deadline went off, the next one starts over.
    #[tokio::test(start_paused = true)]
    async fn a_deadline_after_one_that_went_off_waits_its_full_time() {
        let timer = HeaderTimer::default();
        let mut first = timer.sleep(Duration::from_secs(1));
        wait(&mut first, Duration::from_secs(1)).await;
        let mut second = timer.sleep(Duration::from_secs(2));
        assert!(!done(&mut second));
        wait(&mut second, Duration::from_secs(2)).await;
    }

    /// Connections do not share a deadline.
    #[tokio::test(start_paused = true)]
    async fn timers_are_independent() {
        let (a, b) = (HeaderTimer::default(), HeaderTimer::default());
        let mut short = a.sleep(Duration::from_secs(1));
        let mut long = b.sleep(Duration::from_secs(10));
        assert!(!done(&mut long));
        wait(&mut short, Duration::from_secs(1)).await;
        assert!(!done(&mut long));
        wait(&mut long, Duration::from_secs(9)).await;
    }
}
