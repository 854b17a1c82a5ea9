//! Prometheus metrics: the [`Metrics`] registry every part of the server
//! records into, rendered by `GET /metrics` in the text exposition format.
//!
//! Built on `prometheus-client` (the official Rust client: no global
//! registry, typed metrics). Recording must cost next to nothing on the read
//! path, so every series a request touches is resolved to a shared atomic
//! handle once (at startup, or on the first request with that route, method
//! and status) and recording is then relaxed atomic adds, without a lock, a
//! hash lookup or a label string being built. Route labels are the route
//! templates (`/raw/{id}`), never a paste ID, so the number of series is
//! bounded by routes × methods × statuses.
//!
//! Series (all prefixed `snip_`):
//! - `http_requests_total{route,method,status}`, `http_request_duration_seconds{route}`;
//! - `pastes_total{event}`: `created`, `read`, `burned`, `expired`, `deleted`;
//! - `stored_bytes`, `stored_pastes` (gauges read from the store at scrape time);
//! - `store_operation_duration_seconds{op}`;
//! - `rate_limited_total{bucket}`: `ip` or `tenant`;
//! - on PostgreSQL, the instance's cache ([`Metrics::with_store_cache`]):
//!   `store_cache_entries{kind}` (`paste`, `token`, `tenant`),
//!   `store_cache_invalidations_total` (notifications received),
//!   `store_cache_listens_total` (times its listener started listening and
//!   emptied it), `store_cache_trusted` (1 while it may be served, or will
//!   be once a read wakes its idle listener).

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::http::{Method, StatusCode};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

mod histogram;
mod metered_store;

use crate::store::CacheStats;
use crate::tls::TlsStats;
pub use histogram::LatencyHistogram;
use histogram::{REQUEST_BUCKETS, STORE_BUCKETS};
pub use metered_store::MeteredStore;

/// The content type of the text exposition format `GET /metrics` answers with.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// The route label of requests that matched no route (answered by the fallback).
pub const UNMATCHED: &str = "unmatched";

/// Methods with a pre-resolved slot; anything else is labelled `other`.
const METHODS: [Method; 7] = [
    Method::GET,
    Method::HEAD,
    Method::POST,
    Method::PUT,
    Method::PATCH,
    Method::DELETE,
    Method::OPTIONS,
];
/// The statuses snip answers with; others are counted through the (locking) family.
const STATUSES: [u16; 21] = [
    200, 201, 204, 206, 302, 303, 304, 400, 401, 403, 404, 405, 408, 409, 413, 415, 416, 429, 500,
    503, 507,
];

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    route: &'static str,
    method: &'static str,
    status: u16,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    route: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct EventLabels {
    event: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OpLabels {
    op: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct BucketLabels {
    bucket: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct KindLabels {
    kind: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ResultLabels {
    result: &'static str,
}

/// The TLS series, present when snip terminates TLS itself. The acceptor
/// counts into [`TlsStats`] (atomics it owns); a scrape copies them here.
#[derive(Debug)]
struct TlsSeries {
    stats: Arc<TlsStats>,
    /// Completed, then failed handshakes.
    handshakes: [Counter; 2],
    expiry: Gauge,
}

impl TlsSeries {
    fn sync(&self) {
        let totals = [self.stats.handshakes(), self.stats.failed_handshakes()];
        for (counter, total) in self.handshakes.iter().zip(totals) {
            // Counters only go up: add what the acceptor counted since the last scrape.
            counter.inc_by(total.saturating_sub(counter.get()));
        }
        self.expiry.set(self.stats.cert_not_after().unwrap_or(0));
    }
}

/// The series of [`CacheStats`], copied from the store at every scrape.
#[derive(Debug)]
struct CacheSeries {
    /// Pastes, tokens, tenants.
    entries: [Gauge; 3],
    invalidations: Counter,
    listens: Counter,
    trusted: Gauge,
}

impl CacheSeries {
    fn sync(&self, stats: CacheStats) {
        let counts = [stats.pastes, stats.tokens, stats.tenants];
        for (gauge, count) in self.entries.iter().zip(counts) {
            gauge.set(i64::try_from(count).unwrap_or(i64::MAX));
        }
        for (counter, total) in [
            (&self.invalidations, stats.invalidations),
            (&self.listens, stats.listens),
        ] {
            counter.inc_by(total.saturating_sub(counter.get()));
        }
        self.trusted.set(i64::from(stats.trusted));
    }
}

/// A route, resolved once per request from its template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RouteId(usize);

/// The pre-resolved series of one route.
#[derive(Debug)]
struct RouteSeries {
    template: &'static str,
    latency: LatencyHistogram,
    /// One slot per `METHODS` × `STATUSES` pair, filled on first use.
    counters: Box<[OnceLock<Counter>]>,
}

/// Lifecycle events of pastes, counted by the store's metering wrapper.
#[derive(Debug, Clone)]
pub struct PasteEvents {
    /// Stored by a create.
    pub created: Counter,
    /// Read with their body (a burn paste only counts when burned).
    pub read: Counter,
    /// Burn pastes revealed, and so deleted.
    pub burned: Counter,
    /// Removed by the sweeper after expiring.
    pub expired: Counter,
    /// Deleted with a delete token or by their tenant.
    pub deleted: Counter,
}

/// The store operations whose latency is recorded (the `op` label).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreOp {
    /// Storing a paste.
    Put,
    /// Reading a paste with its body.
    Get,
    /// Reading a paste's metadata.
    Meta,
    /// Reading and deleting a burn paste.
    Take,
    /// Deleting a paste.
    Delete,
    /// Listing a tenant's pastes.
    List,
    /// Searching a tenant's pastes.
    Search,
    /// A sweeper batch.
    Sweep,
    /// The per-request token lookup.
    Token,
    /// Reading a tenant or its usage.
    Tenant,
    /// Admin changes and listings of tenants and tokens.
    Admin,
    /// The readiness check.
    Ping,
}

impl StoreOp {
    /// Every operation, in declaration order (so `op as usize` indexes it).
    const ALL: [Self; 12] = [
        Self::Put,
        Self::Get,
        Self::Meta,
        Self::Take,
        Self::Delete,
        Self::List,
        Self::Search,
        Self::Sweep,
        Self::Token,
        Self::Tenant,
        Self::Admin,
        Self::Ping,
    ];

    fn label(self) -> &'static str {
        match self {
            Self::Put => "put",
            Self::Get => "get",
            Self::Meta => "meta",
            Self::Take => "take",
            Self::Delete => "delete",
            Self::List => "list",
            Self::Search => "search",
            Self::Sweep => "sweep",
            Self::Token => "token",
            Self::Tenant => "tenant",
            Self::Admin => "admin",
            Self::Ping => "ping",
        }
    }
}

/// Which rate limit refused a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bucket {
    /// The per-IP limit of anonymous clients (and bad tokens).
    Ip,
    /// A tenant's limit.
    Tenant,
}

/// Every metric snip exports, with its registry.
///
/// With native TLS, [`Metrics::with_tls`] adds `tls_handshakes_total{result}`
/// and `tls_certificate_expiry_timestamp_seconds`; without it they are not
/// exported at all rather than as fake zeros.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    /// One entry per route template, then one for unmatched requests.
    routes: Vec<RouteSeries>,
    requests: Family<RequestLabels, Counter>,
    /// Paste lifecycle counters.
    pub pastes: PasteEvents,
    stored_bytes: Gauge,
    stored_pastes: Gauge,
    store_ops: Vec<LatencyHistogram>,
    rate_limited: [Counter; 2],
    tls: Option<TlsSeries>,
    cache: Option<CacheSeries>,
}

impl Metrics {
    /// Registers every series; `routes` are the router's route templates.
    pub fn new(routes: impl IntoIterator<Item = &'static str>) -> Self {
        let mut registry = Registry::with_prefix("snip");
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "http_requests",
            "HTTP requests answered, by route template, method and status",
            requests.clone(),
        );
        let latency =
            Family::<RouteLabels, LatencyHistogram, fn() -> LatencyHistogram>::new_with_constructor(
                || LatencyHistogram::new(REQUEST_BUCKETS),
            );
        registry.register(
            "http_request_duration_seconds",
            "Time from the request's arrival to its response head, by route template",
            latency.clone(),
        );
        let slots = METHODS.len() * STATUSES.len();
        let routes = routes
            .into_iter()
            .chain(std::iter::once(UNMATCHED))
            .map(|template| RouteSeries {
                template,
                latency: latency.get_or_create_owned(&RouteLabels { route: template }),
                counters: (0..slots).map(|_| OnceLock::new()).collect(),
            })
            .collect();

        let events = Family::<EventLabels, Counter>::default();
        registry.register("pastes", "Paste lifecycle events", events.clone());
        let event = |name| events.get_or_create_owned(&EventLabels { event: name });
        let pastes = PasteEvents {
            created: event("created"),
            read: event("read"),
            burned: event("burned"),
            expired: event("expired"),
            deleted: event("deleted"),
        };

        let stored_bytes = Gauge::default();
        registry.register(
            "stored_bytes",
            "Body bytes of stored pastes (expired ones count until swept)",
            stored_bytes.clone(),
        );
        let stored_pastes = Gauge::default();
        registry.register(
            "stored_pastes",
            "Stored pastes (expired ones count until swept)",
            stored_pastes.clone(),
        );

        let ops =
            Family::<OpLabels, LatencyHistogram, fn() -> LatencyHistogram>::new_with_constructor(
                || LatencyHistogram::new(STORE_BUCKETS),
            );
        registry.register(
            "store_operation_duration_seconds",
            "Latency of store operations, by operation",
            ops.clone(),
        );
        let store_ops = StoreOp::ALL
            .iter()
            .map(|op| ops.get_or_create_owned(&OpLabels { op: op.label() }))
            .collect();

        let limited = Family::<BucketLabels, Counter>::default();
        registry.register(
            "rate_limited",
            "Requests refused with 429, by the limit that refused them",
            limited.clone(),
        );
        let rate_limited = [
            limited.get_or_create_owned(&BucketLabels { bucket: "ip" }),
            limited.get_or_create_owned(&BucketLabels { bucket: "tenant" }),
        ];

        Self {
            registry,
            routes,
            requests,
            pastes,
            stored_bytes,
            stored_pastes,
            store_ops,
            rate_limited,
            tls: None,
            cache: None,
        }
    }

    /// Adds the series of the store's own cache, set from the
    /// [`CacheStats`] given to every [`Metrics::render`].
    pub fn with_store_cache(mut self) -> Self {
        let kinds = Family::<KindLabels, Gauge>::default();
        self.registry.register(
            "store_cache_entries",
            "Entries in the store's cache, by kind (paste, token, tenant)",
            kinds.clone(),
        );
        let invalidations = Counter::default();
        self.registry.register(
            "store_cache_invalidations",
            "Invalidations the store's cache received from the database",
            invalidations.clone(),
        );
        let listens = Counter::default();
        self.registry.register(
            "store_cache_listens",
            "Times the cache's listener started listening and emptied the cache",
            listens.clone(),
        );
        let trusted = Gauge::default();
        self.registry.register(
            "store_cache_trusted",
            "1 while the store's cache may answer reads (its listener is connected and answers pings)",
            trusted.clone(),
        );
        let kind = |kind| kinds.get_or_create_owned(&KindLabels { kind });
        self.cache = Some(CacheSeries {
            entries: [kind("paste"), kind("token"), kind("tenant")],
            invalidations,
            listens,
            trusted,
        });
        self
    }

    /// Adds the TLS series, read from the acceptor's `stats` at every scrape.
    pub fn with_tls(mut self, stats: Arc<TlsStats>) -> Self {
        let family = Family::<ResultLabels, Counter>::default();
        self.registry.register(
            "tls_handshakes",
            "TLS handshakes on the main listener, by result (ok, failed)",
            family.clone(),
        );
        let expiry = Gauge::default();
        self.registry.register(
            "tls_certificate_expiry_timestamp_seconds",
            "When the served certificate expires (Unix time; 0 while there is none)",
            expiry.clone(),
        );
        self.tls = Some(TlsSeries {
            stats,
            handshakes: [
                family.get_or_create_owned(&ResultLabels { result: "ok" }),
                family.get_or_create_owned(&ResultLabels { result: "failed" }),
            ],
            expiry,
        });
        self
    }

    /// The route whose template is `matched` (`None`, or a template not
    /// given to [`Metrics::new`]: the unmatched route).
    pub fn route(&self, matched: Option<&str>) -> RouteId {
        let last = self.routes.len() - 1;
        let found = matched.and_then(|m| self.routes[..last].iter().position(|r| r.template == m));
        RouteId(found.unwrap_or(last))
    }

    /// The label of a route, for logs.
    pub fn route_label(&self, route: RouteId) -> &'static str {
        self.routes.get(route.0).map_or(UNMATCHED, |r| r.template)
    }

    /// Records one answered request.
    pub fn record_request(
        &self,
        route: RouteId,
        method: &Method,
        status: StatusCode,
        elapsed: Duration,
    ) {
        let Some(series) = self.routes.get(route.0) else {
            return;
        };
        series.latency.observe(elapsed);
        let method_slot = METHODS.iter().position(|m| m == method);
        let status_slot = STATUSES.iter().position(|&s| s == status.as_u16());
        let labels = || RequestLabels {
            route: series.template,
            method: method_slot.map_or("other", |i| METHODS[i].as_str_static()),
            status: status.as_u16(),
        };
        match (method_slot, status_slot) {
            (Some(m), Some(s)) => {
                if let Some(slot) = series.counters.get(m * STATUSES.len() + s) {
                    slot.get_or_init(|| self.requests.get_or_create_owned(&labels()))
                        .inc();
                }
            }
            // Rare: an unusual method or status goes through the family's lock.
            _ => {
                self.requests.get_or_create(&labels()).inc();
            }
        }
    }

    /// The latency histogram of a store operation.
    pub fn store_op(&self, op: StoreOp) -> &LatencyHistogram {
        // `store_ops` is built from `StoreOp::ALL`, which lists the variants in order.
        &self.store_ops[op as usize]
    }

    /// Counts a request refused by a rate limit.
    pub fn rate_limited(&self, bucket: Bucket) {
        self.rate_limited[bucket as usize].inc();
    }

    /// The exposition text, with the store gauges set to these values.
    pub fn render(
        &self,
        stored_bytes: u64,
        stored_pastes: u64,
        cache: Option<CacheStats>,
    ) -> String {
        self.stored_bytes
            .set(i64::try_from(stored_bytes).unwrap_or(i64::MAX));
        self.stored_pastes
            .set(i64::try_from(stored_pastes).unwrap_or(i64::MAX));
        if let Some(tls) = &self.tls {
            tls.sync();
        }
        if let (Some(series), Some(stats)) = (&self.cache, cache) {
            series.sync(stats);
        }
        let mut text = String::with_capacity(16 * 1024);
        // Writing to a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &self.registry);
        text
    }
}

/// `&'static str` names of the methods in [`METHODS`].
trait StaticName {
    fn as_str_static(&self) -> &'static str;
}

impl StaticName for Method {
    fn as_str_static(&self) -> &'static str {
        match *self {
            Method::GET => "GET",
            Method::HEAD => "HEAD",
            Method::POST => "POST",
            Method::PUT => "PUT",
            Method::PATCH => "PATCH",
            Method::DELETE => "DELETE",
            Method::OPTIONS => "OPTIONS",
            _ => "other",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Requests are counted under their route template, method and status, and unknown templates fall to `unmatched`.
    #[test]
    fn request_series() {
        let metrics = Metrics::new(["/raw/{id}", "/{id}"]);
        let raw = metrics.route(Some("/raw/{id}"));
        assert_eq!(metrics.route_label(raw), "/raw/{id}");
        assert_eq!(metrics.route_label(metrics.route(None)), UNMATCHED);
        assert_eq!(metrics.route_label(metrics.route(Some("/nope"))), UNMATCHED);
        for _ in 0..3 {
            metrics.record_request(
                raw,
                &Method::GET,
                StatusCode::OK,
                Duration::from_micros(300),
            );
        }
        metrics.record_request(
            raw,
            &Method::from_bytes(b"BREW").unwrap(),
            StatusCode::IM_A_TEAPOT,
            Duration::from_millis(2),
        );
        metrics.pastes.created.inc();
        metrics.rate_limited(Bucket::Tenant);
        let text = metrics.render(1234, 5, None);
        assert!(
            text.contains(
                "snip_http_requests_total{route=\"/raw/{id}\",method=\"GET\",status=\"200\"} 3"
            ),
            "{text}"
        );
        assert!(text.contains(
            "snip_http_requests_total{route=\"/raw/{id}\",method=\"other\",status=\"418\"} 1"
        ));
        assert!(text.contains("snip_http_request_duration_seconds_count{route=\"/raw/{id}\"} 4"));
        assert!(text.contains("snip_pastes_total{event=\"created\"} 1"));
        assert!(text.contains("snip_pastes_total{event=\"burned\"} 0"));
        assert!(text.contains("snip_rate_limited_total{bucket=\"tenant\"} 1"));
        assert!(text.contains("snip_stored_bytes 1234"));
        assert!(text.contains("snip_stored_pastes 5"));
        assert!(text.ends_with("# EOF\n"));
        assert!(
            !text.contains("store_cache"),
            "cache series without a cache"
        );
    }

    /// The cache's series follow the store's figures at every scrape.
    #[test]
    fn cache_series() {
        let metrics = Metrics::new(["/raw/{id}"]).with_store_cache();
        let stats = CacheStats {
            pastes: 3,
            tokens: 2,
            tenants: 1,
            invalidations: 7,
            listens: 1,
            trusted: true,
        };
        metrics.render(0, 0, Some(stats));
        let text = metrics.render(
            0,
            0,
            Some(CacheStats {
                invalidations: 9,
                ..stats
            }),
        );
        for expected in [
            "snip_store_cache_entries{kind=\"paste\"} 3",
            "snip_store_cache_entries{kind=\"token\"} 2",
            "snip_store_cache_invalidations_total 9",
            "snip_store_cache_listens_total 1",
            "snip_store_cache_trusted 1",
        ] {
            assert!(text.contains(expected), "{expected} in {text}");
        }
    }
}
