//! Certificates from an ACME CA (Let's Encrypt by default): obtained at the
//! first start, cached in the data dir, renewed when a third of their
//! lifetime is left (30 days for Let's Encrypt's 90-day certificates).
//!
//! The client is `instant-acme` (pure Rust, builds with ring; `rustls-acme`
//! would also do, but wants to own the whole acceptor, and we already have
//! one that reloads certificates). The challenge is TLS-ALPN-01 (RFC 8737),
//! answered by the HTTPS listener itself: while an order is pending,
//! [`CertResolver`] hands the CA's validator, which asks for the `acme-tls/1`
//! protocol, a self-signed certificate carrying the key authorization's
//! digest. So only the HTTPS port needs to be reachable; no port 80, no DNS API.
//!
//! Cache layout, one directory per CA (so switching from a staging CA to
//! production starts afresh): `DATA_DIR/acme/HOST/account.json` (the account
//! key), `cert.pem` and `key.pem`, all mode 0600.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use instant_acme::{
    Account, AccountCredentials, AuthorizationStatus, ChallengeType, Identifier, NewAccount,
    NewOrder, OrderStatus, RetryPolicy,
};
use rustls::sign::CertifiedKey;
use rustls_pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};

use super::{CertResolver, Loaded, TlsError, load_pem, provider, unix_now, unix_to_rfc3339};

/// The default ACME directory: Let's Encrypt's production CA.
pub const LETS_ENCRYPT: &str = "https://acme-v02.api.letsencrypt.org/directory";

/// First wait after a failed attempt; doubled on each failure up to [`RETRY_MAX`].
const RETRY_MIN: Duration = Duration::from_secs(10);
const RETRY_MAX: Duration = Duration::from_secs(3600);
/// Longest sleep before re-checking the renewal time (robust to clock jumps and suspends).
const CHECK_EVERY: Duration = Duration::from_secs(3600);

/// Why an ACME attempt failed.
#[derive(Debug, thiserror::Error)]
pub enum AcmeError {
    /// The CA or the protocol refused something.
    #[error("ACME: {0}")]
    Protocol(#[from] instant_acme::Error),
    /// The cache could not be read or written.
    #[error("ACME cache {}: {error}", path.display())]
    Cache {
        path: PathBuf,
        error: std::io::Error,
    },
    /// The cached account is not valid JSON.
    #[error("ACME account {}: {error}", path.display())]
    Account {
        path: PathBuf,
        error: serde_json::Error,
    },
    /// The challenge certificate could not be made.
    #[error("ACME challenge certificate: {0}")]
    Challenge(String),
    /// The CA offered no TLS-ALPN-01 challenge for a domain.
    #[error("the CA offers no tls-alpn-01 challenge for {0}")]
    NoTlsAlpn(String),
    /// The order ended in a state other than issued.
    #[error("ACME order failed: {0}")]
    Order(String),
    /// The issued certificate does not load.
    #[error(transparent)]
    Certificate(#[from] TlsError),
}

/// What to ask for, from whom, and where to keep it.
#[derive(Debug, Clone)]
pub struct AcmeConfig {
    /// DNS names on the certificate.
    pub domains: Vec<String>,
    /// Contact address for the account.
    pub email: String,
    /// The CA's directory URL.
    pub directory: String,
    /// A PEM root to trust for the directory's HTTPS instead of the system's.
    pub ca_root: Option<PathBuf>,
    /// This CA's cache directory.
    pub cache_dir: PathBuf,
}

impl AcmeConfig {
    /// The configuration for `domains` from the CA at `directory`; the
    /// cache goes under `data_dir/acme/`, in a directory of the CA's own.
    pub fn new(
        domains: Vec<String>,
        email: String,
        directory: String,
        ca_root: Option<PathBuf>,
        data_dir: &Path,
    ) -> Self {
        let cache_dir = data_dir.join("acme").join(cache_name(&directory));
        Self {
            domains,
            email,
            directory,
            ca_root,
            cache_dir,
        }
    }

    fn file(&self, name: &str) -> PathBuf {
        self.cache_dir.join(name)
    }
}

/// A directory name for a CA: the host (and port) of its directory URL.
fn cache_name(directory: &str) -> String {
    let rest = directory.split_once("://").map_or(directory, |(_, r)| r);
    let host = rest.split('/').next().unwrap_or_default();
    let name: String = host
        .chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '.' | '-' => c,
            _ => '_',
        })
        .collect();
    if name.is_empty() { "ca".into() } else { name }
}

/// Serves a cached certificate if there is a fitting one, then starts the
/// task that obtains and renews certificates.
pub async fn start(config: AcmeConfig, resolver: Arc<CertResolver>) -> Result<(), AcmeError> {
    if let Some(root) = &config.ca_root {
        // Checked now: a typo here is a startup error, not a retry loop.
        tokio::fs::read(root)
            .await
            .map_err(|error| TlsError::Read {
                what: "the ACME CA root",
                path: root.clone(),
                error,
            })?;
    }
    create_private_dir(&config.cache_dir).await?;
    match load_cached(&config).await {
        Some(loaded) => {
            tracing::info!(
                names = ?loaded.names,
                expires = %unix_to_rfc3339(loaded.not_after),
                "ACME: serving the cached certificate"
            );
            resolver.install(loaded);
        }
        None => tracing::info!(
            domains = ?config.domains,
            directory = %config.directory,
            "ACME: no cached certificate; requesting one (HTTPS handshakes fail until it arrives)"
        ),
    }
    tokio::spawn(renew_loop(config, resolver));
    Ok(())
}

/// The cached certificate, if it loads, is for exactly our domains, and has not expired.
async fn load_cached(config: &AcmeConfig) -> Option<Loaded> {
    let cert = tokio::fs::read(config.file("cert.pem")).await.ok()?;
    let key = tokio::fs::read(config.file("key.pem")).await.ok()?;
    let loaded = match load_pem(&cert, &key) {
        Ok(loaded) => loaded,
        Err(e) => {
            tracing::warn!(error = %e, "ACME: ignoring the cached certificate");
            return None;
        }
    };
    let mut wanted = config.domains.clone();
    let mut have = loaded.names.clone();
    wanted.sort();
    have.sort();
    (wanted == have && loaded.not_after > unix_now()).then_some(loaded)
}

/// When to renew: once a third of the certificate's lifetime is left.
fn renew_at(loaded: &Loaded) -> i64 {
    loaded.not_after - (loaded.not_after - loaded.not_before) / 3
}

/// Obtains a certificate when there is none or it is due, forever; failures
/// are retried with exponential backoff while the old certificate stays.
async fn renew_loop(config: AcmeConfig, resolver: Arc<CertResolver>) {
    let mut backoff = RETRY_MIN;
    loop {
        let due_in = resolver
            .current()
            .map_or(0, |l| renew_at(&l).saturating_sub(unix_now()));
        if due_in > 0 {
            let wait = Duration::from_secs(u64::try_from(due_in).unwrap_or(0));
            tokio::time::sleep(wait.min(CHECK_EVERY)).await;
            continue;
        }
        let result = issue(&config, &resolver).await;
        resolver.clear_challenges();
        match result {
            Ok(loaded) => {
                tracing::info!(
                    names = ?loaded.names,
                    expires = %unix_to_rfc3339(loaded.not_after),
                    "ACME: certificate issued"
                );
                resolver.install(loaded);
                backoff = RETRY_MIN;
                // Never ask again at once, even if a CA issues certificates
                // that are already due (very short-lived or backdated ones).
                tokio::time::sleep(RETRY_MIN).await;
            }
            Err(e) => {
                tracing::warn!(error = %e, "ACME: no certificate this time; retrying in {backoff:?}");
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(RETRY_MAX);
            }
        }
    }
}

/// One order, start to finish: authorize every domain by TLS-ALPN-01,
/// finalize with a fresh key, download the chain and cache it.
async fn issue(config: &AcmeConfig, resolver: &CertResolver) -> Result<Loaded, AcmeError> {
    let account = account(config).await?;
    let identifiers: Vec<Identifier> = config
        .domains
        .iter()
        .map(|d| Identifier::Dns(d.clone()))
        .collect();
    let mut order = account.new_order(&NewOrder::new(&identifiers)).await?;
    let mut authorizations = order.authorizations();
    while let Some(authz) = authorizations.next().await {
        let mut authz = authz?;
        match authz.status {
            AuthorizationStatus::Pending => {}
            AuthorizationStatus::Valid => continue,
            other => return Err(AcmeError::Order(format!("authorization is {other:?}"))),
        }
        let identifier = authz.identifier().to_string();
        let mut challenge = authz
            .challenge(ChallengeType::TlsAlpn01)
            .ok_or(AcmeError::NoTlsAlpn(identifier))?;
        let domain = challenge.identifier().to_string();
        let digest = challenge.key_authorization().digest();
        resolver.set_challenge(&domain, challenge_cert(&domain, digest.as_ref())?);
        challenge.set_ready().await?;
    }
    let status = order.poll_ready(&RetryPolicy::default()).await?;
    if status != OrderStatus::Ready {
        let why = order.state().error.as_ref().map(|p| p.to_string());
        return Err(AcmeError::Order(format!(
            "order is {status:?}: {}",
            why.unwrap_or_default()
        )));
    }
    let key_pem = order.finalize().await?;
    let chain_pem = order.poll_certificate(&RetryPolicy::default()).await?;
    let loaded = load_pem(chain_pem.as_bytes(), key_pem.as_bytes())?;
    write_private(&config.file("key.pem"), key_pem.as_bytes()).await?;
    write_private(&config.file("cert.pem"), chain_pem.as_bytes()).await?;
    Ok(loaded)
}

/// The cached account, or a new one (registered with the CA and cached).
async fn account(config: &AcmeConfig) -> Result<Account, AcmeError> {
    let builder = match &config.ca_root {
        Some(root) => Account::builder_with_root(root)?,
        None => Account::builder()?,
    };
    let path = config.file("account.json");
    match tokio::fs::read(&path).await {
        Ok(json) => {
            let credentials: AccountCredentials =
                serde_json::from_slice(&json).map_err(|error| AcmeError::Account {
                    path: path.clone(),
                    error,
                })?;
            Ok(builder.from_credentials(credentials).await?)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let contact = format!("mailto:{}", config.email);
            let (account, credentials) = builder
                .create(
                    &NewAccount {
                        contact: &[&contact],
                        terms_of_service_agreed: true,
                        only_return_existing: false,
                    },
                    config.directory.clone(),
                    None,
                )
                .await?;
            let json =
                serde_json::to_vec_pretty(&credentials).map_err(|error| AcmeError::Account {
                    path: path.clone(),
                    error,
                })?;
            write_private(&path, &json).await?;
            tracing::info!(id = %account.id(), "ACME: account registered");
            Ok(account)
        }
        Err(error) => Err(AcmeError::Cache { path, error }),
    }
}

/// The self-signed certificate that answers a TLS-ALPN-01 challenge: the
/// domain as its only name and the key authorization's SHA-256 in the
/// critical `acmeIdentifier` extension.
fn challenge_cert(domain: &str, digest: &[u8]) -> Result<Arc<CertifiedKey>, AcmeError> {
    let fail = |e: &dyn std::fmt::Display| AcmeError::Challenge(e.to_string());
    if digest.len() != 32 {
        return Err(AcmeError::Challenge(
            "the key authorization digest is not SHA-256".into(),
        ));
    }
    let mut params =
        rcgen::CertificateParams::new(vec![domain.to_owned()]).map_err(|e| fail(&e))?;
    params.custom_extensions = vec![rcgen::CustomExtension::new_acme_identifier(digest)];
    let key = rcgen::KeyPair::generate().map_err(|e| fail(&e))?;
    let cert = params.self_signed(&key).map_err(|e| fail(&e))?;
    let key_der = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
    let signer = provider()
        .key_provider
        .load_private_key(key_der)
        .map_err(|e| fail(&e))?;
    // Not `CertifiedKey::from_der`: its key check parses the certificate with
    // webpki, which refuses the critical acmeIdentifier extension. The pair
    // was generated together just above.
    let certified = CertifiedKey::new(vec![cert.der().clone()], signer);
    Ok(Arc::new(certified))
}

async fn create_private_dir(dir: &Path) -> Result<(), AcmeError> {
    use std::os::unix::fs::PermissionsExt;
    let cache = |error| AcmeError::Cache {
        path: dir.to_owned(),
        error,
    };
    tokio::fs::create_dir_all(dir).await.map_err(cache)?;
    tokio::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
        .await
        .map_err(cache)
}

/// Writes a file readable by us only, atomically (a temporary file renamed over it).
async fn write_private(path: &Path, bytes: &[u8]) -> Result<(), AcmeError> {
    use tokio::io::AsyncWriteExt;
    let tmp = path.with_extension("tmp");
    let cache = |error| AcmeError::Cache {
        path: path.to_owned(),
        error,
    };
    let mut file = tokio::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)
        .await
        .map_err(cache)?;
    file.write_all(bytes).await.map_err(cache)?;
    file.sync_all().await.map_err(cache)?;
    tokio::fs::rename(&tmp, path).await.map_err(cache)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cache directories are named after the CA's host and stay plain file names.
    #[test]
    fn cache_names() {
        assert_eq!(
            cache_name("https://acme-v02.api.letsencrypt.org/directory"),
            "acme-v02.api.letsencrypt.org"
        );
        assert_eq!(cache_name("https://127.0.0.1:14000/dir"), "127.0.0.1_14000");
        assert_eq!(cache_name("weird"), "weird");
    }
}
