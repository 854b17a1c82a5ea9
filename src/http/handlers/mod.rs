//! The handlers, one module per feature: creating ([`create`]), reading
//! ([`read`], with its [`range`] headers, and the [`files`] of a several-file
//! paste), deleting ([`delete`]), metadata ([`meta`]) and listing
//! ([`list`]) pastes, and the hastebin API's names for them
//! ([`hastebin`]); browser sessions ([`session`]) and "My pastes"
//! ([`my`]); embedding pastes in other sites ([`embed`]); the admin API ([`admin`], [`backup`]); the operator
//! routes ([`ops`]) and the API description they serve ([`openapi`]).
//!
//! Handlers talk to storage only through the [`crate::store::Store`] trait
//! and answer failures as [`super::api_error::ApiError`]; they never look at
//! `Accept` for errors (the pipeline renders them). What they know of the
//! request beyond its own parts (its [`Caller`], its
//! [`Origin`](super::context::Origin)) comes from [`super::context`].

pub mod admin;
pub mod backup;
pub mod create;
pub mod delete;
pub mod embed;
pub mod files;
pub mod hastebin;
pub mod language;
pub mod list;
pub mod login;
pub mod loopback;
pub mod meta;
pub mod my;
pub mod oidc;
pub mod openapi;
pub mod ops;
pub mod program;
pub mod range;
pub mod read;
pub mod session;
pub mod teams;

use super::api_error::ApiError;
use super::context::{AnonymousPolicy, Caller};

/// Refuses callers that may not write: read-only tokens, and anonymous
/// callers unless `anonymous` allows them.
pub fn check_can_write(caller: &Caller, anonymous: AnonymousPolicy) -> Result<(), ApiError> {
    match caller {
        Caller::Tenant {
            read_only: true, ..
        } => Err(ApiError::forbidden("this token is read-only")),
        Caller::Tenant { .. } => Ok(()),
        Caller::Anonymous | Caller::Teamless { .. } if anonymous == AnonymousPolicy::Allowed => {
            Ok(())
        }
        Caller::Teamless { .. } => Err(ApiError::forbidden(
            "you belong to no team on this server, and it takes pastes only from teams",
        )),
        Caller::Anonymous => Err(ApiError::unauthorized(
            "anonymous pastes are disabled on this server; send Authorization: Bearer TOKEN",
        )),
    }
}
