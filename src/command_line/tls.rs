//! The HTTPS flags, and their mapping onto [`TlsConfig`].

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;

use crate::core::units::{self, UnitError, parse_duration};
use crate::tls::TlsConfig;
use crate::tls::acme::{AcmeConfig, LETS_ENCRYPT};

/// Options that make snip serve HTTPS itself (see the README's TLS section).
#[derive(Debug, Clone, Args)]
#[command(group(clap::ArgGroup::new("tls_source").args(["tls_cert", "acme_domain"]).multiple(false)))]
pub struct TlsArgs {
    /// Serve HTTPS with this certificate chain (PEM, leaf first); needs --tls-key.
    /// Reloaded when the file changes or on SIGHUP.
    #[arg(long, env = "SNIP_TLS_CERT", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,

    /// Private key of --tls-cert (PEM: PKCS#8, PKCS#1 or SEC1).
    #[arg(long, env = "SNIP_TLS_KEY", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,

    /// How often --tls-cert and --tls-key are checked for changes (off: only on SIGHUP).
    #[arg(long, env = "SNIP_TLS_RELOAD_INTERVAL", default_value = "2s", value_parser = parse_interval)]
    pub tls_reload_interval: Interval,

    /// Get and renew certificates for this domain (comma-separated for several)
    /// from an ACME CA, answering its TLS-ALPN-01 challenge on the HTTPS port; needs --acme-email.
    #[arg(long, env = "SNIP_ACME_DOMAIN", value_delimiter = ',', requires = "acme_email", value_parser = parse_domain)]
    pub acme_domain: Vec<String>,

    /// Contact address given to the ACME CA (expiry and policy mail).
    #[arg(long, env = "SNIP_ACME_EMAIL", requires = "acme_domain", value_parser = parse_email)]
    pub acme_email: Option<String>,

    /// Directory URL of the ACME CA.
    #[arg(long, env = "SNIP_ACME_DIRECTORY", default_value = LETS_ENCRYPT, requires = "acme_domain")]
    pub acme_directory: String,

    /// Trust only this CA (PEM) for the ACME directory's own HTTPS, e.g. a test CA [default: the system's roots].
    #[arg(long, env = "SNIP_ACME_CA_ROOT", requires = "acme_domain")]
    pub acme_ca_root: Option<PathBuf>,

    /// Strict-Transport-Security max-age of every HTTPS answer, so browsers
    /// come back only over HTTPS (off: not sent). Sent only when snip serves
    /// HTTPS itself; behind a proxy, the proxy that terminates TLS sends it.
    #[arg(long, env = "SNIP_HSTS", default_value = "365d", value_parser = parse_interval)]
    pub hsts: Interval,

    /// Also listen for plain HTTP on this address and redirect it (308) to the HTTPS public URL.
    #[arg(long, env = "SNIP_REDIRECT_HTTP", requires = "tls_source")]
    pub redirect_http: Option<SocketAddr>,
}

impl TlsArgs {
    /// What clap's `requires` and group check on the command line, checked
    /// again once the config file filled in its options.
    pub fn check(&self) -> Result<(), &'static str> {
        let files = self.tls_cert.is_some() || self.tls_key.is_some();
        let acme = !self.acme_domain.is_empty();
        if self.tls_cert.is_some() != self.tls_key.is_some() {
            return Err("--tls-cert and --tls-key go together: give both or neither");
        }
        if files && acme {
            return Err("--tls-cert and --acme-domain both give certificates; give only one");
        }
        if acme != self.acme_email.is_some() {
            return Err("--acme-domain and --acme-email go together: give both or neither");
        }
        if self.acme_ca_root.is_some() && !acme {
            return Err("--acme-ca-root needs --acme-domain");
        }
        if self.redirect_http.is_some() && !files && !acme {
            return Err("--redirect-http needs HTTPS: --tls-cert or --acme-domain");
        }
        Ok(())
    }

    /// Where certificates come from, or `None` when snip serves plain HTTP;
    /// ACME's cache goes under `data_dir`.
    pub fn tls_config(&self, data_dir: &Path) -> Option<TlsConfig> {
        if let (Some(cert), Some(key)) = (&self.tls_cert, &self.tls_key) {
            return Some(TlsConfig::Files {
                cert: cert.clone(),
                key: key.clone(),
                reload_interval: self.tls_reload_interval.0,
            });
        }
        if self.acme_domain.is_empty() {
            return None;
        }
        Some(TlsConfig::Acme(AcmeConfig::new(
            self.acme_domain.clone(),
            self.acme_email.clone().unwrap_or_default(),
            self.acme_directory.clone(),
            self.acme_ca_root.clone(),
            data_dir,
        )))
    }
}

/// A period, or `off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interval(pub Option<Duration>);

pub(super) fn parse_interval(input: &str) -> Result<Interval, UnitError> {
    units::unless(input, "off", parse_duration).map(Interval)
}

/// A DNS name an ACME CA can issue for: letters, digits, `-` and `.`, no wildcard.
pub(super) fn parse_domain(input: &str) -> Result<String, String> {
    let domain = input.trim().trim_end_matches('.').to_ascii_lowercase();
    let label_ok = |l: &str| {
        !l.is_empty()
            && l.len() <= 63
            && !l.starts_with('-')
            && !l.ends_with('-')
            && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    };
    if domain.len() > 253
        || !domain.contains('.') && domain != "localhost"
        || !domain.split('.').all(label_ok)
    {
        return Err(format!(
            "{input:?} is not a domain name like paste.example.com"
        ));
    }
    Ok(domain)
}

pub(super) fn parse_email(input: &str) -> Result<String, String> {
    match input.split_once('@') {
        Some((user, host))
            if !user.is_empty() && host.contains('.') && !input.contains(char::is_whitespace) =>
        {
            Ok(input.to_owned())
        }
        _ => Err(format!("{input:?} is not an email address")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Domain names and email addresses for ACME are checked at startup.
    #[test]
    fn acme_names() {
        assert_eq!(
            parse_domain("Paste.Example.com."),
            Ok("paste.example.com".into())
        );
        assert!(parse_domain("*.example.com").is_err());
        assert!(parse_domain("exa mple.com").is_err());
        assert!(parse_domain("-bad.example.com").is_err());
        assert!(parse_domain("nodot").is_err());
        assert!(parse_email("ops@example.com").is_ok());
        assert!(parse_email("ops").is_err());
        assert!(parse_email("@example.com").is_err());
    }
}
