//! Waiting for something the test knows is coming: a state to be reached or
//! a log line to arrive. The wait ends as soon as it is there; the limit is
//! only a guard against hanging, generous because the machine may be busy
//! (compiling, or running the other tests), so a slow moment is not a failure.

use std::time::{Duration, Instant};

/// The longest a test waits for something that is on its way.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// Polls `check` every 100 ms until it holds or [`PATIENCE`] runs out; returns whether it held.
pub async fn eventually<F, Fut>(mut check: F) -> bool
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let deadline = Instant::now() + PATIENCE;
    while Instant::now() < deadline {
        if check().await {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}
