//! TLS for the tests: a test CA and certificates made with rcgen, an HTTPS
//! client that trusts only that CA, and raw TLS connections for looking at
//! the certificate a handshake presents.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, ServerName};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;

/// A certificate authority made for one test.
pub struct TestCa {
    issuer: Issuer<'static, KeyPair>,
    /// Its certificate, PEM.
    pub pem: String,
}

/// A leaf certificate and its key.
pub struct Leaf {
    /// The chain (leaf, then the CA), PEM.
    pub cert_pem: String,
    /// The private key, PEM (PKCS#8).
    pub key_pem: String,
    /// The leaf alone, DER: what a handshake presents first.
    pub der: Vec<u8>,
}

impl TestCa {
    /// A fresh CA.
    pub fn new() -> Self {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(DnType::CommonName, "snip test CA");
        let key = KeyPair::generate().unwrap();
        let cert = params.self_signed(&key).unwrap();
        Self {
            pem: cert.pem(),
            issuer: Issuer::new(params, key),
        }
    }

    /// A certificate for `localhost` and 127.0.0.1 with common name `cn`.
    pub fn leaf(&self, cn: &str) -> Leaf {
        self.leaf_for(&["localhost", "127.0.0.1"], cn)
    }

    /// A certificate for `names` with common name `cn`.
    pub fn leaf_for(&self, names: &[&str], cn: &str) -> Leaf {
        let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        let mut params = CertificateParams::new(names).unwrap();
        params.distinguished_name.push(DnType::CommonName, cn);
        let key = KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        Leaf {
            cert_pem: format!("{}{}", cert.pem(), self.pem),
            key_pem: key.serialize_pem(),
            der: cert.der().to_vec(),
        }
    }
}

/// Writes `contents` to `path` the way careful tools do: a temporary file renamed over it.
pub fn replace_file(path: &Path, contents: &str) {
    let tmp = path.with_extension("new");
    std::fs::write(&tmp, contents).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

/// Writes the leaf's chain and key as `cert.pem` and `key.pem` in `dir`.
pub fn write_pair(dir: &Path, leaf: &Leaf) -> (PathBuf, PathBuf) {
    let cert = dir.join("cert.pem");
    let key = dir.join("key.pem");
    replace_file(&cert, &leaf.cert_pem);
    replace_file(&key, &leaf.key_pem);
    (cert, key)
}

/// An HTTPS client that trusts only `ca_pem`, reports TLS details, and never follows redirects.
pub fn https_client(ca_pem: &str) -> reqwest::ClientBuilder {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .tls_certs_only([reqwest::Certificate::from_pem(ca_pem.as_bytes()).unwrap()])
        .tls_info(true)
        .redirect(reqwest::redirect::Policy::none())
}

/// The socket address in a `https://ADDR` base URL.
pub fn addr_of(url: &str) -> SocketAddr {
    url.split("://").nth(1).unwrap().parse().unwrap()
}

/// Opens a TLS connection to `addr` with server name `sni`, trusting only
/// `ca_pem`, offering `alpn`.
pub async fn connect(
    addr: SocketAddr,
    ca_pem: &str,
    sni: &str,
    alpn: &[&[u8]],
) -> std::io::Result<TlsStream<TcpStream>> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(ca_pem.as_bytes()) {
        roots.add(cert.unwrap()).unwrap();
    }
    let mut config = rustls::ClientConfig::builder()
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
    let tcp = TcpStream::connect(addr).await?;
    connector
        .connect(ServerName::try_from(sni.to_owned()).unwrap(), tcp)
        .await
}

/// The leaf certificate (DER) a new handshake with `addr` presents.
pub async fn served_leaf(addr: SocketAddr, ca_pem: &str) -> Vec<u8> {
    let stream = connect(addr, ca_pem, "localhost", &[b"http/1.1"])
        .await
        .unwrap();
    leaf_of(&stream)
}

/// The leaf certificate (DER) of an established connection.
pub fn leaf_of(stream: &TlsStream<TcpStream>) -> Vec<u8> {
    stream.get_ref().1.peer_certificates().unwrap()[0].to_vec()
}

/// Sends `GET path` over an HTTP/1.1 keep-alive connection and returns the
/// status and body (the server answers with Content-Length).
pub async fn get_on(stream: &mut TlsStream<TcpStream>, path: &str) -> (u16, String) {
    let request = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    super::http::read_response(stream).await
}
