//! Helpers the test areas share: servers and helper processes, requests to
//! them, and the fixtures several areas build on.

pub mod cli;
pub mod data;
pub mod disk;
pub mod frozen_proxy;
pub mod http;
pub mod oidc_provider;
pub mod ports;
pub mod postgres;
pub mod server;
pub mod slow;
pub mod tampering_proxy;
pub mod tenants;
pub mod tls;
pub mod wait;

pub use http::{Fetch, client};
pub use server::Server;
