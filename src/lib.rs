//! snip: a simple, fast, standalone, self-hosted pastebin.
//!
//! # Layout
//!
//! - [`core`]: no I/O. Paste IDs with their check character ([`core::id`]), the
//!   paste model, TTLs and the content-type policy ([`core::paste`]), and the
//!   end-to-end encryption envelope ([`core::envelope`], `docs/envelope.md`).
//! - [`store`]: the [`store::Store`] trait every backend implements,
//!   [`store::open`] choosing one from `--store`, the embedded fjall backend
//!   ([`store::embedded`]) with group commit for `--sync`, the PostgreSQL
//!   backend for several instances ([`store::postgres`]), and backup/restore
//!   ([`store::transfer`]) in the `.snipdump` format ([`store::dump`]).
//! - [`http`]: the axum router behind a shortcut for the three hot routes
//!   ([`http::make_app`], [`http::hot`]; served by [`server::run`]), one module per feature
//!   (create, read, delete, meta), HTML pages, and the single place where errors
//!   become statuses ([`http::errors`]).
//! - [`logging`]: the `tracing` subscriber and the hand-formatted request
//!   line, both written through one buffered sink by a background thread.
//! - [`metrics`]: the Prometheus registry ([`metrics::Metrics`]) with
//!   lock-free recording; [`store::MeteredStore`] reports every store
//!   operation and paste event into it.
//! - [`server`]: lifecycle: bind, accept with timeouts, graceful shutdown;
//!   [`header_timer`]: the header-read deadline, one timer per connection.
//! - [`proxy_protocol`]: the PROXY protocol header a TCP proxy may send first.
//! - [`sweeper`]: deletes expired pastes in the background.
//! - [`tls`]: native HTTPS: certificates from files (reloaded) or ACME,
//!   HTTP/2 by ALPN, the plain-HTTP redirect.
//! - [`cli`]: the `snip put/get/delete` client, and `snip backup/restore/migrate`.
//! - [`config`]: flags, environment variables and the TOML file, parsed by clap.
//!
//! `main.rs` only parses the command line and dispatches; [`allocator`] is
//! the global allocator it installs (mimalloc).

pub mod allocator;
pub mod cli;
pub mod config;
pub mod core;
pub mod header_timer;
pub mod http;
pub mod logging;
pub mod metrics;
pub mod proxy_protocol;
pub mod server;
pub mod store;
pub mod sweeper;
pub mod tls;
