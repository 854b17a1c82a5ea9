//! Request rate limits: one bucket per tenant, one per client IP for anonymous
//! requests (GCRA via `governor`). An IPv6 client's bucket is its network
//! (a /64 unless configured otherwise), since one subscriber usually holds a
//! whole /64 and could otherwise take a fresh bucket per address.
//!
//! A tenant's bucket is rebuilt when its configured rate changes, so an admin's
//! change applies to the next request. With the embedded store limits live in
//! this process; with a store that several instances share (PostgreSQL) every
//! bucket lives in the store ([`Store::shared_rates`]), so spreading requests
//! over instances does not multiply a rate.

use std::collections::HashMap;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::middleware::StateInformationMiddleware;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::state::{InMemoryState, NotKeyed};
use governor::{Quota, RateLimiter};

use super::client_net::client_net;
use crate::core::tenant::Rate;
use crate::idle::Doorbell;
use crate::store::{GcraOutcome, RateStore, Store, StoreError};

type DirectLimiter = RateLimiter<NotKeyed, InMemoryState, DefaultClock, StateInformationMiddleware>;
type KeyedLimiter =
    RateLimiter<IpAddr, DefaultKeyedStateStore<IpAddr>, DefaultClock, StateInformationMiddleware>;

/// The outcome of a rate check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// No limit applies.
    Unlimited,
    /// Allowed; `remaining` more requests fit in the burst right now.
    Allowed {
        /// The bucket size.
        limit: u32,
        /// Requests left in the burst.
        remaining: u32,
    },
    /// Refused; retry after this long.
    Limited {
        /// The bucket size.
        limit: u32,
        /// Time until the next request would be allowed.
        retry_after: Duration,
    },
}

/// A rate and its burst, as configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    /// Sustained rate.
    pub rate: Rate,
    /// Bucket size (requests allowed back to back).
    pub burst: u32,
}

impl Limit {
    /// A limit with `burst`, or twice the per-second count (at least 1) when none is given.
    pub fn new(rate: Rate, burst: Option<u32>) -> Self {
        let default_burst = (rate.count / rate.per_secs).saturating_mul(2).max(1);
        Self {
            rate,
            burst: burst.unwrap_or(default_burst).max(1),
        }
    }

    fn quota(self) -> Quota {
        let burst = NonZeroU32::new(self.burst).unwrap_or(NonZeroU32::MIN);
        Quota::with_period(self.rate.interval())
            .unwrap_or_else(|| Quota::per_second(NonZeroU32::MAX))
            .allow_burst(burst)
    }
}

/// The IPv6 prefix length that shares a bucket unless configured otherwise:
/// what ISPs hand one subscriber.
pub const DEFAULT_IPV6_PREFIX: u8 = 64;

/// All the buckets of a server.
pub struct RateLimits {
    clock: DefaultClock,
    per_ip: Option<(Limit, KeyedLimiter)>,
    /// The length of the IPv6 prefix that shares one bucket.
    ipv6_prefix: u8,
    tenant_default: Option<Limit>,
    tenants: Mutex<HashMap<String, (Limit, Arc<DirectLimiter>)>>,
    /// The store, when its buckets are shared by all instances.
    shared: Option<Arc<dyn Store>>,
    /// Rung by every per-IP check, for the cleanup waiting for a first
    /// bucket ([`Self::first_bucket`]).
    cleanup: Doorbell,
}

impl RateLimits {
    /// Buckets for anonymous clients by IP (`None`: unlimited) and the default for tenants.
    pub fn new(per_ip: Option<Limit>, tenant_default: Option<Limit>) -> Self {
        Self {
            clock: DefaultClock::default(),
            per_ip: per_ip.map(|l| (l, RateLimiter::keyed(l.quota()).with_middleware())),
            ipv6_prefix: DEFAULT_IPV6_PREFIX,
            tenant_default,
            tenants: Mutex::new(HashMap::new()),
            shared: None,
            cleanup: Doorbell::default(),
        }
    }

    /// Gives all IPv6 clients whose first `bits` bits agree one bucket (at
    /// most 128: one per address).
    pub fn with_ipv6_prefix(mut self, bits: u8) -> Self {
        self.ipv6_prefix = bits.min(128);
        self
    }

    /// The key of `ip`'s bucket: its client network, also the client a
    /// share of other per-client bounds is counted under.
    pub fn bucket_of(&self, ip: IpAddr) -> IpAddr {
        client_net(ip, self.ipv6_prefix)
    }

    /// Keeps every bucket in `store` instead of in process, if it shares
    /// buckets with other instances.
    pub fn shared_through(mut self, store: Arc<dyn Store>) -> Self {
        self.shared = store.shared_rates().is_some().then_some(store);
        self
    }

    fn shared(&self) -> Option<&dyn RateStore> {
        self.shared.as_deref()?.shared_rates()
    }

    /// Checks (and counts) one anonymous request from `ip`, wherever buckets live.
    pub async fn check_ip_anywhere(&self, ip: IpAddr) -> Result<Verdict, StoreError> {
        match (self.shared(), &self.per_ip) {
            (Some(rates), Some((limit, _))) => {
                shared_verdict(rates, &format!("ip:{}", self.bucket_of(ip)), *limit).await
            }
            _ => Ok(self.check_ip(ip)),
        }
    }

    /// Checks (and counts) one anonymous request from `ip` when that needs no
    /// waiting (buckets in this process); `None` when they live in the store.
    pub fn check_ip_here(&self, ip: IpAddr) -> Option<Verdict> {
        match (self.shared(), &self.per_ip) {
            (Some(_), Some(_)) => None,
            _ => Some(self.check_ip(ip)),
        }
    }

    /// Checks (and counts) one request of `tenant`, wherever buckets live.
    pub async fn check_tenant_anywhere(
        &self,
        tenant: &str,
        own: Option<Limit>,
    ) -> Result<Verdict, StoreError> {
        match (self.shared(), own.or(self.tenant_default)) {
            (Some(rates), Some(limit)) => {
                shared_verdict(rates, &format!("tenant:{tenant}"), limit).await
            }
            _ => Ok(self.check_tenant(tenant, own)),
        }
    }

    /// Checks (and counts) one anonymous request from `ip`.
    pub fn check_ip(&self, ip: IpAddr) -> Verdict {
        let Some((limit, limiter)) = &self.per_ip else {
            return Verdict::Unlimited;
        };
        let outcome = limiter
            .check_key(&self.bucket_of(ip))
            .map(|s| s.remaining_burst_capacity());
        self.cleanup.ring();
        self.verdict(limit.burst, outcome)
    }

    /// Forgets the bucket of a deleted tenant, so that a tenant re-created
    /// under its name starts full (shared buckets go with the tenant's row).
    pub fn forget_tenant(&self, tenant: &str) {
        let mut tenants = self.tenants.lock().unwrap_or_else(|p| p.into_inner());
        tenants.remove(tenant);
    }

    /// Checks (and counts) one request of `tenant`, whose own limit (if any) overrides the default.
    pub fn check_tenant(&self, tenant: &str, own: Option<Limit>) -> Verdict {
        let Some(limit) = own.or(self.tenant_default) else {
            return Verdict::Unlimited;
        };
        let limiter = {
            let mut tenants = self.tenants.lock().unwrap_or_else(|p| p.into_inner());
            match tenants.get(tenant) {
                Some((current, limiter)) if *current == limit => limiter.clone(),
                _ => {
                    let limiter = Arc::new(RateLimiter::direct(limit.quota()).with_middleware());
                    tenants.insert(tenant.to_owned(), (limit, limiter.clone()));
                    limiter
                }
            }
        };
        self.verdict(
            limit.burst,
            limiter.check().map(|s| s.remaining_burst_capacity()),
        )
    }

    fn verdict(
        &self,
        limit: u32,
        outcome: Result<u32, governor::NotUntil<<DefaultClock as Clock>::Instant>>,
    ) -> Verdict {
        match outcome {
            Ok(remaining) => Verdict::Allowed { limit, remaining },
            Err(not_until) => Verdict::Limited {
                limit,
                retry_after: not_until.wait_time_from(self.clock.now()),
            },
        }
    }

    /// Resolves once there is a per-IP bucket to forget, so that a server
    /// no client has used lately sets no timer for the cleanup; never, when
    /// clients are not limited by IP.
    pub async fn first_bucket(&self) {
        let Some((_, limiter)) = &self.per_ip else {
            return std::future::pending().await;
        };
        self.cleanup.wait_until(|| !limiter.is_empty()).await;
    }

    /// Forgets idle per-IP buckets, so memory does not grow with every client ever seen.
    pub fn forget_idle(&self) {
        if let Some((_, limiter)) = &self.per_ip {
            limiter.retain_recent();
            limiter.shrink_to_fit();
        }
    }
}

async fn shared_verdict(
    rates: &dyn RateStore,
    key: &str,
    limit: Limit,
) -> Result<Verdict, StoreError> {
    let outcome = rates
        .acquire(key, limit.rate.interval(), limit.burst)
        .await?;
    Ok(match outcome {
        GcraOutcome::Allowed { remaining } => Verdict::Allowed {
            limit: limit.burst,
            remaining: remaining.min(limit.burst),
        },
        GcraOutcome::Limited { retry_after } => Verdict::Limited {
            limit: limit.burst,
            retry_after,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Polls `future` once: whether it is still waiting.
    fn pending<F: std::future::Future>(future: std::pin::Pin<&mut F>) -> bool {
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        future.poll(&mut cx).is_pending()
    }

    /// The cleanup waits while no client has a bucket, wakes at the first
    /// check, and waits again once the buckets are forgotten.
    #[tokio::test]
    async fn the_cleanup_waits_for_a_first_bucket() {
        let limit = Limit::new(Rate::parse("1000/s").unwrap(), Some(1));
        let limits = RateLimits::new(Some(limit), None);
        let mut first = std::pin::pin!(limits.first_bucket());
        assert!(pending(first.as_mut()));
        assert!(pending(first.as_mut()));
        limits.check_ip("10.0.0.1".parse().unwrap());
        // The bound only keeps a broken wake-up from hanging the suite.
        let bound = Duration::from_secs(10);
        tokio::time::timeout(bound, first)
            .await
            .expect("the first check wakes the cleanup");
        tokio::time::timeout(bound, limits.first_bucket())
            .await
            .expect("a bucket is there");

        // A bucket is forgotten once it is full again (a millisecond here).
        let (_, limiter) = limits.per_ip.as_ref().unwrap();
        let deadline = std::time::Instant::now() + bound;
        while !limiter.is_empty() {
            assert!(std::time::Instant::now() < deadline, "never forgotten");
            tokio::task::yield_now().await;
            limits.forget_idle();
        }
        assert!(pending(std::pin::pin!(limits.first_bucket())));
    }

    /// Without a limit by IP there is never anything to forget.
    #[tokio::test]
    async fn without_an_ip_limit_the_cleanup_never_wakes() {
        let limit = Limit::new(Rate::parse("1/s").unwrap(), Some(1));
        let limits = RateLimits::new(None, Some(limit));
        let mut first = std::pin::pin!(limits.first_bucket());
        assert!(pending(first.as_mut()));
        limits.check_ip("10.0.0.1".parse().unwrap());
        limits.check_tenant("t", None);
        assert!(pending(first.as_mut()));
    }

    /// A burst is allowed, the next request is refused with a wait, other keys are unaffected.
    #[test]
    fn buckets_are_separate() {
        let limit = Limit::new(Rate::parse("1/h").unwrap(), Some(3));
        let limits = RateLimits::new(Some(limit), Some(limit));
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        for expected in [2, 1, 0] {
            assert_eq!(
                limits.check_ip(a),
                Verdict::Allowed {
                    limit: 3,
                    remaining: expected
                }
            );
        }
        assert!(
            matches!(limits.check_ip(a), Verdict::Limited { retry_after, .. } if retry_after > Duration::from_secs(3000))
        );
        assert!(matches!(limits.check_ip(b), Verdict::Allowed { .. }));
        for _ in 0..3 {
            assert!(matches!(
                limits.check_tenant("t", None),
                Verdict::Allowed { .. }
            ));
        }
        assert!(matches!(
            limits.check_tenant("t", None),
            Verdict::Limited { .. }
        ));
        assert!(matches!(
            limits.check_tenant("u", None),
            Verdict::Allowed { .. }
        ));
    }

    /// IPv6 clients share a bucket per /64 (or the configured prefix); IPv4
    /// clients, IPv4-mapped ones included, have one each.
    #[test]
    fn ipv6_networks_share_a_bucket() {
        let limit = Limit::new(Rate::parse("1/h").unwrap(), Some(1));
        let ip = |text: &str| -> IpAddr { text.parse().unwrap() };
        let limits = RateLimits::new(Some(limit), None);
        assert!(matches!(
            limits.check_ip(ip("2001:db8::1")),
            Verdict::Allowed { .. }
        ));
        assert!(matches!(
            limits.check_ip(ip("2001:db8::ffff:2")),
            Verdict::Limited { .. }
        ));
        assert!(matches!(
            limits.check_ip(ip("2001:db8:0:1::1")),
            Verdict::Allowed { .. }
        ));
        assert!(matches!(
            limits.check_ip(ip("::ffff:10.0.0.1")),
            Verdict::Allowed { .. }
        ));
        assert!(matches!(
            limits.check_ip(ip("::ffff:10.0.0.2")),
            Verdict::Allowed { .. }
        ));
        let per_address = RateLimits::new(Some(limit), None).with_ipv6_prefix(128);
        assert!(matches!(
            per_address.check_ip(ip("2001:db8::1")),
            Verdict::Allowed { .. }
        ));
        assert!(matches!(
            per_address.check_ip(ip("2001:db8::2")),
            Verdict::Allowed { .. }
        ));
        let everyone = RateLimits::new(Some(limit), None).with_ipv6_prefix(0);
        assert!(matches!(
            everyone.check_ip(ip("2001:db8::1")),
            Verdict::Allowed { .. }
        ));
        assert!(matches!(
            everyone.check_ip(ip("3fff::1")),
            Verdict::Limited { .. }
        ));
    }

    /// A changed tenant limit takes effect at once; no limit means unlimited.
    #[test]
    fn tenant_limit_changes_apply() {
        let limits = RateLimits::new(None, None);
        assert_eq!(limits.check_ip("::1".parse().unwrap()), Verdict::Unlimited);
        assert_eq!(limits.check_tenant("t", None), Verdict::Unlimited);
        let tight = Limit::new(Rate::parse("1/h").unwrap(), Some(1));
        assert!(matches!(
            limits.check_tenant("t", Some(tight)),
            Verdict::Allowed { .. }
        ));
        assert!(matches!(
            limits.check_tenant("t", Some(tight)),
            Verdict::Limited { .. }
        ));
        let loose = Limit::new(Rate::parse("100/s").unwrap(), None);
        assert!(matches!(
            limits.check_tenant("t", Some(loose)),
            Verdict::Allowed { limit: 200, .. }
        ));
    }
}
