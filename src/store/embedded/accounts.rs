//! Tenants, tokens and browser sessions in the embedded store: the
//! write-through [`Accounts`] and [`AccountStore`] on top of it.
//!
//! Tenants and tokens are few and read on every authenticated request, so they live in
//! memory (loaded at open) and are written through to two keyspaces
//! (`tenants`: name → JSON, `tokens`: hash → JSON). Only one process opens the
//! data dir, so the in-memory copy is authoritative: a revocation or a quota
//! change is visible to the next request, without a restart.
//!
//! Programs (`programs`: tenant name → the module's bytes) are read only
//! when a module is first met, so they stay in their keyspace; what
//! describes one is in its tenant's record, written in the same batch.
//!
//! Sessions (`sessions`: cookie hash → JSON) may be many and are read only by
//! browser requests, so they are read from their keyspace, not kept in memory.
//!
//! A write made for a tenant is checked against what authorised it (its
//! token and session, [`Authority`]) under the read lock that every change
//! here (revocation, tenant delete, sign-out) takes for writing; a commit
//! holds that lock ([`Held`]) from its check until its batch is in, so an
//! authority holds at commit.
//!
//! Every write is refused while the disk is nearly full (`space`).

use std::collections::HashMap;
use std::sync::RwLock;

use async_trait::async_trait;
use bytes::Bytes;
use fjall::{Database, Keyspace, KeyspaceCreateOptions};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::EmbeddedStore;
use super::space::Space;
use crate::core::UnixTime;
use crate::core::paste;
use crate::core::tenant::{
    Authority, ProgramInfo, ProviderGrant, SessionRecord, Tenant, TokenRecord,
};
use crate::store::{AccountStore, StoreError};

/// The in-memory, write-through view of tenants and tokens.
pub struct Accounts {
    db: Database,
    tenants_ks: Keyspace,
    tokens_ks: Keyspace,
    sessions_ks: Keyspace,
    programs_ks: Keyspace,
    /// Checked before every write (`space`).
    space: Space,
    /// Held only for map operations and the one write batch that goes with them.
    state: RwLock<State>,
}

#[derive(Default)]
struct State {
    tenants: HashMap<String, Tenant>,
    tokens: HashMap<[u8; 32], TokenRecord>,
}

fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>, StoreError> {
    serde_json::to_vec(value).map_err(|e| StoreError::Corrupt(e.to_string()))
}

fn load<T: DeserializeOwned>(keyspace: &Keyspace, what: &str) -> Result<Vec<T>, StoreError> {
    keyspace
        .iter()
        .map(|entry| {
            let value = entry.value()?;
            serde_json::from_slice(&value).map_err(|e| StoreError::Corrupt(format!("{what}: {e}")))
        })
        .collect()
}

impl Accounts {
    /// Opens the keyspaces and loads everything into memory; writes are
    /// checked against `space`.
    pub fn open(db: &Database, space: Space) -> Result<Self, StoreError> {
        let tenants_ks = db.keyspace("tenants", KeyspaceCreateOptions::default)?;
        let tokens_ks = db.keyspace("tokens", KeyspaceCreateOptions::default)?;
        let sessions_ks = db.keyspace("sessions", KeyspaceCreateOptions::default)?;
        let programs_ks = db.keyspace("programs", KeyspaceCreateOptions::default)?;
        let mut state = State::default();
        for tenant in load::<Tenant>(&tenants_ks, "tenant")? {
            state.tenants.insert(tenant.name.clone(), tenant);
        }
        for token in load::<TokenRecord>(&tokens_ks, "token")? {
            state.tokens.insert(token.hash, token);
        }
        Ok(Self {
            db: db.clone(),
            tenants_ks,
            tokens_ks,
            sessions_ks,
            programs_ks,
            space,
            state: RwLock::new(state),
        })
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, State> {
        self.state.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, State> {
        self.state.write().unwrap_or_else(|p| p.into_inner())
    }

    pub fn create_tenant(&self, tenant: Tenant) -> Result<(), StoreError> {
        let mut state = self.write();
        if state.tenants.contains_key(&tenant.name) {
            return Err(StoreError::TenantExists);
        }
        self.space.check_change()?;
        self.tenants_ks
            .insert(tenant.name.as_str(), encode(&tenant)?)?;
        state.tenants.insert(tenant.name.clone(), tenant);
        Ok(())
    }

    pub fn update_tenant(&self, tenant: Tenant) -> Result<(), StoreError> {
        let mut state = self.write();
        if !state.tenants.contains_key(&tenant.name) {
            return Err(StoreError::NoSuchTenant);
        }
        self.space.check_change()?;
        self.tenants_ks
            .insert(tenant.name.as_str(), encode(&tenant)?)?;
        state.tenants.insert(tenant.name.clone(), tenant);
        Ok(())
    }

    pub fn tenant(&self, name: &str) -> Option<Tenant> {
        self.read().tenants.get(name).cloned()
    }

    pub fn tenants(&self) -> Vec<Tenant> {
        let mut all: Vec<Tenant> = self.read().tenants.values().cloned().collect();
        all.sort_by(|a, b| a.name.cmp(&b.name));
        all
    }

    /// Runs `reserve` (a new paste's reservation of its owner's quota) only
    /// if `owner` exists and `authority`, if any, still holds for it, under
    /// the lock [`Self::delete_tenant`] takes. So either the reservation
    /// comes first and the delete sees a paste, or the delete does and the
    /// paste is refused: none outlives its owner.
    pub fn while_authorised(
        &self,
        owner: &str,
        authority: Option<&Authority>,
        reserve: impl FnOnce() -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.hold().check(owner, authority)?;
        reserve()
    }

    /// The accounts as they are, held so: no revocation, sign-out or tenant
    /// delete passes until it is dropped. A commit holds it from its check
    /// of each write's [`Authority`] until the write is in, so the check
    /// holds at commit.
    pub fn hold(&self) -> Held<'_> {
        Held {
            accounts: self,
            state: self.read(),
        }
    }

    /// Deletes the tenant and all its tokens in one batch, unless `pastes`
    /// (counted under the lock, see [`Self::while_authorised`]) says it
    /// still owns some.
    pub fn delete_tenant(
        &self,
        name: &str,
        pastes: impl FnOnce() -> u64,
    ) -> Result<bool, StoreError> {
        let mut state = self.write();
        if !state.tenants.contains_key(name) {
            return Ok(false);
        }
        let owned = pastes();
        if owned > 0 {
            return Err(StoreError::TenantNotEmpty(owned));
        }
        self.space.check_change()?;
        let hashes: Vec<[u8; 32]> = state
            .tokens
            .values()
            .filter(|t| t.tenant == name)
            .map(|t| t.hash)
            .collect();
        let mut batch = self.db.batch();
        batch.remove(&self.tenants_ks, name);
        batch.remove(&self.programs_ks, name);
        for hash in &hashes {
            batch.remove(&self.tokens_ks, hash.as_slice());
        }
        batch.commit()?;
        state.tenants.remove(name);
        for hash in hashes {
            state.tokens.remove(&hash);
        }
        Ok(true)
    }

    /// Sets (`Some`) or removes (`None`) a tenant's program, the module and
    /// its tenant's record in one batch; `false` if there was nothing to
    /// remove.
    pub fn set_program(
        &self,
        name: &str,
        program: Option<(ProgramInfo, &[u8])>,
    ) -> Result<bool, StoreError> {
        let mut state = self.write();
        let Some(tenant) = state.tenants.get(name) else {
            return Err(StoreError::NoSuchTenant);
        };
        if program.is_none() && tenant.program.is_none() {
            return Ok(false);
        }
        let mut tenant = tenant.clone();
        tenant.program = program.map(|(info, _)| Box::new(info));
        self.space.check_change()?;
        let mut batch = self.db.batch();
        match program {
            Some((_, module)) => batch.insert(&self.programs_ks, name, module),
            None => batch.remove(&self.programs_ks, name),
        }
        batch.insert(&self.tenants_ks, name, encode(&tenant)?);
        batch.commit()?;
        state.tenants.insert(tenant.name.clone(), tenant);
        Ok(true)
    }

    pub fn program(&self, name: &str) -> Result<Option<Bytes>, StoreError> {
        Ok(self
            .programs_ks
            .get(name)?
            .map(|module| Bytes::copy_from_slice(&module)))
    }

    pub fn create_token(&self, record: TokenRecord) -> Result<(), StoreError> {
        let mut state = self.write();
        if !state.tenants.contains_key(&record.tenant) {
            return Err(StoreError::NoSuchTenant);
        }
        self.space.check_change()?;
        self.tokens_ks
            .insert(record.hash.as_slice(), encode(&record)?)?;
        state.tokens.insert(record.hash, record);
        Ok(())
    }

    pub fn token(&self, hash: &[u8; 32]) -> Option<TokenRecord> {
        self.read().tokens.get(hash).cloned()
    }

    pub fn revoke_token(&self, id: &str) -> Result<bool, StoreError> {
        let mut state = self.write();
        let Some(hash) = state.tokens.values().find(|t| t.id == id).map(|t| t.hash) else {
            return Ok(false);
        };
        self.space.check_change()?;
        self.tokens_ks.remove(hash.as_slice())?;
        state.tokens.remove(&hash);
        Ok(true)
    }

    pub fn tokens(&self, tenant: &str) -> Vec<TokenRecord> {
        let mut all: Vec<TokenRecord> = self
            .read()
            .tokens
            .values()
            .filter(|t| t.tenant == tenant)
            .cloned()
            .collect();
        all.sort_by(|a, b| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)));
        all
    }

    /// Stores a session of a token that exists (a token revoked meanwhile
    /// refuses it, as [`StoreError::NoSuchTenant`]).
    pub fn create_session(&self, record: &SessionRecord) -> Result<(), StoreError> {
        let state = self.write();
        if record
            .token_hash
            .is_some_and(|hash| !state.tokens.contains_key(&hash))
        {
            return Err(StoreError::NoSuchTenant);
        }
        self.space.check_change()?;
        self.sessions_ks
            .insert(record.hash.as_slice(), encode(record)?)?;
        Ok(())
    }

    /// Whether any browser session is stored (the sweeper purges them).
    pub fn has_sessions(&self) -> Result<bool, StoreError> {
        Ok(!self.sessions_ks.is_empty()?)
    }

    pub fn session(&self, hash: &[u8; 32]) -> Result<Option<SessionRecord>, StoreError> {
        let Some(value) = self.sessions_ks.get(hash.as_slice())? else {
            return Ok(None);
        };
        serde_json::from_slice(&value)
            .map(Some)
            .map_err(|e| StoreError::Corrupt(format!("session: {e}")))
    }

    /// Removes expired sessions and those of tokens no longer held, in one batch.
    pub fn purge_sessions(&self, now: UnixTime) -> Result<usize, StoreError> {
        let mut dead = Vec::new();
        {
            let state = self.read();
            for entry in self.sessions_ks.iter() {
                let (key, value) = entry.into_inner()?;
                let alive = serde_json::from_slice::<SessionRecord>(&value).is_ok_and(|s| {
                    !s.is_expired(now)
                        && s.token_hash
                            .is_none_or(|hash| state.tokens.contains_key(&hash))
                });
                if !alive {
                    dead.push(key);
                }
            }
        }
        if dead.is_empty() {
            return Ok(0);
        }
        self.space.check_change()?;
        let mut batch = self.db.batch();
        for key in &dead {
            batch.remove(&self.sessions_ks, key.clone());
        }
        batch.commit()?;
        Ok(dead.len())
    }

    /// Replaces the provider's grant of a stored session (keeping the
    /// tenants it allowed at sign-in) if it was last asked at `asked_at`;
    /// `false` if the session is gone or was checked meanwhile.
    pub fn save_grant(
        &self,
        hash: &[u8; 32],
        grant: &ProviderGrant,
        asked_at: UnixTime,
    ) -> Result<bool, StoreError> {
        let _state = self.write();
        let Some(mut record) = self.session(hash)? else {
            return Ok(false);
        };
        let Some(stored) = record
            .provider
            .as_mut()
            .filter(|g| g.checked_at == asked_at)
        else {
            return Ok(false);
        };
        stored.groups.clone_from(&grant.groups);
        stored.refresh_token.clone_from(&grant.refresh_token);
        stored.checked_at = grant.checked_at;
        self.space.check_change()?;
        self.sessions_ks.insert(hash.as_slice(), encode(&record)?)?;
        Ok(true)
    }

    /// Deletes a session under the lock a commit [`Held`], so a write
    /// checked against the session commits before the sign-out or not at all.
    pub fn delete_session(&self, hash: &[u8; 32]) -> Result<bool, StoreError> {
        let _state = self.write();
        if self.sessions_ks.get(hash.as_slice())?.is_none() {
            return Ok(false);
        }
        self.space.check_change()?;
        self.sessions_ks.remove(hash.as_slice())?;
        Ok(true)
    }
}

/// The accounts held still by a commit ([`Accounts::hold`]).
pub struct Held<'a> {
    accounts: &'a Accounts,
    state: std::sync::RwLockReadGuard<'a, State>,
}

impl Held<'_> {
    /// Refuses ([`StoreError::AuthorityGone`]) a write for `owner` unless
    /// the tenant exists and `authority`, if any, still holds for it.
    pub fn check(&self, owner: &str, authority: Option<&Authority>) -> Result<(), StoreError> {
        if !self.state.tenants.contains_key(owner) {
            return Err(StoreError::AuthorityGone);
        }
        let Some(authority) = authority else {
            return Ok(());
        };
        let session = match &authority.session_hash {
            Some(hash) => self.accounts.session(hash)?,
            None => None,
        };
        let token = self.state.tokens.get(&authority.token_hash);
        if authority.holds(owner, token, session.as_ref(), paste::now()) {
            Ok(())
        } else {
            Err(StoreError::AuthorityGone)
        }
    }
}

/// Each change is written through to fjall, noted if fjall is poisoned,
/// and durable as configured before it is acknowledged.
#[async_trait]
impl AccountStore for EmbeddedStore {
    async fn create_tenant(&self, tenant: Tenant) -> Result<(), StoreError> {
        self.noted(self.inner.accounts.create_tenant(tenant))?;
        self.durable().await
    }

    async fn update_tenant(&self, tenant: Tenant) -> Result<(), StoreError> {
        self.noted(self.inner.accounts.update_tenant(tenant))?;
        self.durable().await
    }

    async fn tenant(&self, name: &str) -> Result<Option<Tenant>, StoreError> {
        Ok(self.inner.accounts.tenant(name))
    }

    async fn tenants(&self) -> Result<Vec<Tenant>, StoreError> {
        Ok(self.inner.accounts.tenants())
    }

    async fn delete_tenant(&self, name: &str) -> Result<bool, StoreError> {
        let deleted = self.noted(
            self.inner
                .accounts
                .delete_tenant(name, || self.inner.owner_usage(name).pastes),
        )?;
        self.durable().await?;
        Ok(deleted)
    }

    async fn set_program(
        &self,
        tenant: &str,
        info: ProgramInfo,
        module: Bytes,
    ) -> Result<(), StoreError> {
        self.noted(
            self.inner
                .accounts
                .set_program(tenant, Some((info, &module))),
        )?;
        self.durable().await
    }

    async fn clear_program(&self, tenant: &str) -> Result<bool, StoreError> {
        let cleared = match self.inner.accounts.set_program(tenant, None) {
            Err(StoreError::NoSuchTenant) => Ok(false),
            other => self.noted(other),
        }?;
        self.durable().await?;
        Ok(cleared)
    }

    async fn program(&self, tenant: &str) -> Result<Option<Bytes>, StoreError> {
        self.inner.accounts.program(tenant)
    }

    async fn create_token(&self, record: TokenRecord) -> Result<(), StoreError> {
        self.noted(self.inner.accounts.create_token(record))?;
        self.durable().await
    }

    async fn token(&self, hash: &[u8; 32]) -> Result<Option<TokenRecord>, StoreError> {
        Ok(self.inner.accounts.token(hash))
    }

    async fn revoke_token(&self, id: &str) -> Result<bool, StoreError> {
        let revoked = self.noted(self.inner.accounts.revoke_token(id))?;
        self.durable().await?;
        Ok(revoked)
    }

    async fn tokens(&self, tenant: &str) -> Result<Vec<TokenRecord>, StoreError> {
        Ok(self.inner.accounts.tokens(tenant))
    }

    async fn create_session(&self, record: SessionRecord) -> Result<(), StoreError> {
        self.noted(self.inner.accounts.create_session(&record))?;
        // A stored session is work for the sweeper (`purge_sessions`).
        self.inner.wrote();
        self.durable().await
    }

    async fn session(&self, hash: &[u8; 32]) -> Result<Option<SessionRecord>, StoreError> {
        self.inner.accounts.session(hash)
    }

    async fn save_grant(
        &self,
        hash: &[u8; 32],
        grant: &ProviderGrant,
        asked_at: UnixTime,
    ) -> Result<bool, StoreError> {
        let saved = self.noted(self.inner.accounts.save_grant(hash, grant, asked_at))?;
        self.durable().await?;
        Ok(saved)
    }

    async fn delete_session(&self, hash: &[u8; 32]) -> Result<bool, StoreError> {
        let deleted = self.noted(self.inner.accounts.delete_session(hash))?;
        self.durable().await?;
        Ok(deleted)
    }

    async fn purge_sessions(&self, now: UnixTime) -> Result<usize, StoreError> {
        let purged = self.noted(self.inner.accounts.purge_sessions(now))?;
        if purged > 0 {
            self.durable().await?;
        }
        Ok(purged)
    }
}
