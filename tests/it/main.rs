//! The integration tests: the real `snip` binary, started on ephemeral ports
//! with its own data dir, driven over HTTP, TLS, raw TCP and its command line.
//!
//! One module per area; `support` holds what they share. Every test runs on
//! the embedded store, or with `SNIP_TEST_STORE=postgres` on PostgreSQL.
// Helpers outside #[test] functions panic on failure too, as tests should.
#![allow(clippy::unwrap_used, clippy::panic)]

mod support;

mod acme;
mod api;
mod backup;
mod bodies;
mod bounded;
mod burn;
mod cli;
mod cli_admin;
mod cli_encrypt;
mod cli_hostile;
mod cli_scripting;
mod compat;
mod compression;
mod config_file;
mod corruption;
mod deb;
mod disk_full;
mod durability;
mod embeds;
mod expiry;
mod fast_path;
mod files;
mod identity;
mod languages;
mod layering;
mod limits;
mod login;
mod login_loopback;
mod multi_instance;
mod nginx;
mod observability;
mod oidc;
mod oidc_forged;
mod oidc_teams;
mod openapi;
mod outage;
mod people;
mod pg_cache;
mod pg_creates;
mod pg_damage;
mod pg_stall;
mod programs;
mod proof;
mod proxy;
mod proxy_protocol;
mod refused_start;
mod search;
mod sending;
mod sessions;
mod tenants;
mod tls;
mod vectors;
mod web;
