//! snip: a simple, fast, standalone, self-hosted pastebin.
//!
//! # Layout
//!
//! Modules are listed from the top of the import graph down; each imports
//! only modules below it.
//!
//! - [`config`]: flags, environment variables and the TOML file, parsed by
//!   clap ([`config::serve`], [`config::tls`]; completions and the man page
//!   from the same definitions, [`config::generate`]) and mapped onto the settings
//!   each layer owns: [`server::ServerConfig`], [`tls::TlsConfig`],
//!   [`logging::LogFormat`], the `http` limits.
//! - [`cli`]: the `snip put/get/delete/list/shorten` client, `snip admin`, and
//!   `snip backup/restore/migrate` with the store flags they share with
//!   `serve` ([`cli::store_args`]).
//! - [`server`]: lifecycle: bind, accept with timeouts, graceful shutdown;
//!   beside it what happens to a connection before HTTP: the PROXY protocol
//!   header ([`server::proxy_protocol`]), the per-client connection limit
//!   ([`server::conn_limit`]) and the header-read deadline, one
//!   timer per connection ([`server::header_timer`]); and the background
//!   task that deletes expired pastes ([`server::sweeper`]).
//! - [`http`]: the API ([`http::make_app`], served by [`server::serve`]) in three
//!   stages: the request pipeline ([`http::pipeline`]: the hot routes' shortcut
//!   past axum's router, origin, authentication, rate limits, response
//!   finishing), the handlers, one module per feature ([`http::handlers`]), and
//!   rendering ([`http::render`]: pages, assets, negotiation, error answers);
//!   every failure is one [`http::errors::ApiError`].
//! - [`store`]: the [`store::Store`] trait every backend implements,
//!   [`store::open`] choosing one from `--store`, the embedded fjall backend
//!   ([`store::embedded`]) with group commit for `--sync`, the PostgreSQL
//!   backend for several instances ([`store::postgres`]), backup/restore
//!   ([`store::transfer`]) in the `.snipdump` format ([`store::dump`]), and
//!   [`store::MeteredStore`], which reports every operation into `metrics`.
//! - [`metrics`]: the Prometheus registry ([`metrics::Metrics`]) with
//!   lock-free recording.
//! - [`tls`]: native HTTPS: certificates from files (reloaded) or ACME,
//!   HTTP/2 by ALPN, the plain-HTTP redirect.
//! - [`logging`]: the `tracing` subscriber and the hand-formatted request
//!   line, both written through one buffered sink by a background thread.
//! - [`core`]: no I/O. Paste IDs with their check character ([`core::id`]), the
//!   paste model, TTLs and the content-type policy ([`core::paste`]), the
//!   end-to-end encryption envelope ([`core::envelope`], `docs/envelope.md`),
//!   the JSON bodies of the API ([`core::api`]), and the parsers of sizes and
//!   durations ([`core::units`]).
//! - [`idle`]: the [`idle::Doorbell`] (and [`idle::Activity`], "did it
//!   happen since I looked") on which background tasks (the per-IP
//!   cleanup, PostgreSQL's listener pings, the embedded store's sweeper)
//!   wait for requests instead of waking on a timer.
//!
//! `main.rs` only parses the command line, installs the global allocator
//! and dispatches.

pub mod cli;
pub mod config;
pub mod core;
pub mod http;
pub mod idle;
pub mod logging;
pub mod metrics;
pub mod server;
pub mod store;
pub mod tls;
