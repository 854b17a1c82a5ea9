//! Backup, restore and migration, through the store's traits only
//! ([`Store`]), so they work between any two backends.
//!
//! A backup walks a serving store: tenants with their programs and tokens first, then the
//! live pastes in ID order, each read whole (so every paste in the dump is
//! exactly as it was at one moment; pastes created or deleted while the backup
//! runs may or may not be in it). A restore first reads the whole dump and
//! checks it (checksum, count, no ID or tenant already in the target), then
//! writes; if a write still fails, it removes what it wrote, so a bad dump or
//! a failed restore leaves the target as it was.

use std::io::BufReader;
use std::path::Path;

use bytes::Bytes;
use tokio::io::AsyncWrite;

use super::codec::{self, NewBody, Stored};
use super::dump::{DumpError, DumpReader, DumpWriter, ProgramRecord, Record};
use super::{Paste, PutLimits, Store, StoreError};
use crate::core::PasteId;
use crate::core::paste::now;
use crate::core::tenant::ProgramInfo;

/// Pastes per `scan` page.
const PAGE: usize = 200;

/// What a backup or restore moved.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Tenants.
    pub tenants: u64,
    /// Tokens.
    pub tokens: u64,
    /// Tenants' programs.
    pub programs: u64,
    /// Pastes.
    pub pastes: u64,
    /// Body bytes of the pastes.
    pub bytes: u64,
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} pastes ({} bytes), {} tenants, {} tokens",
            self.pastes, self.bytes, self.tenants, self.tokens
        )?;
        if self.programs > 0 {
            write!(f, ", {} programs", self.programs)?;
        }
        Ok(())
    }
}

/// Why a transfer failed.
#[derive(Debug, thiserror::Error)]
pub enum TransferError {
    /// The dump is unreadable, truncated or corrupt.
    #[error(transparent)]
    Dump(#[from] DumpError),
    /// A store operation failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The target already holds something the dump would overwrite.
    #[error("the target store already has {0}; restore into an empty store")]
    Conflict(String),
}

/// Writes a dump of `store` to `out`.
pub async fn backup<W: AsyncWrite + Unpin>(
    store: &dyn Store,
    out: W,
) -> Result<Summary, TransferError> {
    let mut writer = DumpWriter::new(out).await?;
    let mut summary = Summary::default();
    for tenant in store.tenants().await? {
        writer.tenant(&tenant).await?;
        summary.tenants += 1;
        if let Some(info) = tenant.program.as_deref() {
            // Cleared since the tenant was read: the dump has no program.
            if let Some(module) = store.program(&tenant.name).await? {
                let record = ProgramRecord {
                    tenant: tenant.name.clone(),
                    set_at: info.set_at,
                };
                writer.program(&record, &module).await?;
                summary.programs += 1;
            }
        }
        for token in store.tokens(&tenant.name).await? {
            writer.token(&token).await?;
            summary.tokens += 1;
        }
    }
    let mut from: Option<String> = None;
    loop {
        let page = store.scan(from.as_deref(), PAGE, now()).await?;
        for meta in page.pastes {
            let Some(id) = meta.paste_id() else { continue };
            // Gone (taken, deleted, expired) since the scan: not in the dump.
            let Some(paste) = store.get(&id, now()).await? else {
                continue;
            };
            let compressed = paste.compressed.clone().or_else(|| standalone(&paste));
            writer
                .paste(&paste.meta, &paste.body, compressed.as_deref())
                .await?;
            summary.pastes += 1;
            summary.bytes += paste.meta.size;
        }
        match page.next {
            Some(next) => from = Some(next),
            None => break,
        }
    }
    writer.finish().await?;
    Ok(summary)
}

/// A small body with no stream clients can decode (it is stored as it is,
/// or with the store's dictionary, which dumps do not carry) compressed
/// on its own, if that is worth it: dumps stay compressed and stand alone.
fn standalone(paste: &Paste) -> Option<Bytes> {
    if paste.body.len() >= codec::INLINE_BYTES {
        return None;
    }
    NewBody::new(paste.body.clone())
        .into_stored(&paste.meta)
        .compressed()
}

/// Reads a whole dump, checking it; returns what it holds.
pub fn verify(path: &Path) -> Result<Summary, TransferError> {
    let mut summary = Summary::default();
    each_record(path, |record| {
        count(&mut summary, &record);
        Ok(())
    })?;
    Ok(summary)
}

fn count(summary: &mut Summary, record: &Record) {
    match record {
        Record::Tenant(_) => summary.tenants += 1,
        Record::Token(_) => summary.tokens += 1,
        Record::Program(..) => summary.programs += 1,
        Record::Paste(meta, ..) => {
            summary.pastes += 1;
            summary.bytes += meta.size;
        }
    }
}

fn each_record(
    path: &Path,
    mut f: impl FnMut(Record) -> Result<(), TransferError>,
) -> Result<(), TransferError> {
    let file = std::fs::File::open(path).map_err(DumpError::Io)?;
    let mut reader = DumpReader::new(BufReader::with_capacity(1 << 20, file))?;
    while let Some(record) = reader.next_record()? {
        f(record)?;
    }
    Ok(())
}

/// Loads the dump at `path` into `store`: all or nothing.
pub async fn restore(store: &dyn Store, path: &Path) -> Result<Summary, TransferError> {
    // Pass 1: the dump is whole, and nothing in it exists in the target.
    let mut ids = Vec::new();
    let mut tenants = Vec::new();
    let mut summary = Summary::default();
    each_record(path, |record| {
        count(&mut summary, &record);
        match record {
            Record::Tenant(t) => tenants.push(t.name),
            Record::Paste(meta, ..) => ids.push(meta.id),
            Record::Token(_) | Record::Program(..) => {}
        }
        Ok(())
    })?;
    for name in &tenants {
        if store.tenant(name).await?.is_some() {
            return Err(TransferError::Conflict(format!("a tenant named {name}")));
        }
    }
    for id in &ids {
        let parsed =
            PasteId::parse(id).map_err(|e| DumpError::Corrupt(format!("paste ID {id:?}: {e}")))?;
        // At time 0 nothing has expired, so pastes the sweeper has yet to remove count too.
        if store.meta(&parsed, 0).await?.is_some() {
            return Err(TransferError::Conflict(format!("a paste with ID {id}")));
        }
    }
    // Pass 2: write, remembering what to undo.
    let mut written = Written::default();
    let result = apply(store, path, &mut written).await;
    if let Err(e) = result {
        written.undo(store).await;
        return Err(e);
    }
    Ok(summary)
}

/// What a restore has written so far.
#[derive(Default)]
struct Written {
    tenants: Vec<String>,
    pastes: Vec<PasteId>,
}

impl Written {
    /// Removes everything written (best effort: the store may be what failed).
    async fn undo(self, store: &dyn Store) {
        for id in self.pastes.iter().rev() {
            if let Err(e) = store.delete(id, None).await {
                tracing::error!(error = %e, id = %id, "cannot undo a restored paste");
            }
        }
        for name in self.tenants.iter().rev() {
            if let Err(e) = store.delete_tenant(name).await {
                tracing::error!(error = %e, tenant = %name, "cannot undo a restored tenant");
            }
        }
    }
}

async fn apply(store: &dyn Store, path: &Path, written: &mut Written) -> Result<(), TransferError> {
    let file = std::fs::File::open(path).map_err(DumpError::Io)?;
    let mut reader = DumpReader::new(BufReader::with_capacity(1 << 20, file))?;
    while let Some(record) = reader.next_record()? {
        match record {
            Record::Tenant(mut tenant) => {
                let name = tenant.name.clone();
                // Its program, if any, comes in a record of its own.
                tenant.program = None;
                store.create_tenant(tenant).await?;
                written.tenants.push(name);
            }
            Record::Token(token) => store.create_token(token).await?,
            Record::Program(record, module) => {
                let info = ProgramInfo {
                    sha256: crate::programs::sha256(&module),
                    size: module.len() as u64,
                    set_at: record.set_at,
                };
                store.set_program(&record.tenant, info, module).await?;
            }
            Record::Paste(meta, body, compressed) => {
                let id = PasteId::parse(&meta.id)
                    .map_err(|e| DumpError::Corrupt(format!("paste ID {:?}: {e}", meta.id)))?;
                // A compressed body is kept as it came (the reader checked
                // that it decodes to the paste's size).
                let body = match compressed {
                    Some(stream) => NewBody::stored(Stored::zstd(stream)),
                    None => NewBody::new(body),
                };
                // Quotas were checked when the pastes were made; a restore
                // reproduces them.
                store.put(meta, body, PutLimits::default()).await?;
                written.pastes.push(id);
            }
        }
    }
    Ok(())
}
