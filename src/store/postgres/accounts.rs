//! Tenants, tokens and browser sessions in PostgreSQL.
//!
//! Tokens and tenants are cached by each instance (`coherent_cache`); the statements
//! that revoke a token, or change or delete a tenant, notify every instance
//! in the same transaction (`notify`), so a revocation or a limit change
//! made through any instance applies to the next request on all. Sessions
//! are not cached: signing out deletes the row, and the next request through
//! any instance finds it gone.

use async_trait::async_trait;
use bytes::Bytes;
use deadpool_postgres::ClientWrapper;
use tokio_postgres::Row;
use tokio_postgres::error::SqlState;
use tokio_postgres::types::ToSql;

use super::notify::{self, Invalidation};
use super::rows::{to_i64, to_u64};
use super::{PostgresStore, db_error};
use crate::core::UnixTime;
use crate::core::tenant::{
    Person, ProgramInfo, ProviderGrant, Rate, RefreshToken, SessionRecord, Tenant, TokenRecord,
};
use crate::store::{AccountStore, StoreError};

const TENANT_COLUMNS: &str = "name, created_at, max_bytes, max_paste_bytes, rate_count, rate_per_secs, burst, \
     program_fuel, program_memory, program_sha256, program_size, program_set_at, oidc_group";
const TOKEN_COLUMNS: &str = "id, hash, tenant, read_only, created_at, expires_at";

fn tenant_from_row(row: &Row) -> Tenant {
    let count: Option<i32> = row.get(4);
    let per_secs: Option<i32> = row.get(5);
    let rate = match (count, per_secs) {
        (Some(count), Some(per_secs)) => Some(Rate {
            count: u32::try_from(count).unwrap_or(1),
            per_secs: u32::try_from(per_secs).unwrap_or(1),
        }),
        _ => None,
    };
    Tenant {
        name: row.get(0),
        created_at: to_u64(row.get(1)),
        max_bytes: row.get::<_, Option<i64>>(2).map(to_u64),
        max_paste_bytes: row.get::<_, Option<i64>>(3).map(to_u64),
        rate,
        burst: row
            .get::<_, Option<i32>>(6)
            .map(|b| u32::try_from(b).unwrap_or(1)),
        program_fuel: row.get::<_, Option<i64>>(7).map(to_u64),
        program_memory: row.get::<_, Option<i64>>(8).map(to_u64),
        program: program_from_row(row),
        group: row.get(12),
    }
}

/// The program columns of a tenant row, if it has a program.
fn program_from_row(row: &Row) -> Option<Box<ProgramInfo>> {
    let sha256: Vec<u8> = row.get::<_, Option<Vec<u8>>>(9)?;
    Some(Box::new(ProgramInfo {
        sha256: sha256.try_into().ok()?,
        size: to_u64(row.get::<_, Option<i64>>(10)?),
        set_at: to_u64(row.get::<_, Option<i64>>(11)?),
    }))
}

fn token_from_row(row: &Row) -> Result<TokenRecord, StoreError> {
    let hash: Vec<u8> = row.get(1);
    Ok(TokenRecord {
        id: row.get(0),
        hash: hash
            .try_into()
            .map_err(|_| StoreError::Corrupt("a token hash is not 32 bytes".into()))?,
        tenant: row.get(2),
        read_only: row.get(3),
        created_at: to_u64(row.get(4)),
        expires_at: row.get::<_, Option<i64>>(5).map(to_u64),
    })
}

/// The tenant's settings, in the order of the statement parameters `$2…$8`.
fn settings(tenant: &Tenant) -> [Option<i64>; 7] {
    [
        tenant.max_bytes.map(to_i64),
        tenant.max_paste_bytes.map(to_i64),
        tenant.rate.map(|r| i64::from(r.count)),
        tenant.rate.map(|r| i64::from(r.per_secs)),
        tenant.burst.map(i64::from),
        tenant.program_fuel.map(to_i64),
        tenant.program_memory.map(to_i64),
    ]
}

/// The parameters both tenant statements start with: `$1` the name, `$2…$8`
/// the `settings` (rate and burst as `bigint`; the statements cast them to `int`).
fn tenant_params<'a>(
    tenant: &'a Tenant,
    settings: &'a [Option<i64>; 7],
) -> Vec<&'a (dyn ToSql + Sync)> {
    let mut params: Vec<&(dyn ToSql + Sync)> = vec![&tenant.name];
    params.extend(settings.iter().map(|s| s as &(dyn ToSql + Sync)));
    params
}

/// The outcome of an insert whose row refers to another: a foreign-key
/// violation means that row is gone (a token's tenant deleted, a session's
/// token revoked, meanwhile), answered as [`StoreError::NoSuchTenant`].
fn inserted(result: Result<u64, tokio_postgres::Error>) -> Result<(), StoreError> {
    match result {
        Ok(_) => Ok(()),
        Err(e) if e.code() == Some(&SqlState::FOREIGN_KEY_VIOLATION) => {
            Err(StoreError::NoSuchTenant)
        }
        Err(e) => Err(db_error(e)),
    }
}

/// Reads a tenant from the database (a cache miss of [`AccountStore::tenant`]).
async fn select_tenant(client: &ClientWrapper, name: &str) -> Result<Option<Tenant>, StoreError> {
    let stmt = client
        .prepare_cached(&format!(
            "SELECT {TENANT_COLUMNS} FROM tenants WHERE name = $1"
        ))
        .await
        .map_err(db_error)?;
    let row = client.query_opt(&stmt, &[&name]).await.map_err(db_error)?;
    Ok(row.as_ref().map(tenant_from_row))
}

/// Reads a token from the database (a cache miss of [`AccountStore::token`]).
async fn select_token(
    client: &ClientWrapper,
    hash: &[u8; 32],
) -> Result<Option<TokenRecord>, StoreError> {
    let stmt = client
        .prepare_cached(&format!(
            "SELECT {TOKEN_COLUMNS} FROM tokens WHERE hash = $1"
        ))
        .await
        .map_err(db_error)?;
    let row = client
        .query_opt(&stmt, &[&hash.as_slice()])
        .await
        .map_err(db_error)?;
    row.as_ref().map(token_from_row).transpose()
}

/// Every operation runs under the store's deadline (`deadline`); a change
/// that other instances may have cached notifies them in its own statement
/// or transaction, and this instance evicts it before it answers.
#[async_trait]
impl AccountStore for PostgresStore {
    async fn create_tenant(&self, tenant: Tenant) -> Result<(), StoreError> {
        self.within(async {
            let client = self.client().await?;
            let settings = settings(&tenant);
            let created_at = to_i64(tenant.created_at);
            let mut params = tenant_params(&tenant, &settings);
            params.push(&created_at);
            params.push(&tenant.group);
            let inserted = client
                .execute(
                    "INSERT INTO tenants (name, created_at, max_bytes, max_paste_bytes, rate_count,
                         rate_per_secs, burst, program_fuel, program_memory, oidc_group)
                     VALUES ($1, $9, $2, $3, $4::bigint::int, $5::bigint::int, $6::bigint::int, $7, $8,
                         $10)
                     ON CONFLICT (name) DO NOTHING",
                    &params,
                )
                .await
                .map_err(db_error)?;
            if inserted == 0 {
                return Err(StoreError::TenantExists);
            }
            Ok(())
        })
        .await
    }

    /// Notifies every instance when the change commits.
    async fn update_tenant(&self, tenant: Tenant) -> Result<(), StoreError> {
        self.within(async {
            let client = self.client().await?;
            let settings = settings(&tenant);
            let mut params = tenant_params(&tenant, &settings);
            params.push(&self.channel);
            params.push(&tenant.group);
            let updated = client
                .execute(
                    &format!(
                        "UPDATE tenants SET max_bytes = $2, max_paste_bytes = $3, rate_count = $4::bigint::int,
                            rate_per_secs = $5::bigint::int, burst = $6::bigint::int,
                            program_fuel = $7, program_memory = $8, oidc_group = $10
                         WHERE name = $1
                         RETURNING pg_notify($9, '{}' || name)",
                        notify::TENANT
                    ),
                    &params,
                )
                .await
                .map_err(db_error)?;
            if updated == 0 {
                return Err(StoreError::NoSuchTenant);
            }
            Ok(())
        })
        .await?;
        self.cache.invalidate(&Invalidation::Tenant(tenant.name));
        Ok(())
    }

    /// From the cache, else read and cached.
    async fn tenant(&self, name: &str) -> Result<Option<Tenant>, StoreError> {
        self.within(self.read_through(
            self.cache.tenant(name),
            || self.cache.tenant_ticket(name),
            async { select_tenant(&*self.client().await?, name).await },
            |ticket, tenant| self.cache.fill_tenant(ticket, tenant),
        ))
        .await
    }

    async fn tenants(&self) -> Result<Vec<Tenant>, StoreError> {
        self.within(async {
            let client = self.client().await?;
            let rows = client
                .query(
                    &format!("SELECT {TENANT_COLUMNS} FROM tenants ORDER BY name"),
                    &[],
                )
                .await
                .map_err(db_error)?;
            Ok(rows.iter().map(tenant_from_row).collect())
        })
        .await
    }

    /// Its tokens go with it (`ON DELETE CASCADE`); notifies every instance
    /// when that commits.
    async fn delete_tenant(&self, name: &str) -> Result<bool, StoreError> {
        let deleted = self
            .within(async {
                let mut client = self.client().await?;
                let tx = client.transaction().await.map_err(db_error)?;
                // Lock the tenant row first, so a concurrent create_token waits for the verdict.
                let exists = tx
                    .query_opt("SELECT 1 FROM tenants WHERE name = $1 FOR UPDATE", &[&name])
                    .await
                    .map_err(db_error)?
                    .is_some();
                if !exists {
                    return Ok(false);
                }
                let pastes: i64 = tx
                    .query_one("SELECT count(*) FROM pastes WHERE owner = $1", &[&name])
                    .await
                    .map_err(db_error)?
                    .get(0);
                if pastes > 0 {
                    return Err(StoreError::TenantNotEmpty(to_u64(pastes)));
                }
                tx.execute("DELETE FROM tenants WHERE name = $1", &[&name])
                    .await
                    .map_err(db_error)?;
                tx.execute("DELETE FROM owner_usage WHERE owner = $1", &[&name])
                    .await
                    .map_err(db_error)?;
                // A tenant re-created under this name starts with a full rate bucket.
                tx.execute(
                    "DELETE FROM rate_buckets WHERE key = 'tenant:' || $1",
                    &[&name],
                )
                .await
                .map_err(db_error)?;
                tx.execute(
                    &format!(
                        "SELECT pg_notify($1, '{}' || $2::text)",
                        notify::TENANT_GONE
                    ),
                    &[&self.channel, &name],
                )
                .await
                .map_err(db_error)?;
                tx.commit().await.map_err(db_error)?;
                Ok(true)
            })
            .await?;
        if deleted {
            self.cache
                .invalidate(&Invalidation::TenantGone(name.to_owned()));
        }
        Ok(deleted)
    }

    /// One statement sets the module and what describes it, and notifies
    /// every instance, whose next create of this tenant compiles it.
    async fn set_program(
        &self,
        tenant: &str,
        info: ProgramInfo,
        module: Bytes,
    ) -> Result<(), StoreError> {
        self.within(async {
            let client = self.client().await?;
            let updated = client
                .execute(
                    &format!(
                        "UPDATE tenants SET program = $2, program_sha256 = $3, program_size = $4,
                            program_set_at = $5
                         WHERE name = $1
                         RETURNING pg_notify($6, '{}' || name)",
                        notify::TENANT
                    ),
                    &[
                        &tenant,
                        &module.as_ref(),
                        &info.sha256.as_slice(),
                        &to_i64(info.size),
                        &to_i64(info.set_at),
                        &self.channel,
                    ],
                )
                .await
                .map_err(db_error)?;
            if updated == 0 {
                return Err(StoreError::NoSuchTenant);
            }
            Ok(())
        })
        .await?;
        self.cache
            .invalidate(&Invalidation::Tenant(tenant.to_owned()));
        Ok(())
    }

    /// Notifies every instance, like [`Self::set_program`].
    async fn clear_program(&self, tenant: &str) -> Result<bool, StoreError> {
        let cleared = self
            .within(async {
                let client = self.client().await?;
                let updated = client
                    .execute(
                        &format!(
                            "UPDATE tenants SET program = NULL, program_sha256 = NULL,
                                program_size = NULL, program_set_at = NULL
                             WHERE name = $1 AND program IS NOT NULL
                             RETURNING pg_notify($2, '{}' || name)",
                            notify::TENANT
                        ),
                        &[&tenant, &self.channel],
                    )
                    .await
                    .map_err(db_error)?;
                Ok(updated > 0)
            })
            .await?;
        if cleared {
            self.cache
                .invalidate(&Invalidation::Tenant(tenant.to_owned()));
        }
        Ok(cleared)
    }

    async fn program(&self, tenant: &str) -> Result<Option<Bytes>, StoreError> {
        self.within(async {
            let client = self.client().await?;
            let row = client
                .query_opt("SELECT program FROM tenants WHERE name = $1", &[&tenant])
                .await
                .map_err(db_error)?;
            Ok(row
                .and_then(|row| row.get::<_, Option<Vec<u8>>>(0))
                .map(Bytes::from))
        })
        .await
    }

    async fn create_token(&self, record: TokenRecord) -> Result<(), StoreError> {
        self.within(async {
            let client = self.client().await?;
            let result = client
                .execute(
                    &format!(
                        "INSERT INTO tokens ({TOKEN_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)"
                    ),
                    &[
                        &record.id,
                        &record.hash.as_slice(),
                        &record.tenant,
                        &record.read_only,
                        &to_i64(record.created_at),
                        &record.expires_at.map(to_i64),
                    ],
                )
                .await;
            inserted(result)
        })
        .await
    }

    /// From the cache, else read and cached.
    async fn token(&self, hash: &[u8; 32]) -> Result<Option<TokenRecord>, StoreError> {
        self.within(self.read_through(
            self.cache.token(hash),
            || self.cache.token_ticket(hash),
            async { select_token(&*self.client().await?, hash).await },
            |ticket, record| self.cache.fill_token(ticket, record),
        ))
        .await
    }

    /// Notifies every instance when the delete commits.
    async fn revoke_token(&self, id: &str) -> Result<bool, StoreError> {
        let revoked: Option<[u8; 32]> = self
            .within(async {
                let client = self.client().await?;
                let row = client
                    .query_opt(
                        &format!(
                            "DELETE FROM tokens WHERE id = $1
                             RETURNING hash, pg_notify($2, '{}' || encode(hash, 'hex'))",
                            notify::TOKEN
                        ),
                        &[&id, &self.channel],
                    )
                    .await
                    .map_err(db_error)?;
                row.map(|row| {
                    row.get::<_, Vec<u8>>(0)
                        .try_into()
                        .map_err(|_| StoreError::Corrupt("a token hash is not 32 bytes".into()))
                })
                .transpose()
            })
            .await?;
        if let Some(hash) = revoked {
            self.cache.invalidate(&Invalidation::Token(hash));
        }
        Ok(revoked.is_some())
    }

    async fn tokens(&self, tenant: &str) -> Result<Vec<TokenRecord>, StoreError> {
        self.within(async {
            let client = self.client().await?;
            let rows = client
                .query(
                    &format!(
                        "SELECT {TOKEN_COLUMNS} FROM tokens WHERE tenant = $1 ORDER BY created_at, id"
                    ),
                    &[&tenant],
                )
                .await
                .map_err(db_error)?;
            rows.iter().map(token_from_row).collect()
        })
        .await
    }

    /// A token revoked meanwhile makes the reference fail, and the session
    /// is refused as if its token were unknown.
    async fn create_session(&self, record: SessionRecord) -> Result<(), StoreError> {
        self.within(async {
            let client = self.client().await?;
            let grant = record.provider.as_ref();
            let result = client
                .execute(
                    "INSERT INTO sessions (hash, token_hash, created_at, expires_at, subject, person_name,
                                           groups, tenants, refresh_token, checked_at)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                    &[
                        &record.hash.as_slice(),
                        &record.token_hash.as_ref().map(|h| h.as_slice()),
                        &to_i64(record.created_at),
                        &to_i64(record.expires_at),
                        &record.person.as_ref().map(|p| p.subject.as_str()),
                        &record.person.as_ref().map(|p| p.name.as_str()),
                        &grant.map(|g| &g.groups),
                        &grant.map(|g| &g.tenants),
                        &grant.and_then(|g| g.refresh_token.as_ref()).map(|t| t.0.as_str()),
                        &grant.map(|g| to_i64(g.checked_at)),
                    ],
                )
                .await;
            inserted(result)
        })
        .await
    }

    async fn session(&self, hash: &[u8; 32]) -> Result<Option<SessionRecord>, StoreError> {
        self.within(async {
            let client = self.client().await?;
            let stmt = client
                .prepare_cached(
                    "SELECT hash, token_hash, created_at, expires_at, subject, person_name,
                            groups, tenants, refresh_token, checked_at
                     FROM sessions WHERE hash = $1",
                )
                .await
                .map_err(db_error)?;
            let Some(row) = client
                .query_opt(&stmt, &[&hash.as_slice()])
                .await
                .map_err(db_error)?
            else {
                return Ok(None);
            };
            let bytes = |bytes: Vec<u8>| -> Result<[u8; 32], StoreError> {
                bytes
                    .try_into()
                    .map_err(|_| StoreError::Corrupt("a session hash is not 32 bytes".into()))
            };
            let provider = match (row.get::<_, Option<Vec<String>>>(6), row.get(7)) {
                (Some(groups), Some(tenants)) => Some(ProviderGrant {
                    groups,
                    tenants,
                    refresh_token: row.get::<_, Option<String>>(8).map(RefreshToken),
                    checked_at: to_u64(row.get::<_, Option<i64>>(9).unwrap_or(0)),
                }),
                _ => None,
            };
            Ok(Some(SessionRecord {
                hash: bytes(row.get(0))?,
                token_hash: row.get::<_, Option<Vec<u8>>>(1).map(bytes).transpose()?,
                created_at: to_u64(row.get(2)),
                expires_at: to_u64(row.get(3)),
                person: match (row.get::<_, Option<String>>(4), row.get(5)) {
                    (Some(subject), Some(name)) => Some(Person { subject, name }),
                    _ => None,
                },
                provider,
            }))
        })
        .await
    }

    async fn save_grant(
        &self,
        hash: &[u8; 32],
        grant: &ProviderGrant,
        asked_at: UnixTime,
    ) -> Result<bool, StoreError> {
        self.within(async {
            let client = self.client().await?;
            let updated = client
                .execute(
                    "UPDATE sessions SET groups = $2, refresh_token = $3, checked_at = $4
                     WHERE hash = $1 AND checked_at = $5",
                    &[
                        &hash.as_slice(),
                        &grant.groups,
                        &grant.refresh_token.as_ref().map(|t| t.0.as_str()),
                        &to_i64(grant.checked_at),
                        &to_i64(asked_at),
                    ],
                )
                .await
                .map_err(db_error)?;
            Ok(updated > 0)
        })
        .await
    }

    async fn delete_session(&self, hash: &[u8; 32]) -> Result<bool, StoreError> {
        self.within(async {
            let client = self.client().await?;
            let deleted = client
                .execute("DELETE FROM sessions WHERE hash = $1", &[&hash.as_slice()])
                .await
                .map_err(db_error)?;
            Ok(deleted > 0)
        })
        .await
    }

    /// Expired sessions; those of revoked tokens went with them.
    async fn purge_sessions(&self, now: UnixTime) -> Result<usize, StoreError> {
        self.within(async {
            let client = self.client().await?;
            let deleted = client
                .execute(
                    "DELETE FROM sessions WHERE expires_at <= $1",
                    &[&to_i64(now)],
                )
                .await
                .map_err(db_error)?;
            Ok(usize::try_from(deleted).unwrap_or(usize::MAX))
        })
        .await
    }
}
