//! The accounts' side of a store: [`AccountStore`], tenants, their programs
//! and tokens, and the browser sessions signed in with a token.

use async_trait::async_trait;
use bytes::Bytes;

use super::StoreError;
use crate::core::UnixTime;
use crate::core::tenant::{ProgramInfo, ProviderGrant, SessionRecord, Tenant, TokenRecord};

/// Tenants, tokens and browser sessions.
#[async_trait]
pub trait AccountStore: Send + Sync + 'static {
    /// Creates a tenant; [`StoreError::TenantExists`] if the name is taken.
    /// Its `program` is not set here ([`Self::set_program`] sets it).
    async fn create_tenant(&self, tenant: Tenant) -> Result<(), StoreError>;

    /// Replaces a tenant's settings; [`StoreError::NoSuchTenant`] if it does not exist.
    async fn update_tenant(&self, tenant: Tenant) -> Result<(), StoreError>;

    /// Reads a tenant.
    async fn tenant(&self, name: &str) -> Result<Option<Tenant>, StoreError>;

    /// All tenants, by name.
    async fn tenants(&self) -> Result<Vec<Tenant>, StoreError>;

    /// Deletes a tenant and its tokens; refuses ([`StoreError::TenantNotEmpty`])
    /// while it owns pastes. `false` if there was none.
    async fn delete_tenant(&self, name: &str) -> Result<bool, StoreError>;

    /// Sets or replaces a tenant's program: the module, and `info` in the
    /// tenant's record, in one write, seen by the next request on every
    /// instance; [`StoreError::NoSuchTenant`] if it does not exist.
    async fn set_program(
        &self,
        tenant: &str,
        info: ProgramInfo,
        module: Bytes,
    ) -> Result<(), StoreError>;

    /// Removes a tenant's program; `false` if it had none (or no such tenant).
    async fn clear_program(&self, tenant: &str) -> Result<bool, StoreError>;

    /// A tenant's program module, if it has one.
    async fn program(&self, tenant: &str) -> Result<Option<Bytes>, StoreError>;

    /// Stores a new token of an existing tenant.
    async fn create_token(&self, record: TokenRecord) -> Result<(), StoreError>;

    /// Finds a token by the hash of its secret (the per-request authentication lookup).
    async fn token(&self, hash: &[u8; 32]) -> Result<Option<TokenRecord>, StoreError>;

    /// Revokes a token by its public ID; `false` if there was none.
    async fn revoke_token(&self, id: &str) -> Result<bool, StoreError>;

    /// The tokens of a tenant.
    async fn tokens(&self, tenant: &str) -> Result<Vec<TokenRecord>, StoreError>;

    /// Stores a new browser session.
    async fn create_session(&self, record: SessionRecord) -> Result<(), StoreError>;

    /// Finds a session by the hash of its cookie value (expired ones included:
    /// the caller checks expiry and its token).
    async fn session(&self, hash: &[u8; 32]) -> Result<Option<SessionRecord>, StoreError>;

    /// Replaces what the identity provider said of a session's person (its
    /// groups, refresh token and the time it was asked; the tenants it
    /// allowed at sign-in stay), if the stored time it was asked is still
    /// `asked_at`: of instances checking one session at once, one does.
    /// `false` if the session is gone or was checked meanwhile.
    async fn save_grant(
        &self,
        hash: &[u8; 32],
        grant: &ProviderGrant,
        asked_at: UnixTime,
    ) -> Result<bool, StoreError>;

    /// Deletes a session (sign-out); `false` if there was none.
    async fn delete_session(&self, hash: &[u8; 32]) -> Result<bool, StoreError>;

    /// Deletes the sessions expired at `now` and those whose token is gone
    /// (they are refused anyway; this gives the space back); how many.
    async fn purge_sessions(&self, now: UnixTime) -> Result<usize, StoreError>;
}
