//! Rate-limit buckets shared by all instances: GCRA in one statement.
//!
//! A bucket is one row holding its theoretical arrival time (`tat`, in
//! microseconds of the database's clock, so instances' clocks never disagree).
//! A request is allowed if, after adding one interval, the `tat` is at most
//! `burst` intervals ahead of now. The check and the update are one
//! `INSERT … ON CONFLICT DO UPDATE`, which holds the row's lock, so requests
//! spread over any number of instances draw from one bucket.

use std::time::Duration;

use deadpool_postgres::{ClientWrapper, Transaction};

use super::{StoreError, db_error};
use crate::store::GcraOutcome;

/// Buckets untouched for this long are full again and are deleted by the sweeper.
const IDLE_MICROS: i64 = 60_000_000;

/// Counts one request against bucket `key`.
pub async fn acquire(
    client: &ClientWrapper,
    key: &str,
    interval: Duration,
    burst: u32,
) -> Result<GcraOutcome, StoreError> {
    let t = i64::try_from(interval.as_micros())
        .unwrap_or(i64::MAX / 4)
        .max(1);
    let window = t.saturating_mul(i64::from(burst.max(1)));
    // $2 = interval, $3 = interval × burst; `excluded.tat - $2` is now.
    let stmt = client
        .prepare_cached(
            "INSERT INTO rate_buckets AS b (key, tat, allowed)
             SELECT $1, (extract(epoch FROM clock_timestamp()) * 1000000)::bigint + $2, true
             ON CONFLICT (key) DO UPDATE SET
                allowed = greatest(b.tat, excluded.tat - $2) + $2 - (excluded.tat - $2) <= $3,
                tat = CASE WHEN greatest(b.tat, excluded.tat - $2) + $2 - (excluded.tat - $2) <= $3
                           THEN greatest(b.tat, excluded.tat - $2) + $2 ELSE b.tat END
             RETURNING tat, allowed, (extract(epoch FROM clock_timestamp()) * 1000000)::bigint",
        )
        .await
        .map_err(db_error)?;
    let row = client
        .query_one(&stmt, &[&key, &t, &window])
        .await
        .map_err(db_error)?;
    let (tat, allowed, now): (i64, bool, i64) = (row.get(0), row.get(1), row.get(2));
    let ahead = tat.saturating_sub(now).max(0);
    Ok(if allowed {
        GcraOutcome::Allowed {
            remaining: u32::try_from((window - ahead).max(0) / t).unwrap_or(0),
        }
    } else {
        let wait = tat
            .saturating_add(t)
            .saturating_sub(window)
            .saturating_sub(now);
        GcraOutcome::Limited {
            retry_after: Duration::from_micros(u64::try_from(wait).unwrap_or(0)),
        }
    })
}

/// Deletes buckets that have been idle long enough to be full (as if never used).
pub async fn forget_idle(tx: &Transaction<'_>) -> Result<(), StoreError> {
    tx.execute(
        "DELETE FROM rate_buckets
         WHERE tat < (extract(epoch FROM clock_timestamp()) * 1000000)::bigint - $1",
        &[&IDLE_MICROS],
    )
    .await
    .map_err(db_error)?;
    Ok(())
}
