//! The handlers, one module per feature: creating ([`create`]), reading
//! ([`read`], with its [`range`] headers), deleting ([`delete`]), metadata ([`meta`]) and listing
//! ([`list`]) pastes; browser sessions ([`session`]) and "My pastes"
//! ([`my`]); the admin API ([`admin`], [`backup`]); the operator
//! routes ([`ops`]) and the API description they serve ([`openapi`]).
//!
//! Handlers talk to storage only through the [`crate::store::Store`] trait
//! and answer failures as [`super::api_error::ApiError`]; they never look at
//! `Accept` for errors (the pipeline renders them).

pub mod admin;
pub mod backup;
pub mod create;
pub mod delete;
pub mod list;
pub mod meta;
pub mod my;
pub mod openapi;
pub mod ops;
pub mod range;
pub mod read;
pub mod session;
