//! The server's lifecycle: open the store, accept connections with timeouts,
//! run the sweeper, and shut down gracefully.
//!
//! The accept loop drives hyper directly (rather than `axum::serve`) because it
//! needs hyper's header-read timeout, which bounds how long a slow or idle
//! client can hold a connection.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use axum::Router;
use axum::response::Response;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::{TcpListener, TcpStream};

use crate::config::ServeArgs;
use crate::core::paste::hash_token;
use crate::header_timer::HeaderTimer;
use crate::http::{
    App, AppState, AuthConfig, Connection, Limit, Limits, ProxyConfig, RateLimits, make_app,
    openapi, ops,
};
use crate::metrics::Metrics;
use crate::proxy_protocol;
use crate::store::{self, MeteredStore, Store};
use crate::sweeper;
use crate::tls::Tls;
use crate::tls::conn::TlsConnections;

/// How long in-flight requests get to finish after a shutdown signal.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// Per-connection settings.
#[derive(Debug, Clone)]
pub struct ConnOptions {
    /// Time allowed to send request headers, and to start the next request on a kept-alive connection.
    pub header_timeout: Duration,
    /// With `Some`, every connection must start with a PROXY protocol header
    /// from one of these proxies (also given `header_timeout` to arrive).
    pub proxy_protocol: Option<Arc<ProxyConfig>>,
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

/// Runs `snip serve` until SIGINT or SIGTERM.
pub async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    // Checked here rather than with clap's `requires`, which would also fire
    // for SNIP_PROXY_PROTOCOL=false.
    if args.proxy_protocol && args.trusted_proxy.is_empty() {
        anyhow::bail!(
            "--proxy-protocol needs --trusted-proxy: the proxies allowed to send PROXY headers"
        );
    }
    raise_open_files_limit();
    let listener = TcpListener::bind(args.listen)
        .await
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    let bound = listener.local_addr()?;
    // instant-acme's HTTP client asks rustls for the process-wide provider.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let tls = Tls::start(&args.tls, &args.data_dir).await?;
    let redirect = match args.tls.redirect_http {
        Some(addr) => Some(
            TcpListener::bind(addr)
                .await
                .with_context(|| format!("cannot listen on {addr} (--redirect-http)"))?,
        ),
        None => None,
    };
    let mut metrics = Metrics::new(openapi::route_templates());
    if let Some(tls) = &tls {
        metrics = metrics.with_tls(tls.stats());
    }
    let metrics = Arc::new(metrics);
    let (location, options) = args.store_location();
    let backend = store::open(&location, &options)
        .await
        .with_context(|| format!("cannot open the store {}", location.describe()))?;
    let store: Arc<dyn Store> = Arc::new(MeteredStore::new(backend, metrics.clone()));
    let public_url = args.public_url(bound);
    if args.public_url.is_none() && bound.ip().is_unspecified() {
        tracing::warn!(
            "listening on all interfaces without --public-url: printed URLs will say {public_url}"
        );
    }
    let state = Arc::new(AppState {
        store: store.clone(),
        limits: Limits {
            max_paste_bytes: args.max_paste_size,
            default_ttl: args.default_ttl,
            max_ttl: args.max_ttl,
            id_length: args.id_length,
            body_timeout: args.body_timeout,
        },
        public_url,
        url_follows_proxy: args.public_url.is_none(),
        auth: AuthConfig {
            anonymous: args.anonymous,
            proxy: args.proxy_config(),
            admin_token_hash: args.admin_token.as_ref().map(|t| hash_token(&t.0)),
        },
        rate_limits: RateLimits::new(
            args.ip_rate.0.map(|rate| Limit::new(rate, args.ip_burst)),
            args.tenant_rate
                .0
                .map(|rate| Limit::new(rate, args.tenant_burst)),
        )
        .shared_through(store.clone()),
        metrics,
        metrics_on_main: args.metrics_listen.is_none(),
    });
    let (stop_metrics, metrics_stopped) = tokio::sync::watch::channel(false);
    let metrics_server = match args.metrics_listen {
        Some(addr) => {
            Some(serve_metrics(addr, state.clone(), args.header_timeout, metrics_stopped).await?)
        }
        None => None,
    };
    let forget = tokio::spawn(forget_idle_clients(state.clone()));
    let (stop_sweeper, sweeper_stopped) = tokio::sync::watch::channel(false);
    let sweeper = tokio::spawn(sweeper::run(
        store.clone(),
        args.sweep_interval,
        sweeper_stopped,
    ));
    let scheme = if tls.is_some() { "https" } else { "http" };
    tracing::info!(
        store = %location.describe(),
        durability = ?args.durability(),
        "snip listening on {scheme}://{bound}"
    );
    let options = ConnOptions {
        header_timeout: args.header_timeout,
        proxy_protocol: args.proxy_protocol.then(|| Arc::new(args.proxy_config())),
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
                proxy_protocol: None,
            },
            None,
            async move {
                let _ = stopped.changed().await;
            },
        ))
    });
    let tls = tls.map(|tls| TlsConnections::new(&tls, args.header_timeout));
    run(listener, make_app(state), options, tls, shutdown_signal()).await;
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
    store.close().await.context("closing the store")?;
    tracing::info!("snip stopped");
    Ok(())
}

/// Binds `--metrics-listen` and serves `GET /metrics` there until `stop` turns true.
async fn serve_metrics(
    addr: SocketAddr,
    state: Arc<AppState>,
    header_timeout: Duration,
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
        proxy_protocol: None,
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
    fn connection(self, peer: SocketAddr) -> Self::Connection;
}

/// The API: hot routes, then the router ([`App`]).
impl Serve for App {
    type Connection = Connection;

    fn connection(self, peer: SocketAddr) -> Connection {
        App::connection(self, peer)
    }
}

/// A plain router (metrics, HTTPS redirects): each request carries its
/// connection's peer as `ConnectInfo`, as axum's own server would leave it.
impl Serve for Router {
    type Connection = Routed;

    fn connection(self, peer: SocketAddr) -> Routed {
        Routed { router: self, peer }
    }
}

/// A [`Router`] serving one connection.
#[derive(Clone)]
pub struct Routed {
    router: Router,
    peer: SocketAddr,
}

impl hyper::service::Service<hyper::Request<Incoming>> for Routed {
    type Response = Response;
    type Error = Infallible;
    type Future = <Router as tower::Service<axum::extract::Request>>::Future;

    fn call(&self, request: hyper::Request<Incoming>) -> Self::Future {
        crate::http::hot::route(&self.router, self.peer, request)
    }
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
        .keep_alive(true);
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(conn) => conn,
                Err(e) => {
                    // Usually EMFILE: back off instead of spinning.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
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
                None => (stream, peer),
                Some(proxies) => {
                    match accept_proxied(stream, peer, proxies, options.header_timeout).await {
                        Some(accepted) => accepted,
                        None => return,
                    }
                }
            };
            let service = app.connection(peer);
            if let Some(tls) = &tls {
                // The PROXY header (if any) came first, in plain text; TLS follows.
                tls.spawn(stream, peer, service, http, watcher);
                return;
            }
            let conn = watcher.watch(http.serve_connection(TokioIo::new(stream), service));
            if let Err(e) = conn.await {
                tracing::debug!(error = %e, %peer, "connection ended with an error");
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

/// Reads the PROXY protocol header of a new connection: the stream and the
/// client it names, or `None` (the connection is dropped, which closes it).
async fn accept_proxied(
    mut stream: TcpStream,
    peer: SocketAddr,
    proxies: &ProxyConfig,
    timeout: Duration,
) -> Option<(TcpStream, SocketAddr)> {
    match proxy_protocol::read_header(&mut stream, peer, proxies, timeout).await {
        Ok(client) => Some((stream, client)),
        Err(e) => {
            tracing::warn!(%peer, "refused a connection: {e}");
            None
        }
    }
}

/// Drops per-IP rate buckets of clients not seen lately.
async fn forget_idle_clients(state: Arc<AppState>) {
    let mut tick = tokio::time::interval(Duration::from_secs(60));
    loop {
        tick.tick().await;
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
