//! Where a request comes from: the client's address and the scheme and host
//! it asked for, as the pipeline decided them (behind trusted proxies) and
//! left in the request's extensions for authentication, rate limits,
//! handlers and the log line.

use std::borrow::Cow;
use std::net::IpAddr;

/// The scheme a client used to reach the outermost trusted proxy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    /// Plain HTTP.
    Http,
    /// HTTP over TLS.
    Https,
}

impl Scheme {
    /// The scheme named by a forwarding header's value, if it is one.
    pub fn parse(value: &str) -> Option<Self> {
        let value = value.trim();
        if value.eq_ignore_ascii_case("https") {
            Some(Self::Https)
        } else if value.eq_ignore_ascii_case("http") {
            Some(Self::Http)
        } else {
            None
        }
    }

    /// The scheme as a URL spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Http => "http",
            Self::Https => "https",
        }
    }
}

/// Where a request comes from and how it reached the server, as the
/// pipeline decided it behind trusted proxies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The client's address: the peer, or the hop where the trusted chain ends.
    pub client: IpAddr,
    /// The scheme the client used, when a trusted proxy said.
    pub scheme: Option<Scheme>,
    /// The host (and port) the client asked for, when a trusted proxy passed it.
    pub host: Option<String>,
}

impl Origin {
    /// The base of printed URLs for this request: `default` (`--public-url` or
    /// the listen address) with the scheme and host a trusted proxy reported.
    pub fn base_url<'a>(&self, default: &'a str) -> Cow<'a, str> {
        if self.scheme.is_none() && self.host.is_none() {
            return Cow::Borrowed(default);
        }
        let (default_scheme, default_host) = default.split_once("://").unwrap_or(("http", default));
        let scheme = self.scheme.map_or(default_scheme, |s| s.as_str());
        let host = self.host.as_deref().unwrap_or(default_host);
        Cow::Owned(format!("{scheme}://{host}"))
    }
}
