//! snip: a simple, fast, standalone, self-hosted pastebin.
//!
//! # Layout
//!
//! Modules are listed from the top of the import graph down; each imports
//! only modules below it.
//!
//! - [`command_line`]: flags and environment variables parsed by clap
//!   ([`command_line::serve`], [`command_line::tls`]; completions and the man page
//!   from the same definitions, [`command_line::generate`]), the TOML file of
//!   `serve` filling in what they leave ([`command_line::serve_file`]), all mapped onto the settings
//!   each layer owns: [`server::ServerConfig`], [`tls::TlsConfig`],
//!   [`logging::LogFormat`], the `http` limits.
//! - [`client`]: the `snip put/get/delete/list/shorten` client, `snip admin`, and
//!   `snip backup/restore/migrate` with the store flags they share with
//!   `serve` ([`client::store_args`]).
//! - [`server`]: lifecycle: bind, accept with timeouts, graceful shutdown;
//!   beside it what happens to a connection before HTTP: the PROXY protocol
//!   header ([`server::proxy_protocol`]), the per-client connection limit
//!   ([`server::conn_limit`]) and the header-read deadline, one
//!   timer per connection ([`server::header_timer`]); and the background
//!   task that deletes expired pastes ([`server::sweeper`]).
//! - [`http`]: the API ([`http::make_app`], served by [`server::serve`]) in three
//!   stages: the request pipeline ([`http::pipeline`]: the hot routes' shortcut
//!   past axum's router, origin, authentication, response finishing), the
//!   handlers, one module per feature ([`http::handlers`]), and rendering
//!   ([`http::render`]: pages, assets, negotiation, error answers); all three
//!   read the request's context ([`http::context`]: origin, caller), and
//!   every failure is one [`http::api_error::ApiError`] with an
//!   [`core::ErrorCode`].
//! - [`metrics`]: the Prometheus registry ([`metrics::Metrics`]) with
//!   lock-free recording, and [`metrics::MeteredStore`], the decorator that
//!   times every store operation and counts paste events.
//! - [`store`]: the store's traits, one per concern ([`store::PasteStore`],
//!   [`store::AccountStore`], [`store::Maintenance`]; [`store::Store`] is
//!   their union), [`store::open`] choosing a backend from `--store`, the
//!   embedded fjall backend ([`store::embedded`]) with group commit for
//!   `--sync`, the PostgreSQL backend for several instances
//!   ([`store::postgres`]), and backup/restore ([`store::transfer`]) in the
//!   `.snipdump` format ([`store::dump`]).
//! - [`programs`]: tenant programs, WebAssembly modules compiled once and
//!   run in a fresh instance on every create, under fuel and memory limits
//!   (`docs/programs.md`).
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
//! - [`config_file`]: a TOML file read into a typed struct, with errors
//!   naming the file, the line and the key: the server's `--config` file
//!   and the client's `config.toml`.
//!
//! `main.rs` only parses the command line, installs the global allocator
//! and dispatches.

pub mod client;
pub mod command_line;
pub mod config_file;
pub mod core;
pub mod http;
pub mod idle;
pub mod logging;
pub mod metrics;
pub mod programs;
pub mod server;
pub mod store;
pub mod tls;
