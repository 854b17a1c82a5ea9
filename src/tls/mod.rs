//! Native HTTPS: the rustls configuration, the swappable current certificate,
//! and the counters the metrics read.
//!
//! The certificate lives behind [`CertResolver`], which rustls asks on every
//! handshake, so replacing it (a file reload, an ACME renewal) affects new
//! connections only: open ones keep the keys they negotiated. Certificates
//! come from files ([`reload`]) or an ACME CA ([`acme`]); [`conn`] serves a
//! connection once its handshake is done, and [`redirect`] is the optional
//! plain-HTTP listener.

pub mod acme;
pub mod conn;
pub mod redirect;
pub mod reload;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rustls::ServerConfig;
use rustls::crypto::CryptoProvider;
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};

/// The ALPN protocol of ACME's TLS-ALPN-01 challenge (RFC 8737).
pub const ACME_TLS_ALPN: &[u8] = b"acme-tls/1";

/// Why a certificate could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// A file could not be read.
    #[error("cannot read {what} {}: {error}", path.display())]
    Read {
        what: &'static str,
        path: PathBuf,
        error: std::io::Error,
    },
    /// The certificate PEM holds no certificate.
    #[error("no PEM certificate found in the TLS certificate")]
    NoCertificate,
    /// The certificate PEM is malformed.
    #[error("the TLS certificate is not valid PEM: {0}")]
    CertificatePem(rustls_pki_types::pem::Error),
    /// The key PEM holds no usable private key.
    #[error("no PEM private key (PKCS#8, PKCS#1 or SEC1) found in the TLS key: {0}")]
    KeyPem(rustls_pki_types::pem::Error),
    /// The leaf certificate is not parsable X.509.
    #[error("the TLS certificate is not valid X.509: {0}")]
    X509(String),
    /// rustls refused the key, or the key does not belong to the certificate.
    #[error("the TLS key does not fit the certificate: {0}")]
    Key(rustls::Error),
    /// The rustls configuration could not be built.
    #[error("TLS configuration: {0}")]
    Config(rustls::Error),
}

/// A certificate chain with its key, ready for rustls, and what we need to know about it.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// What rustls serves.
    pub key: Arc<CertifiedKey>,
    /// Start of the leaf's validity, in seconds since the Unix epoch.
    pub not_before: i64,
    /// End of the leaf's validity, in seconds since the Unix epoch.
    pub not_after: i64,
    /// DNS names of the leaf (subject alternative names).
    pub names: Vec<String>,
}

/// The crypto provider: ring, the one compiled in.
pub fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// Reads and checks a certificate chain and its key from PEM files.
pub fn load_files(cert: &Path, key: &Path) -> Result<Loaded, TlsError> {
    let read = |what, path: &Path| {
        std::fs::read(path).map_err(|error| TlsError::Read {
            what,
            path: path.to_owned(),
            error,
        })
    };
    load_pem(
        &read("the TLS certificate", cert)?,
        &read("the TLS key", key)?,
    )
}

/// Parses and checks a certificate chain and its key: both PEM, the key must
/// belong to the first certificate.
pub fn load_pem(cert_pem: &[u8], key_pem: &[u8]) -> Result<Loaded, TlsError> {
    let chain = CertificateDer::pem_slice_iter(cert_pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(TlsError::CertificatePem)?;
    let leaf = chain.first().ok_or(TlsError::NoCertificate)?.clone();
    let key = PrivateKeyDer::from_pem_slice(key_pem).map_err(TlsError::KeyPem)?;
    let certified = CertifiedKey::from_der(chain, key, &provider()).map_err(TlsError::Key)?;
    let (not_before, not_after, names) = inspect(&leaf)?;
    Ok(Loaded {
        key: Arc::new(certified),
        not_before,
        not_after,
        names,
    })
}

/// The validity period and DNS names of a leaf certificate.
fn inspect(leaf: &CertificateDer<'_>) -> Result<(i64, i64, Vec<String>), TlsError> {
    use x509_parser::extensions::GeneralName;
    let (_, cert) =
        x509_parser::parse_x509_certificate(leaf).map_err(|e| TlsError::X509(e.to_string()))?;
    let validity = cert.validity();
    let names = match cert.subject_alternative_name() {
        Ok(Some(san)) => san
            .value
            .general_names
            .iter()
            .filter_map(|n| match n {
                GeneralName::DNSName(d) => Some(d.to_ascii_lowercase()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    Ok((
        validity.not_before.timestamp(),
        validity.not_after.timestamp(),
        names,
    ))
}

/// TLS counters and the certificate's expiry, for `/metrics`.
#[derive(Debug, Default)]
pub struct TlsStats {
    handshakes: AtomicU64,
    failed_handshakes: AtomicU64,
    /// `not_after` of the served certificate (Unix seconds); 0 while there is none.
    not_after: AtomicI64,
}

impl TlsStats {
    /// Completed TLS handshakes.
    pub fn handshakes(&self) -> u64 {
        self.handshakes.load(Ordering::Relaxed)
    }

    /// Handshakes that failed or timed out.
    pub fn failed_handshakes(&self) -> u64 {
        self.failed_handshakes.load(Ordering::Relaxed)
    }

    /// When the served certificate expires, in seconds since the Unix epoch.
    pub fn cert_not_after(&self) -> Option<i64> {
        Some(self.not_after.load(Ordering::Relaxed)).filter(|&t| t != 0)
    }

    pub(crate) fn count_handshake(&self, ok: bool) {
        let counter = if ok {
            &self.handshakes
        } else {
            &self.failed_handshakes
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }
}

/// Picks the certificate for each handshake: the current one, or an ACME
/// challenge certificate when the CA's validator asks for `acme-tls/1`.
///
/// Uses `std::sync::RwLock` rather than an async lock because rustls calls
/// `resolve` synchronously and the lock is only held to clone an `Arc`.
#[derive(Debug, Default)]
pub struct CertResolver {
    current: RwLock<Option<Loaded>>,
    challenges: RwLock<HashMap<String, Arc<CertifiedKey>>>,
    stats: Arc<TlsStats>,
}

impl CertResolver {
    /// The counters shared with the metrics.
    pub fn stats(&self) -> Arc<TlsStats> {
        self.stats.clone()
    }

    /// Serves `loaded` to new connections from now on.
    pub fn install(&self, loaded: Loaded) {
        self.stats
            .not_after
            .store(loaded.not_after, Ordering::Relaxed);
        if let Ok(mut current) = self.current.write() {
            *current = Some(loaded);
        }
    }

    /// The certificate being served, if any.
    pub fn current(&self) -> Option<Loaded> {
        self.current.read().ok().and_then(|c| c.clone())
    }

    /// Answers TLS-ALPN-01 handshakes for `domain` with `key` until removed.
    pub fn set_challenge(&self, domain: &str, key: Arc<CertifiedKey>) {
        if let Ok(mut map) = self.challenges.write() {
            map.insert(domain.to_owned(), key);
        }
    }

    /// Forgets all challenge certificates.
    pub fn clear_challenges(&self) {
        if let Ok(mut map) = self.challenges.write() {
            map.clear();
        }
    }
}

impl ResolvesServerCert for CertResolver {
    fn resolve(&self, hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        let acme = hello
            .alpn()
            .is_some_and(|mut protocols| protocols.any(|p| p == ACME_TLS_ALPN));
        if acme {
            let name = hello.server_name()?.to_ascii_lowercase();
            return self.challenges.read().ok()?.get(&name).cloned();
        }
        self.current.read().ok()?.as_ref().map(|l| l.key.clone())
    }
}

/// Builds the rustls server configuration: TLS 1.2 and 1.3, HTTP/2 and
/// HTTP/1.1 by ALPN (and `acme-tls/1` when ACME answers challenges).
pub fn server_config(resolver: Arc<CertResolver>, acme: bool) -> Result<ServerConfig, TlsError> {
    let mut config = ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(TlsError::Config)?
        .with_no_client_auth()
        .with_cert_resolver(resolver);
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    if acme {
        config.alpn_protocols.push(ACME_TLS_ALPN.to_vec());
    }
    Ok(config)
}

/// Where the certificates come from; `config` maps the flags onto it.
#[derive(Debug, Clone)]
pub enum TlsConfig {
    /// A certificate chain and its key, read from files and re-read when they change.
    Files {
        /// The chain (PEM, leaf first).
        cert: PathBuf,
        /// The private key (PEM).
        key: PathBuf,
        /// How often the files are checked for changes (`None`: only on SIGHUP).
        reload_interval: Option<Duration>,
    },
    /// Certificates obtained and renewed from an ACME CA.
    Acme(acme::AcmeConfig),
}

impl TlsConfig {
    /// The first domain ACME gets certificates for, if certificates come from ACME.
    pub fn acme_domain(&self) -> Option<&str> {
        match self {
            Self::Files { .. } => None,
            Self::Acme(acme) => acme.domains.first().map(String::as_str),
        }
    }
}

/// HTTPS, ready to accept: the acceptor for the listener and the resolver behind it.
pub struct Tls {
    /// Performs handshakes.
    pub acceptor: tokio_rustls::TlsAcceptor,
    /// The current certificate.
    pub resolver: Arc<CertResolver>,
}

impl Tls {
    /// Sets up HTTPS. Certificate files must load now (a bad file is a
    /// startup error); then a task watches them. With ACME a cached
    /// certificate is served at once and a task obtains or renews it.
    pub async fn start(config: &TlsConfig) -> anyhow::Result<Self> {
        let resolver = Arc::new(CertResolver::default());
        match config {
            TlsConfig::Files {
                cert,
                key,
                reload_interval,
            } => {
                let loaded = load_files(cert, key)?;
                tracing::info!(
                    names = ?loaded.names,
                    expires = %unix_to_rfc3339(loaded.not_after),
                    "TLS certificate loaded from {}",
                    cert.display()
                );
                resolver.install(loaded);
                tokio::spawn(reload::watch(
                    resolver.clone(),
                    cert.clone(),
                    key.clone(),
                    *reload_interval,
                ));
            }
            TlsConfig::Acme(acme) => acme::start(acme.clone(), resolver.clone()).await?,
        }
        let acme = matches!(config, TlsConfig::Acme(_));
        let server_config = server_config(resolver.clone(), acme)?;
        Ok(Self {
            acceptor: tokio_rustls::TlsAcceptor::from(Arc::new(server_config)),
            resolver,
        })
    }

    /// The counters shared with the metrics.
    pub fn stats(&self) -> Arc<TlsStats> {
        self.resolver.stats()
    }
}

/// Seconds since the epoch as an RFC 3339 time, for log lines.
pub fn unix_to_rfc3339(secs: i64) -> String {
    let time = UNIX_EPOCH + Duration::from_secs(u64::try_from(secs).unwrap_or(0));
    humantime::format_rfc3339_seconds(time).to_string()
}

/// Now, in seconds since the Unix epoch.
pub fn unix_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn self_signed(name: &str) -> (String, String) {
        let key = rcgen::KeyPair::generate().unwrap();
        let params = rcgen::CertificateParams::new(vec![name.to_owned()]).unwrap();
        (params.self_signed(&key).unwrap().pem(), key.serialize_pem())
    }

    /// A matching pair loads with its names and validity, and the resolver
    /// publishes its expiry; a foreign key or garbage is refused.
    #[test]
    fn load_and_install() {
        let (cert, key) = self_signed("paste.example.com");
        let loaded = load_pem(cert.as_bytes(), key.as_bytes()).unwrap();
        assert_eq!(loaded.names, ["paste.example.com"]);
        assert!(loaded.not_before < unix_now() && unix_now() < loaded.not_after);

        let resolver = CertResolver::default();
        assert_eq!(resolver.stats().cert_not_after(), None);
        resolver.install(loaded.clone());
        assert_eq!(resolver.stats().cert_not_after(), Some(loaded.not_after));

        let (_, other_key) = self_signed("other.example.com");
        assert!(matches!(
            load_pem(cert.as_bytes(), other_key.as_bytes()),
            Err(TlsError::Key(_))
        ));
        assert!(matches!(
            load_pem(b"nothing here", key.as_bytes()),
            Err(TlsError::NoCertificate)
        ));
        assert!(matches!(
            load_pem(cert.as_bytes(), b"no key"),
            Err(TlsError::KeyPem(_))
        ));
    }
}
