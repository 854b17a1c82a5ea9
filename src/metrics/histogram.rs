//! A latency histogram that records with atomics only.
//!
//! `prometheus-client`'s own `Histogram` takes a mutex on every `observe`;
//! on the read path that lock would be taken by every request of every
//! connection. This one keeps one `AtomicU64` per bucket plus the count and
//! the sum (in nanoseconds), so recording is a bucket search over a dozen
//! integers and three relaxed atomic adds. A scrape reads the atomics one by one, so it can see a
//! sample in `count` that is not yet in its bucket; Prometheus tolerates
//! that, and the next scrape is exact.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use prometheus_client::encoding::{EncodeMetric, MetricEncoder, NoLabelSet};
use prometheus_client::metrics::{MetricType, TypedMetric};

/// Upper bounds (seconds) of HTTP request latency buckets: 100 µs to 10 s.
pub const REQUEST_BUCKETS: &[f64] = &[
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
    5.0, 10.0,
];

/// Upper bounds (seconds) of store operation buckets: 5 µs (a memtable hit) to 2.5 s.
pub const STORE_BUCKETS: &[f64] = &[
    0.000005, 0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
    0.025, 0.1, 0.5, 2.5,
];

/// A histogram of durations; clones share the same counters.
#[derive(Debug, Clone)]
pub struct LatencyHistogram {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    /// Bucket upper bounds in seconds (for the exposition) …
    bounds: &'static [f64],
    /// … and in nanoseconds (for recording without float math).
    bounds_ns: Vec<u64>,
    /// Samples per bucket, not cumulative; one more than `bounds` for `+Inf`.
    buckets: Vec<AtomicU64>,
    count: AtomicU64,
    sum_ns: AtomicU64,
}

impl LatencyHistogram {
    /// An empty histogram with these bucket upper bounds (seconds, ascending).
    pub fn new(bounds: &'static [f64]) -> Self {
        Self {
            inner: Arc::new(Inner {
                bounds,
                bounds_ns: bounds.iter().map(|s| (s * 1e9) as u64).collect(),
                buckets: (0..=bounds.len()).map(|_| AtomicU64::new(0)).collect(),
                count: AtomicU64::new(0),
                sum_ns: AtomicU64::new(0),
            }),
        }
    }

    /// Records one sample.
    pub fn observe(&self, elapsed: Duration) {
        let ns = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
        let inner = &*self.inner;
        let slot = inner
            .bounds_ns
            .iter()
            .position(|&bound| ns <= bound)
            .unwrap_or(inner.bounds_ns.len());
        if let Some(bucket) = inner.buckets.get(slot) {
            bucket.fetch_add(1, Ordering::Relaxed);
        }
        inner.count.fetch_add(1, Ordering::Relaxed);
        inner.sum_ns.fetch_add(ns, Ordering::Relaxed);
    }

    /// Samples recorded so far.
    pub fn count(&self) -> u64 {
        self.inner.count.load(Ordering::Relaxed)
    }
}

impl TypedMetric for LatencyHistogram {
    const TYPE: MetricType = MetricType::Histogram;
}

impl EncodeMetric for LatencyHistogram {
    fn encode(&self, mut encoder: MetricEncoder) -> Result<(), std::fmt::Error> {
        let inner = &*self.inner;
        let buckets: Vec<(f64, u64)> = inner
            .bounds
            .iter()
            .copied()
            .chain(std::iter::once(f64::INFINITY))
            .zip(inner.buckets.iter().map(|b| b.load(Ordering::Relaxed)))
            .collect();
        // The count is the buckets' total, so a scrape is self-consistent
        // even when it races a recording.
        let count = buckets.iter().map(|(_, n)| n).sum();
        let sum = inner.sum_ns.load(Ordering::Relaxed) as f64 / 1e9;
        encoder.encode_histogram::<NoLabelSet>(sum, count, &buckets, None)
    }

    fn metric_type(&self) -> MetricType {
        Self::TYPE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Samples land in the first bucket whose bound they do not exceed, and the sum adds up.
    #[test]
    fn buckets_and_sum() {
        let h = LatencyHistogram::new(&[0.001, 0.01]);
        h.observe(Duration::from_micros(500));
        h.observe(Duration::from_millis(1));
        h.observe(Duration::from_millis(5));
        h.observe(Duration::from_secs(3));
        let counts: Vec<u64> = h
            .inner
            .buckets
            .iter()
            .map(|b| b.load(Ordering::Relaxed))
            .collect();
        assert_eq!(counts, vec![2, 1, 1]);
        assert_eq!(h.count(), 4);
        assert_eq!(h.inner.sum_ns.load(Ordering::Relaxed), 3_006_500_000);
    }
}
