//! The server's lifecycle: open the store, accept connections with timeouts,
//! run the sweeper, and shut down gracefully.
//!
//! The accept loop drives hyper directly (rather than `axum::serve`) because it
//! needs hyper's header-read timeout, which bounds how long a slow or idle
//! client can hold a connection.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use axum::Router;
use axum::extract::ConnectInfo;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tower::ServiceExt;

use crate::config::ServeArgs;
use crate::core::paste::hash_token;
use crate::http::{AppState, AuthConfig, Limit, Limits, RateLimits, make_app};
use crate::store::{EmbeddedOptions, EmbeddedStore, Store};
use crate::sweeper;
use crate::tls::Tls;
use crate::tls::conn::TlsConnections;

/// How long in-flight requests get to finish after a shutdown signal.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// Per-connection settings.
#[derive(Debug, Clone, Copy)]
pub struct ConnOptions {
    /// Time allowed to send request headers, and to start the next request on a kept-alive connection.
    pub header_timeout: Duration,
}

/// Runs `snip serve` until SIGINT or SIGTERM.
pub async fn serve(args: ServeArgs) -> anyhow::Result<()> {
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
    let store: Arc<dyn Store> = Arc::new(
        EmbeddedStore::open(
            &args.data_dir,
            EmbeddedOptions {
                durability: args.durability(),
                max_bytes: args.max_storage,
                cache_bytes: args.cache_size,
            },
        )
        .with_context(|| format!("cannot open the store in {}", args.data_dir.display()))?,
    );
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
        auth: AuthConfig {
            anonymous: args.anonymous,
            trusted_proxies: args.trusted_proxy.clone(),
            admin_token_hash: args.admin_token.as_ref().map(|t| hash_token(&t.0)),
        },
        rate_limits: RateLimits::new(
            args.ip_rate.0.map(|rate| Limit::new(rate, args.ip_burst)),
            args.tenant_rate
                .0
                .map(|rate| Limit::new(rate, args.tenant_burst)),
        ),
    });
    let forget = tokio::spawn(forget_idle_clients(state.clone()));
    let (stop_sweeper, sweeper_stopped) = tokio::sync::watch::channel(false);
    let sweeper = tokio::spawn(sweeper::run(
        store.clone(),
        args.sweep_interval,
        sweeper_stopped,
    ));
    let scheme = if tls.is_some() { "https" } else { "http" };
    tracing::info!(
        data_dir = %args.data_dir.display(),
        durability = ?args.durability(),
        "snip listening on {scheme}://{bound}"
    );
    let options = ConnOptions {
        header_timeout: args.header_timeout,
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
            options,
            None,
            async move {
                let _ = stopped.changed().await;
            },
        ))
    });
    let tls = tls.map(|tls| TlsConnections::new(&tls, args.header_timeout));
    run(listener, make_app(state), options, tls, shutdown_signal()).await;
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

/// Serves `app` on `listener` (over TLS when `tls` is given) until `shutdown`
/// resolves, then lets in-flight requests finish (up to a grace period).
pub async fn run(
    listener: TcpListener,
    app: Router,
    options: ConnOptions,
    tls: Option<TlsConnections>,
    shutdown: impl Future<Output = ()>,
) {
    let graceful = GracefulShutdown::new();
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(options.header_timeout)
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
        let service = TowerToHyperService::new(app.clone().map_request(
            move |mut req: axum::extract::Request<_>| {
                req.extensions_mut().insert(ConnectInfo::<SocketAddr>(peer));
                req
            },
        ));
        if let Some(tls) = &tls {
            tls.spawn(stream, peer, service, http.clone(), graceful.watcher());
            continue;
        }
        let conn = http.serve_connection(TokioIo::new(stream), service);
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
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
