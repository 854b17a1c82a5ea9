//! Creates without an owner, combined: the creates that arrive while a
//! group is being inserted wait for the next one (`store::combiner`), and
//! a group is one multi-row `INSERT … SELECT FROM unnest(…)` in autocommit,
//! so it costs one round trip and one commit (one WAL flush) whatever its
//! size.
//!
//! Every guarantee of a single create holds for each: `ON CONFLICT (id) DO
//! NOTHING RETURNING id` says which IDs were new, and a create whose ID is
//! not returned is [`StoreError::IdTaken`] (two creates of one ID in one
//! group included: the later is refused before the statement); an outcome
//! is sent only once the statement, and so its commit, has returned.
//!
//! Creates with an owner are not batched: each checks its tenant (`FOR
//! SHARE`) and takes its quota in a transaction of its own, and one refusal
//! must not roll back the others' rows.

use std::collections::HashSet;
use std::sync::Arc;

use deadpool_postgres::Pool;

use super::deadline::{Lease, within};
use super::rows::{files_column, key_check_columns, to_i64, visibility_text};
use super::{Totals, db_error, pool_error};
use crate::core::PasteMeta;
use crate::store::codec::Stored;
use crate::store::combiner::{Commit, Outcome};
use crate::store::{BackendError, StoreError};

/// The insert of a group: the columns of `pastes` but the owner, each
/// parameter an array with one element per paste.
const INSERT: &str = "INSERT INTO pastes (id, created_at, expires_at, burn, encrypted, lang, name,
        content_type, size, delete_token_hash, visibility, redirect, body,
        proof_verifier, proof_iterations, proof_salt, body_encoding, files)
     SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::boolean[],
        $5::boolean[], $6::text[], $7::text[], $8::text[], $9::bigint[], $10::bytea[],
        $11::text[], $12::text[], $13::bytea[], $14::bytea[], $15::integer[], $16::bytea[],
        $17::text[], $18::text[])
     ON CONFLICT (id) DO NOTHING
     RETURNING id";

/// A create waiting for its group, with its body as it is to be stored:
/// its bytes are reserved in [`Totals`].
pub struct Pending {
    pub meta: PasteMeta,
    pub body: Stored,
}

/// Inserts groups of [`Pending`] creates (the combiner's [`Commit`]).
pub struct Inserter {
    pub pool: Pool,
    pub totals: Arc<Totals>,
    /// The deadline of a group's insert (`deadline`).
    pub timeout: std::time::Duration,
}

impl Commit<Pending> for Inserter {
    /// Runs on the combiner's blocking thread, which waits here for the
    /// round trip; counts the stored pastes and gives back the bytes of the others.
    fn commit(&self, group: Vec<Pending>) -> Vec<Outcome> {
        let outcomes = tokio::runtime::Handle::current().block_on(self.insert(&group));
        for (pending, outcome) in group.iter().zip(&outcomes) {
            match outcome {
                Ok(()) => self.totals.created(),
                Err(_) => self.totals.release(pending.meta.size),
            }
        }
        outcomes
    }

    fn abandon(&self, pending: Pending) {
        self.totals.release(pending.meta.size);
    }
}

impl Inserter {
    /// One outcome per create, in order.
    async fn insert(&self, group: &[Pending]) -> Vec<Outcome> {
        let mut seen = HashSet::with_capacity(group.len());
        let first: Vec<bool> = group
            .iter()
            .map(|p| seen.insert(p.meta.id.as_str()))
            .collect();
        let unique: Vec<&Pending> = group
            .iter()
            .zip(&first)
            .filter_map(|(p, &first)| first.then_some(p))
            .collect();
        let stored = match within(self.timeout, self.insert_unique(&unique)).await {
            Ok(stored) => stored,
            Err(e) => {
                let all = group.iter().map(|_| Err(copy(&e))).collect();
                return all;
            }
        };
        group
            .iter()
            .zip(first)
            .map(|(p, first)| {
                if first && stored.contains(&p.meta.id) {
                    Ok(())
                } else {
                    Err(StoreError::IdTaken)
                }
            })
            .collect()
    }

    /// Inserts pastes of distinct IDs; the IDs that were new.
    async fn insert_unique(&self, group: &[&Pending]) -> Result<HashSet<String>, StoreError> {
        let columns = Columns::of(group);
        let client = Lease::new(self.pool.get().await.map_err(pool_error)?);
        let stmt = client.prepare_cached(INSERT).await.map_err(db_error)?;
        let rows = client
            .query(
                &stmt,
                &[
                    &columns.id,
                    &columns.created_at,
                    &columns.expires_at,
                    &columns.burn,
                    &columns.encrypted,
                    &columns.lang,
                    &columns.name,
                    &columns.content_type,
                    &columns.size,
                    &columns.delete_token_hash,
                    &columns.visibility,
                    &columns.redirect,
                    &columns.body,
                    &columns.proof_verifier,
                    &columns.proof_iterations,
                    &columns.proof_salt,
                    &columns.body_encoding,
                    &columns.files,
                ],
            )
            .await
            .map_err(db_error)?;
        Ok(rows.iter().map(|row| row.get(0)).collect())
    }
}

/// The group as one array per column, in [`INSERT`]'s order.
#[derive(Default)]
struct Columns<'a> {
    id: Vec<&'a str>,
    created_at: Vec<i64>,
    expires_at: Vec<Option<i64>>,
    burn: Vec<bool>,
    encrypted: Vec<bool>,
    lang: Vec<Option<&'a str>>,
    name: Vec<Option<&'a str>>,
    content_type: Vec<&'a str>,
    size: Vec<i64>,
    delete_token_hash: Vec<&'a [u8]>,
    visibility: Vec<&'static str>,
    redirect: Vec<Option<&'a str>>,
    body: Vec<&'a [u8]>,
    proof_verifier: Vec<Option<&'a [u8]>>,
    proof_iterations: Vec<Option<i32>>,
    proof_salt: Vec<Option<&'a [u8]>>,
    body_encoding: Vec<&'static str>,
    files: Vec<Option<String>>,
}

impl<'a> Columns<'a> {
    fn of(group: &[&'a Pending]) -> Self {
        let mut columns = Self::default();
        for pending in group {
            columns.push(&pending.meta, &pending.body);
        }
        columns
    }

    fn push(&mut self, meta: &'a PasteMeta, body: &'a Stored) {
        self.id.push(&meta.id);
        self.created_at.push(to_i64(meta.created_at));
        self.expires_at.push(meta.expires_at.map(to_i64));
        self.burn.push(meta.burn);
        self.encrypted.push(meta.encrypted);
        self.lang.push(meta.lang.as_deref());
        self.name.push(meta.name.as_deref());
        self.content_type.push(&meta.content_type);
        self.size.push(to_i64(meta.size));
        self.delete_token_hash
            .push(meta.delete_token_hash.as_slice());
        self.visibility.push(visibility_text(meta.visibility));
        self.redirect.push(meta.redirect.as_deref());
        self.body.push(&body.bytes);
        self.body_encoding.push(body.encoding.name());
        self.files.push(files_column(meta));
        let (verifier, iterations, salt) = key_check_columns(meta.key_check.as_ref());
        self.proof_verifier.push(verifier);
        self.proof_iterations.push(iterations);
        self.proof_salt.push(salt);
    }
}

/// The error of a failed group, for each of its creates.
fn copy(e: &StoreError) -> StoreError {
    match e {
        StoreError::Unavailable(inner) => {
            StoreError::Unavailable(BackendError::new(inner.to_string()))
        }
        StoreError::Backend(inner) => StoreError::Backend(BackendError::new(inner.to_string())),
        StoreError::TimedOut(limit) => StoreError::TimedOut(*limit),
        other => StoreError::backend(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;

    use super::*;
    use crate::core::{PasteId, Visibility};
    use crate::store::postgres::{PostgresOptions, PostgresStore};

    fn pending(id: &str, body: &'static [u8]) -> Pending {
        Pending {
            meta: PasteMeta {
                id: id.into(),
                created_at: 1,
                expires_at: None,
                burn: false,
                encrypted: false,
                lang: Some("rust".into()),
                name: None,
                content_type: "text/plain; charset=utf-8".into(),
                size: body.len() as u64,
                delete_token_hash: [3; 32],
                owner: None,
                visibility: Visibility::Unlisted,
                redirect: None,
                key_check: None,
                files: Vec::new(),
                author: None,
            },
            body: Stored::identity(Bytes::from_static(body)),
        }
    }

    /// In one group: a new ID is stored, an ID stored before and the second
    /// create of an ID in the group are refused as taken, and only the first
    /// body of a repeated ID is kept. Needs `SNIP_TEST_STORE=postgres`.
    #[tokio::test]
    async fn a_group_stores_each_new_id_once() {
        if !std::env::var("SNIP_TEST_STORE").is_ok_and(|v| v == "postgres") {
            eprintln!("skipped: needs SNIP_TEST_STORE=postgres");
            return;
        }
        let url = std::env::var("SNIP_TEST_DATABASE_URL")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into());
        let schema = format!("snip_batch_test_{}", std::process::id());
        let store = PostgresStore::open(PostgresOptions {
            url,
            schema: Some(schema.clone()),
            pool_size: 2,
            timeout: std::time::Duration::from_secs(5),
            max_bytes: None,
            cache_bytes: 1 << 20,
        })
        .await
        .unwrap();
        let [old, new, twice] = [(); 3].map(|()| PasteId::generate(12).unwrap());
        let first = store
            .inserter
            .insert(&[pending(old.as_str(), b"old")])
            .await;
        assert!(first[0].is_ok());
        let group = [
            pending(old.as_str(), b"again"),
            pending(new.as_str(), b"new"),
            pending(twice.as_str(), b"first"),
            pending(twice.as_str(), b"second"),
        ];
        let outcomes = store.inserter.insert(&group).await;
        let taken = |o: &Outcome| matches!(o, Err(StoreError::IdTaken));
        assert!(taken(&outcomes[0]), "{outcomes:?}");
        assert!(outcomes[1].is_ok() && outcomes[2].is_ok(), "{outcomes:?}");
        assert!(taken(&outcomes[3]), "{outcomes:?}");
        let now = 2;
        for (id, body) in [(&old, "old"), (&new, "new"), (&twice, "first")] {
            let paste = store.read_paste(id, now).await.unwrap().unwrap();
            assert_eq!(&paste.body[..], body.as_bytes());
        }
        let client = store.client().await.unwrap();
        client
            .batch_execute(&format!("DROP SCHEMA \"{schema}\" CASCADE"))
            .await
            .unwrap();
    }
}
