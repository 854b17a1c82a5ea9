//! The server's lifecycle: open the store, accept connections with timeouts,
//! run the sweeper, and shut down gracefully.
//!
//! The accept loop drives hyper directly (rather than `axum::serve`) because it
//! needs hyper's header-read timeout, which bounds how long a slow or idle
//! client can hold a connection. What happens to a connection before HTTP
//! lives beside it: the PROXY protocol header ([`proxy_protocol`]) and the
//! header-read deadline ([`header_timer`]); [`sweeper`] is the background
//! task that deletes expired pastes, and [`netcat`] the optional port that
//! takes pastes from `nc`.

pub mod conn_limit;
pub mod header_timer;
pub mod netcat;
pub mod proxy_protocol;
pub mod send_timeout;
pub mod sweeper;

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use axum::Router;
use axum::http::HeaderValue;
use axum::response::Response;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::{TcpListener, TcpStream};

use crate::http::{
    App, AppState, AuthConfig, Connection, InflightBytes, Limit, Limits, Peer, ProxyConfig,
    RateLimits, Readiness, Site,
    handlers::{openapi, ops},
    make_app,
    search_gate::SearchGate,
};
use crate::metrics::{MeteredStore, Metrics};
use crate::programs::{ProgramSettings, Programs};
use crate::store::{self, Location, OpenOptions, Store};
use crate::tls::conn::TlsConnections;
use crate::tls::{Tls, TlsConfig};
use conn_limit::ConnLimit;
use header_timer::HeaderTimer;
use send_timeout::SendTimeout;

/// How long in-flight requests get to finish after a shutdown signal.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// What `snip serve` runs with; `config` maps the flags onto it.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Address and port to listen on (port 0 picks a free port).
    pub listen: SocketAddr,
    /// The store.
    pub store: Location,
    /// How the store is opened.
    pub store_options: OpenOptions,
    /// The base of printed URLs as configured; `None`: derived from the
    /// bound address, or from what a trusted proxy passes on.
    pub public_url: Option<String>,
    /// What a paste may be.
    pub limits: Limits,
    /// Who may do what, and whose forwarding headers are believed.
    pub auth: AuthConfig,
    /// The request rate of anonymous clients, per IP (`None`: unlimited).
    pub ip_limit: Option<Limit>,
    /// The IPv6 prefix length whose addresses share one anonymous bucket
    /// (and one count of connections).
    pub ipv6_prefix: u8,
    /// Most connections one client may hold open (`None`: unlimited).
    pub max_connections_per_ip: Option<usize>,
    /// The request rate of tenants without one of their own (`None`: unlimited).
    pub tenant_limit: Option<Limit>,
    /// Whether every connection starts with a PROXY protocol header from a
    /// trusted proxy (`auth.proxy`).
    pub proxy_protocol: bool,
    /// Time allowed to send request headers, and to start the next request on a kept-alive connection.
    pub header_timeout: Duration,
    /// Time a connection may wait to send anything before it is closed.
    pub send_timeout: Duration,
    /// How often expired pastes are deleted.
    pub sweep_interval: Duration,
    /// The `Strict-Transport-Security` max-age of HTTPS answers (`None`: not sent).
    pub hsts: Option<Duration>,
    /// A separate address for `GET /metrics`.
    pub metrics_listen: Option<SocketAddr>,
    /// Whether the main listener answers `GET /metrics` too.
    pub metrics_public: bool,
    /// Whether the hot routes skip the router (off: `--no-fast-path`).
    pub fast_path: bool,
    /// Tenant programs' default limits and concurrency.
    pub programs: ProgramSettings,
    /// Most searches run at once; more wait for one to finish.
    pub search_concurrency: usize,
    /// HTTPS, or `None` for plain HTTP.
    pub tls: Option<TlsConfig>,
    /// An address for plain HTTP that redirects to the HTTPS public URL.
    pub redirect_http: Option<SocketAddr>,
    /// An address where whatever a client sends is stored as a paste
    /// ([`netcat`]).
    pub netcat_listen: Option<SocketAddr>,
    /// The instance's name and link previews.
    pub site: Site,
}

impl ServerConfig {
    /// The base of printed URLs: the configured one, or derived from the bound
    /// address (`https://` with TLS, and the first ACME domain if there is one).
    pub fn public_url(&self, bound: SocketAddr) -> String {
        if let Some(url) = &self.public_url {
            return url.trim_end_matches('/').to_owned();
        }
        let mut addr = bound;
        if addr.ip().is_unspecified() {
            addr.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
        }
        let acme_domain = self.tls.as_ref().and_then(TlsConfig::acme_domain);
        match (self.tls.is_some(), acme_domain) {
            (false, _) => format!("http://{addr}"),
            (true, Some(domain)) if bound.port() == 443 => format!("https://{domain}"),
            (true, Some(domain)) => format!("https://{domain}:{}", bound.port()),
            (true, None) => format!("https://{addr}"),
        }
    }
}

/// Per-connection settings.
#[derive(Debug, Clone)]
pub struct ConnOptions {
    /// Time allowed to send request headers, and to start the next request on a kept-alive connection.
    pub header_timeout: Duration,
    /// Time a connection may wait to send anything before it is closed.
    pub send_timeout: Duration,
    /// With `Some`, every connection must start with a PROXY protocol header
    /// from one of these proxies (also given `header_timeout` to arrive).
    pub proxy_protocol: Option<Arc<ProxyConfig>>,
    /// The per-client connection limit, if any.
    pub conn_limit: Option<Arc<ConnLimit>>,
}

/// Raises the soft limit on open files to the hard limit (as Go's runtime
/// does for every program): each connection and each body-log segment is a
/// file descriptor, and the usual soft limit (1,024, systemd's default for
/// services) would cap both long before the machine does.
fn raise_open_files_limit() {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    let below_hard = match (limit.current, limit.maximum) {
        (Some(current), Some(maximum)) => current < maximum,
        (Some(_), None) => true,
        (None, _) => false,
    };
    if !below_hard {
        return;
    }
    let raised = Rlimit {
        current: limit.maximum,
        maximum: limit.maximum,
    };
    match setrlimit(Resource::Nofile, raised) {
        Ok(()) => {
            tracing::debug!(from = ?limit.current, to = ?limit.maximum, "raised the open files limit")
        }
        Err(e) => tracing::warn!(error = %e, "cannot raise the open files limit"),
    }
}

/// Runs `snip serve` until SIGINT or SIGTERM, or until the store breaks
/// ([`store::Maintenance::broken`]): then it stops the same way and returns the error,
/// so that snip exits non-zero and its supervisor starts it again.
pub async fn serve(config: ServerConfig) -> anyhow::Result<()> {
    raise_open_files_limit();
    let listener = TcpListener::bind(config.listen)
        .await
        .with_context(|| format!("cannot listen on {}", config.listen))?;
    let bound = listener.local_addr()?;
    // instant-acme's HTTP client asks rustls for the process-wide provider.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let tls = match &config.tls {
        Some(tls) => Some(Tls::start(tls).await?),
        None => None,
    };
    let redirect = bind_extra(config.redirect_http, "--redirect-http").await?;
    let netcat = bind_extra(config.netcat_listen, "--netcat-listen").await?;
    let mut metrics = Metrics::new(openapi::route_templates());
    if let Some(tls) = &tls {
        metrics = metrics.with_tls(tls.stats());
    }
    let location = &config.store;
    // Logged: a slow start is almost all opening (fjall replays its journal).
    let opening = std::time::Instant::now();
    let backend = store::open(location, &config.store_options)
        .await
        .with_context(|| format!("cannot open the store {}", location.describe()))?;
    let opened_in = opening.elapsed();
    if backend.cache_stats().is_some() {
        metrics = metrics.with_store_cache();
    }
    let metrics = Arc::new(metrics);
    let store: Arc<dyn Store> = Arc::new(MeteredStore::new(backend, metrics.clone()));
    let public_url = config.public_url(bound);
    if config.public_url.is_none() && bound.ip().is_unspecified() {
        tracing::warn!(
            "listening on all interfaces without --public-url: printed URLs will say {public_url}"
        );
    }
    let state = Arc::new(AppState {
        store: store.clone(),
        limits: config.limits.clone(),
        public_url,
        url_follows_proxy: config.public_url.is_none(),
        auth: config.auth.clone(),
        rate_limits: RateLimits::new(config.ip_limit, config.tenant_limit)
            .with_ipv6_prefix(config.ipv6_prefix)
            .shared_through(store.clone()),
        metrics,
        metrics_on_main: config.metrics_public,
        readiness: Readiness::default(),
        inflight: Arc::new(InflightBytes::new(
            config.limits.max_inflight_bytes,
            config.limits.max_inflight_bytes_per_ip,
            config.ipv6_prefix,
        )),
        outbound: Arc::new(InflightBytes::new(
            config.limits.max_response_bytes,
            config.limits.max_response_bytes_per_ip,
            config.ipv6_prefix,
        )),
        hsts: tls.as_ref().and(config.hsts).and_then(hsts_header),
        oidc: match &config.auth.oidc {
            Some(settings) => Some(
                crate::http::oidc::Oidc::new(settings.clone())
                    .context("cannot set up sign-in through the identity provider")?,
            ),
            None => None,
        },
        programs: Arc::new(Programs::new(config.programs)),
        site: config.site.clone(),
        searches: SearchGate::new(config.search_concurrency),
    });
    let (stop_metrics, metrics_stopped) = tokio::sync::watch::channel(false);
    let metrics_server = match config.metrics_listen {
        Some(addr) => Some(
            serve_metrics(
                addr,
                state.clone(),
                config.header_timeout,
                config.send_timeout,
                metrics_stopped,
            )
            .await?,
        ),
        None => None,
    };
    let forget = tokio::spawn(forget_idle_clients(state.clone()));
    let (stop_sweeper, sweeper_stopped) = tokio::sync::watch::channel(false);
    let sweeper = tokio::spawn(sweeper::run(
        store.clone(),
        config.sweep_interval,
        sweeper_stopped,
    ));
    let scheme = if tls.is_some() { "https" } else { "http" };
    tracing::info!(
        store = %location.describe(),
        store_opened_in_ms = opened_in.as_millis(),
        writes_acknowledged = location.describe_durability(config.store_options.durability),
        "snip listening on {scheme}://{bound}"
    );
    let options = ConnOptions {
        header_timeout: config.header_timeout,
        send_timeout: config.send_timeout,
        proxy_protocol: config
            .proxy_protocol
            .then(|| Arc::new(config.auth.proxy.clone())),
        conn_limit: conn_limit(&config),
    };
    let redirect = redirect.map(|listener| {
        let target = state.public_url.clone();
        if let Ok(addr) = listener.local_addr() {
            tracing::info!("redirecting plain HTTP on http://{addr} to {target}");
        }
        // Stopped by the sweeper's signal, once the main listener has drained.
        let mut stopped = stop_sweeper.subscribe();
        tokio::spawn(run(
            listener,
            crate::tls::redirect::app(&target),
            // Redirects are answered to anyone, never behind a PROXY header.
            ConnOptions {
                header_timeout: options.header_timeout,
                send_timeout: options.send_timeout,
                proxy_protocol: None,
                conn_limit: options.conn_limit.clone(),
            },
            None,
            async move {
                let _ = stopped.changed().await;
            },
        ))
    });
    let netcat = netcat.map(|listener| {
        if let Ok(addr) = listener.local_addr() {
            tracing::info!("taking pastes from netcat on {addr}");
        }
        // Stopped with the redirects, once the main listener has drained.
        let mut stopped = stop_sweeper.subscribe();
        tokio::spawn(netcat::run(
            listener,
            crate::http::routes::make_router(state.clone()),
            options.conn_limit.clone(),
            async move {
                let _ = stopped.changed().await;
            },
        ))
    });
    let tls = tls.map(|tls| TlsConnections::new(&tls, config.header_timeout));
    let (broke, broken) = tokio::sync::oneshot::channel();
    let stop = {
        let store = store.clone();
        async move {
            tokio::select! {
                () = shutdown_signal() => {}
                e = store.broken() => {
                    tracing::error!(error = %e, "the store is broken; snip stops so that its supervisor restarts it");
                    let _ = broke.send(e);
                }
            }
        }
    };
    run(
        listener,
        make_app(state, config.fast_path),
        options,
        tls,
        stop,
    )
    .await;
    let _ = stop_metrics.send(true);
    if let Some(server) = metrics_server {
        let _ = server.await;
    }
    forget.abort();
    let _ = stop_sweeper.send(true);
    let _ = sweeper.await;
    if let Some(redirect) = redirect {
        let _ = redirect.await;
    }
    if let Some(netcat) = netcat {
        let _ = netcat.await;
    }
    if let Ok(e) = broken.await {
        // Closing writes nothing a restart needs: it replays the journal.
        let _ = store.close().await;
        return Err(anyhow::Error::new(e).context("the store broke while serving"));
    }
    store.close().await.context("closing the store")?;
    tracing::info!("snip stopped");
    Ok(())
}

/// Binds the listener an optional `flag` asks for at `addr`, if it does.
async fn bind_extra(addr: Option<SocketAddr>, flag: &str) -> anyhow::Result<Option<TcpListener>> {
    let Some(addr) = addr else {
        return Ok(None);
    };
    let listener = TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on {addr} ({flag})"))?;
    Ok(Some(listener))
}

/// Binds `--metrics-listen` and serves `GET /metrics` there until `stop` turns true.
async fn serve_metrics(
    addr: SocketAddr,
    state: Arc<AppState>,
    header_timeout: Duration,
    send_timeout: Duration,
    mut stop: tokio::sync::watch::Receiver<bool>,
) -> anyhow::Result<tokio::task::JoinHandle<()>> {
    let listener = TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on {addr} for metrics"))?;
    tracing::info!("metrics on http://{}/metrics", listener.local_addr()?);
    let app = Router::new()
        .route("/metrics", axum::routing::get(ops::render_metrics))
        .with_state(state);
    // The metrics listener is for scrapers on the operator's network: no PROXY protocol.
    let options = ConnOptions {
        header_timeout,
        send_timeout,
        proxy_protocol: None,
        conn_limit: None,
    };
    let stopped = async move {
        let _ = stop.changed().await;
    };
    Ok(tokio::spawn(run(listener, app, options, None, stopped)))
}

/// What a listener serves: a service for each connection, made from its peer.
pub trait Serve: Clone + Send + 'static {
    /// The service of one connection, called by hyper for each request.
    type Connection: hyper::service::Service<
            hyper::Request<Incoming>,
            Response = Response,
            Error = Infallible,
            Future: Send + 'static,
        > + Clone
        + Send
        + 'static;

    /// The service of the connection from `peer`.
    fn connection(self, peer: Peer) -> Self::Connection;
}

/// The API: hot routes, then the router ([`App`]).
impl Serve for App {
    type Connection = Connection;

    fn connection(self, peer: Peer) -> Connection {
        App::connection(self, peer)
    }
}

/// A plain router (metrics, HTTPS redirects): each request carries its
/// connection's [`Peer`].
impl Serve for Router {
    type Connection = Routed;

    fn connection(self, peer: Peer) -> Routed {
        Routed { router: self, peer }
    }
}

/// A [`Router`] serving one connection.
#[derive(Clone)]
pub struct Routed {
    router: Router,
    peer: Peer,
}

impl hyper::service::Service<hyper::Request<Incoming>> for Routed {
    type Response = Response;
    type Error = Infallible;
    type Future = <Router as tower::Service<axum::extract::Request>>::Future;

    fn call(&self, request: hyper::Request<Incoming>) -> Self::Future {
        crate::http::pipeline::hot::route(&self.router, self.peer, request)
    }
}

/// The `Strict-Transport-Security` value for `max_age`.
fn hsts_header(max_age: Duration) -> Option<HeaderValue> {
    HeaderValue::from_str(&format!("max-age={}", max_age.as_secs())).ok()
}

/// Serves `app` (the API, or a router of its own) on `listener` (over TLS
/// when `tls` is given) until `shutdown` resolves, then lets in-flight
/// requests finish (up to a grace period).
pub async fn run<A: Serve>(
    listener: TcpListener,
    app: A,
    options: ConnOptions,
    tls: Option<TlsConnections>,
    shutdown: impl Future<Output = ()>,
) {
    let tls = tls.map(Arc::new);
    let graceful = GracefulShutdown::new();
    let mut http = http1::Builder::new();
    http.header_read_timeout(options.header_timeout)
        .max_buf_size(crate::http::outbound::CONNECTION_BUFFER)
        .keep_alive(true);
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = accept(&listener) => accepted,
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        // Each connection gets its own timer (see `header_timer`).
        let mut http = http.clone();
        http.timer(HeaderTimer::default());
        let watcher = graceful.watcher();
        let options = options.clone();
        let tls = tls.clone();
        let app = app.clone();
        tokio::spawn(async move {
            let (stream, peer) = match &options.proxy_protocol {
                None => (stream, Peer::direct(peer)),
                Some(proxies) => {
                    match accept_proxied(stream, peer, proxies, options.header_timeout).await {
                        Some(accepted) => accepted,
                        None => return,
                    }
                }
            };
            let slot = match &options.conn_limit {
                None => None,
                Some(limit) => match limit.admit(peer.addr.ip()) {
                    Some(slot) => Some(slot),
                    None => {
                        tracing::debug!(peer = %peer.addr, "refused a connection: too many open from this client");
                        return;
                    }
                },
            };
            let service = app.connection(peer);
            let stream = SendTimeout::new(stream, peer.addr, options.send_timeout);
            if let Some(tls) = &tls {
                // The PROXY header (if any) came first, in plain text; TLS follows.
                tls.spawn(stream, peer.addr, service, http, watcher, slot);
                return;
            }
            let conn = watcher.watch(http.serve_connection(TokioIo::new(stream), service));
            if let Err(e) = conn.await {
                tracing::debug!(error = %e, peer = %peer.addr, "connection ended with an error");
            }
        });
    }
    drop(listener);
    tracing::info!("shutting down: waiting for in-flight requests");
    if tokio::time::timeout(SHUTDOWN_GRACE, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("some connections did not finish within {SHUTDOWN_GRACE:?}");
    }
}

/// The next connection on `listener`. A failed accept (usually EMFILE) is
/// logged and tried again after a short back-off instead of spinning.
async fn accept(listener: &TcpListener) -> (TcpStream, SocketAddr) {
    loop {
        match listener.accept().await {
            Ok(conn) => return conn,
            Err(e) => {
                tracing::warn!(error = %e, "accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

/// The per-client connection limit of the main listener: trusted proxies
/// are exempt unless the PROXY protocol names each connection's client.
fn conn_limit(config: &ServerConfig) -> Option<Arc<ConnLimit>> {
    let max = config.max_connections_per_ip?;
    let exempt = if config.proxy_protocol {
        Vec::new()
    } else {
        config.auth.proxy.trusted.clone()
    };
    Some(Arc::new(ConnLimit::new(max, config.ipv6_prefix, exempt)))
}

/// Reads the PROXY protocol header of a new connection: the stream and the
/// client it names, or `None` (the connection is dropped, which closes it).
async fn accept_proxied(
    mut stream: TcpStream,
    peer: SocketAddr,
    proxies: &ProxyConfig,
    timeout: Duration,
) -> Option<(TcpStream, Peer)> {
    match proxy_protocol::read_header(&mut stream, peer, proxies, timeout).await {
        Ok(client) => Some((stream, client)),
        Err(e) => {
            tracing::warn!(%peer, "refused a connection: {e}");
            None
        }
    }
}

/// Drops per-IP rate buckets of clients not seen lately, a minute after
/// there are any, and waits without a timer while there are none.
async fn forget_idle_clients(state: Arc<AppState>) {
    loop {
        state.rate_limits.first_bucket().await;
        tokio::time::sleep(Duration::from_secs(60)).await;
        state.rate_limits.forget_idle();
    }
}

/// Resolves on SIGINT (Ctrl-C) or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
}
