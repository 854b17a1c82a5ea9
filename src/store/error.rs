//! [`StoreError`], the one error type every backend returns, and
//! [`BackendError`], the failure of a backend's engine kept with its cause.

use std::borrow::Cow;
use std::fmt;

use crate::core::units::format_size;

/// Why a store operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A paste with this ID already exists (a random-ID collision; the caller retries).
    #[error("a paste with this ID already exists")]
    IdTaken,
    /// Storing the paste would pass the configured storage limit.
    #[error("the storage limit of {} is reached", format_size(*.limit))]
    Full {
        /// The configured limit in bytes.
        limit: u64,
    },
    /// Storing the paste would pass its owner's quota.
    #[error("the tenant's quota of {} is reached", format_size(*.limit))]
    QuotaExceeded {
        /// The tenant's quota in bytes.
        limit: u64,
    },
    /// A tenant with this name exists already.
    #[error("a tenant with this name exists already")]
    TenantExists,
    /// The tenant does not exist.
    #[error("no such tenant")]
    NoSuchTenant,
    /// The token or browser session that authorised a write (an
    /// [`Authority`](super::Authority)) was revoked, signed out or expired,
    /// or its tenant deleted, before the write committed: nothing was written.
    #[error("the token or session that authorised this write no longer exists")]
    AuthorityGone,
    /// The tenant still owns pastes and cannot be deleted.
    #[error("the tenant still owns {0} pastes; delete them first")]
    TenantNotEmpty(u64),
    /// A list cursor that this store did not hand out.
    #[error("invalid cursor")]
    BadCursor,
    /// Stored data could not be decoded, or fails its checksum.
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    /// The file system holding the data is full (`ENOSPC`), or so nearly
    /// full that a write could fail half-way; the write was refused whole
    /// and succeeds again once space is freed.
    #[error("no space left for the data: {0}")]
    DiskFull(String),
    /// The store refuses every write until it is opened again: a write to
    /// the embedded store's journal failed (an I/O error, or a disk that
    /// filled up behind snip's back). The server exits when it sees this,
    /// so that its supervisor restarts it, which reopens the store.
    #[error(
        "the store refuses writes until it is opened again (a write to its journal failed): {0}"
    )]
    Poisoned(BackendError),
    /// The database did not answer within the store's deadline
    /// (`--store-timeout`); the connection was dropped.
    #[error("the database did not answer within {:?}", .0)]
    TimedOut(std::time::Duration),
    /// The backend cannot be reached (database down, connection lost, pool exhausted);
    /// the request may succeed later.
    #[error("the database is unavailable: {0}")]
    Unavailable(BackendError),
    /// The search index cannot answer yet (it is being built) or at all
    /// (it cannot be written); the text says which, for the client.
    #[error("the search index is unavailable: {0}")]
    SearchUnavailable(&'static str),
    /// The backend failed (I/O, engine error).
    #[error("storage backend error: {0}")]
    Backend(BackendError),
    /// Another process (another snip) has the data dir open.
    #[error(
        "another snip is using {}: a data dir serves one process at a time; \
         stop that one, or give this one another --data-dir",
        dir.display()
    )]
    InUse {
        /// The data dir.
        dir: std::path::PathBuf,
    },
    /// The data dir is in a format this snip does not read (written by
    /// another version); nothing in it was changed.
    #[error(
        "{} says the data is in format {found}, but this snip reads format {reads} (and older ones); \
         run the snip that wrote it, and copy the pastes into a new store with `snip migrate`",
        file.display()
    )]
    UnknownFormat {
        /// The version file.
        file: std::path::PathBuf,
        /// What it holds.
        found: String,
        /// The newest format this snip reads (and writes).
        reads: u32,
    },
}

impl StoreError {
    /// A backend failure described by `context` alone.
    pub fn backend(context: impl Into<Cow<'static, str>>) -> Self {
        Self::Backend(BackendError::new(context))
    }

    /// An I/O failure while doing `context`: [`StoreError::DiskFull`] when
    /// the file system is full, else a backend failure.
    pub fn io(context: impl Into<Cow<'static, str>>, e: std::io::Error) -> Self {
        if is_disk_full(&e) {
            return Self::DiskFull(format!("{}: {e}", context.into()));
        }
        Self::backend_caused(context, e)
    }

    /// A backend failure: what was being done, and the error that stopped it.
    pub fn backend_caused(
        context: impl Into<Cow<'static, str>>,
        cause: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Self::Backend(BackendError::caused_by(context, cause))
    }
}

/// Whether an I/O error says the file system is full (`ENOSPC`, or `EDQUOT`:
/// over the user's disk quota, which a client cannot tell apart).
pub fn is_disk_full(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded
    )
}

/// The boxed error a [`BackendError`] keeps.
pub type Cause = Box<dyn std::error::Error + Send + Sync + 'static>;

/// A failure inside a backend: what it was doing, and the engine's, driver's
/// or OS's own error when one caused it.
///
/// The cause is kept as the error it was (for [`BackendError::cause`] and
/// `downcast_ref`), and its text is part of this error's message. So
/// [`std::error::Error::source`] is not forwarded: error chains printed
/// with `{:#}` would otherwise repeat the cause.
#[derive(Debug)]
pub struct BackendError {
    /// What was being done; empty when the cause says it all.
    context: Cow<'static, str>,
    cause: Option<Cause>,
}

impl BackendError {
    /// A failure described by `context` alone.
    pub fn new(context: impl Into<Cow<'static, str>>) -> Self {
        Self {
            context: context.into(),
            cause: None,
        }
    }

    /// A failure while doing `context`, caused by `cause`.
    pub fn caused_by(
        context: impl Into<Cow<'static, str>>,
        cause: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Self {
            context: context.into(),
            cause: Some(Box::new(cause)),
        }
    }

    /// A failure that `cause` describes by itself.
    pub fn from_cause(cause: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self::caused_by("", cause)
    }

    /// The error that caused this one, if any.
    pub fn cause(&self) -> Option<&(dyn std::error::Error + Send + Sync + 'static)> {
        self.cause.as_deref()
    }
}

impl fmt::Display for BackendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.cause, self.context.is_empty()) {
            (Some(cause), true) => write!(f, "{cause}"),
            (Some(cause), false) => write!(f, "{}: {cause}", self.context),
            (None, _) => f.write_str(&self.context),
        }
    }
}

impl std::error::Error for BackendError {}

#[cfg(test)]
mod tests {
    use super::*;

    /// The message reads as it always did; the cause stays the typed error it was.
    #[test]
    fn a_backend_error_keeps_its_cause() {
        let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "denied");
        let e = StoreError::backend_caused("cannot create data dir /x", io);
        assert_eq!(
            e.to_string(),
            "storage backend error: cannot create data dir /x: denied"
        );
        let StoreError::Backend(inner) = &e else {
            unreachable!("built as Backend")
        };
        let cause = inner
            .cause()
            .and_then(|c| c.downcast_ref::<std::io::Error>());
        assert_eq!(
            cause.map(std::io::Error::kind),
            Some(std::io::ErrorKind::PermissionDenied)
        );
        assert_eq!(
            StoreError::backend("the sync task stopped").to_string(),
            "storage backend error: the sync task stopped"
        );
        let bare = BackendError::from_cause(std::io::Error::other("disk on fire"));
        assert_eq!(bare.to_string(), "disk on fire");
    }

    /// `ENOSPC` (and `EDQUOT`) is its own error; other I/O errors stay backend errors.
    #[test]
    fn a_full_disk_is_told_apart() {
        let full = std::io::Error::from_raw_os_error(28);
        let e = StoreError::io("cannot write /d/x", full);
        assert!(matches!(e, StoreError::DiskFull(_)), "{e:?}");
        assert!(e.to_string().contains("cannot write /d/x"), "{e}");
        let quota = std::io::Error::from_raw_os_error(122);
        assert!(matches!(
            StoreError::io("w", quota),
            StoreError::DiskFull(_)
        ));
        let denied = std::io::Error::from_raw_os_error(13);
        assert!(matches!(
            StoreError::io("w", denied),
            StoreError::Backend(_)
        ));
    }
}
