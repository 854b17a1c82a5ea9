//! Tenants and their API tokens: the model shared by the stores, the HTTP
//! layer and the admin CLI.
//!
//! A token is shown once, at creation, as `snip_` followed by 40 hex digits;
//! stores keep only its SHA-256. Its public ID (`tok_` and the first 12 hex
//! digits of that hash) names it in listings and revocations without
//! revealing anything usable.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::paste::{UnixTime, hash_token};

/// A tenant: a team or user sharing the server, with its own limits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tenant {
    /// Unique name (`[a-z0-9_-]`, 1–64 characters).
    pub name: String,
    /// Creation time.
    pub created_at: UnixTime,
    /// Bytes of live pastes the tenant may keep (`None`: unlimited).
    pub max_bytes: Option<u64>,
    /// Largest single paste (`None`: the server's limit).
    pub max_paste_bytes: Option<u64>,
    /// Sustained request rate (`None`: the server's default for tenants).
    pub rate: Option<Rate>,
    /// Requests allowed in a burst above the rate (`None`: twice the rate).
    pub burst: Option<u32>,
    /// Its program, run on every paste it creates (the module is stored
    /// beside the tenant; this describes it). Boxed: most tenants have none,
    /// and every request's caller carries its tenant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<Box<ProgramInfo>>,
    /// Fuel for one run of its program (`None`: the server's default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program_fuel: Option<u64>,
    /// Memory for one run of its program, in bytes (`None`: the server's default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program_memory: Option<u64>,
    /// The identity provider's group whose members sign in to it (`None`:
    /// the group named like the tenant).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
}

/// The longest group name a tenant may accept, in bytes.
pub const MAX_GROUP_BYTES: usize = 256;

impl Tenant {
    /// The provider's group whose members sign in to this tenant.
    pub fn accepted_group(&self) -> &str {
        self.group.as_deref().unwrap_or(&self.name)
    }
}

/// A tenant's program as the tenant record describes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgramInfo {
    /// SHA-256 of the module, which names its compiled form.
    pub sha256: [u8; 32],
    /// The module's size in bytes.
    pub size: u64,
    /// When it was set.
    pub set_at: UnixTime,
}

/// Why a tenant or rate was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TenantError {
    /// The name has characters or a length outside the rules.
    #[error("a tenant name is 1 to 64 characters of a-z, 0-9, _ and -")]
    Name,
    /// The rate is not `N/s`, `N/m` or `N/h` with N ≥ 1.
    #[error("a rate looks like 50/s, 600/m or 1000/h, with 1 to 1000000 requests")]
    Rate,
    /// The token ID is not `tok_` and twelve hexadecimal digits.
    #[error("a token ID is tok_ followed by 12 characters of 0-9 and a-f")]
    TokenId,
}

/// Checks a tenant name.
pub fn validate_name(name: &str) -> Result<(), TenantError> {
    let ok = (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-');
    if ok { Ok(()) } else { Err(TenantError::Name) }
}

/// Checks the form of a token's public ID (see [`token_id`]).
pub fn validate_token_id(id: &str) -> Result<(), TenantError> {
    let ok = id.strip_prefix("tok_").is_some_and(|hex| {
        hex.len() == 12
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    });
    if ok {
        Ok(())
    } else {
        Err(TenantError::TokenId)
    }
}

/// A sustained request rate: `count` requests per `per`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rate {
    /// Requests allowed…
    pub count: u32,
    /// …per this many seconds.
    pub per_secs: u32,
}

/// The largest request count of a rate, and the largest burst: far above any
/// real limit, and small enough for every backend's integer columns (the
/// PostgreSQL store keeps them as 32-bit `int`).
pub const MAX_COUNT: u32 = 1_000_000;

impl Rate {
    /// Parses `50/s`, `600/m`, `1000/h`.
    pub fn parse(input: &str) -> Result<Self, TenantError> {
        let (count, unit) = input.trim().split_once('/').ok_or(TenantError::Rate)?;
        let count: u32 = count.trim().parse().map_err(|_| TenantError::Rate)?;
        let per_secs = match unit.trim() {
            "s" | "sec" | "second" => 1,
            "m" | "min" | "minute" => 60,
            "h" | "hour" => 3600,
            _ => return Err(TenantError::Rate),
        };
        if !(1..=MAX_COUNT).contains(&count) {
            return Err(TenantError::Rate);
        }
        Ok(Self { count, per_secs })
    }

    /// Time between two requests at this rate.
    pub fn interval(self) -> Duration {
        Duration::from_secs(u64::from(self.per_secs)) / self.count
    }
}

impl std::fmt::Display for Rate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let unit = match self.per_secs {
            1 => "s",
            60 => "m",
            _ => "h",
        };
        write!(f, "{}/{unit}", self.count)
    }
}

/// A stored token: everything but the secret itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenRecord {
    /// Public identifier, `tok_` + 12 hex digits of the hash.
    pub id: String,
    /// SHA-256 of the token.
    pub hash: [u8; 32],
    /// The tenant it acts for.
    pub tenant: String,
    /// May read and list, but not create or delete.
    pub read_only: bool,
    /// Creation time.
    pub created_at: UnixTime,
    /// After this the token is refused (`None`: never).
    pub expires_at: Option<UnixTime>,
}

impl TokenRecord {
    /// Makes a new secret token for `tenant`; returns the secret (shown once) and its record.
    pub fn generate(
        tenant: &str,
        read_only: bool,
        now: UnixTime,
        expires_at: Option<UnixTime>,
    ) -> Result<(String, Self), getrandom::Error> {
        let mut raw = [0u8; 20];
        getrandom::fill(&mut raw)?;
        let secret = format!("snip_{}", super::hex::encode(&raw));
        let hash = hash_token(&secret);
        let record = Self {
            id: token_id(&hash),
            hash,
            tenant: tenant.to_owned(),
            read_only,
            created_at: now,
            expires_at,
        };
        Ok((secret, record))
    }

    /// Whether the token is past its expiry at `now`.
    pub fn is_expired(&self, now: UnixTime) -> bool {
        self.expires_at.is_some_and(|t| t <= now)
    }
}

/// What starts a login credential (`snip login`): this prefix and the
/// secret of the session behind it, sent as a bearer token.
pub const LOGIN_PREFIX: &str = "snipl_";

/// How long a browser session lasts after sign-in.
pub const SESSION_SECS: u64 = 30 * 24 * 3600;

/// A browser session, as stored: never the cookie value itself, only its
/// hash, and the hash of the token it was opened with, so that every request
/// resolves that token as a bearer request would (a revoked or expired token,
/// or a deleted tenant, ends its sessions with no extra bookkeeping).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionRecord {
    /// SHA-256 of the cookie value.
    pub hash: [u8; 32],
    /// SHA-256 of the token the session was opened with; `None` for a
    /// person the identity provider signed in who belongs to no tenant
    /// (they have an anonymous visitor's rights).
    #[serde(default)]
    pub token_hash: Option<[u8; 32]>,
    /// Sign-in time.
    pub created_at: UnixTime,
    /// After this the session is refused.
    pub expires_at: UnixTime,
    /// The person signed in through the identity provider (`None` for a
    /// session opened with a token).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub person: Option<Person>,
    /// What the identity provider says of that person, for a session it
    /// opened: their groups, the tenants those let them act for, and how to
    /// ask again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<ProviderGrant>,
}

/// The most groups of a person that are looked at and kept
/// ([`ProviderGrant::groups`]).
pub const MAX_GROUPS: usize = 64;

/// What the identity provider said of a signed-in person, kept with their
/// session: the groups of its last answer, the tenants those groups let the
/// session switch to, and the refresh token that asks it again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProviderGrant {
    /// The values of the tenant claim, as the provider last said them.
    pub groups: Vec<String>,
    /// The tenants the groups allowed at sign-in, by name: the session's and
    /// those it may switch to.
    pub tenants: Vec<String>,
    /// The provider's refresh token, if it gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<RefreshToken>,
    /// When the provider was last asked (sign-in or re-check).
    pub checked_at: UnixTime,
}

impl ProviderGrant {
    /// Whether `tenant` (still) accepts one of the groups and was allowed at
    /// sign-in.
    pub fn admits(&self, tenant: &Tenant) -> bool {
        self.tenants.contains(&tenant.name)
            && self.groups.iter().any(|g| g == tenant.accepted_group())
    }
}

/// A refresh token of the identity provider: a secret, never shown in
/// `Debug` output (and so never in a log).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RefreshToken(pub String);

impl std::fmt::Debug for RefreshToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RefreshToken(hidden)")
    }
}

/// A person as the identity provider names them: the ID token's `sub`
/// (stable, unique at that provider) and a name to show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Person {
    /// The subject identifier (`sub`).
    pub subject: String,
    /// The display name (`name`, else `preferred_username`, else `sub`).
    pub name: String,
}

impl SessionRecord {
    /// Opens a session for the token whose hash is `token_hash`; returns the
    /// cookie value (32 random bytes, base64url) and its record.
    pub fn generate(
        token_hash: [u8; 32],
        now: UnixTime,
    ) -> Result<(String, Self), getrandom::Error> {
        use base64::Engine as _;
        let mut raw = [0u8; 32];
        getrandom::fill(&mut raw)?;
        let secret = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(raw);
        let record = Self {
            hash: hash_token(&secret),
            token_hash: Some(token_hash),
            created_at: now,
            expires_at: now + SESSION_SECS,
            person: None,
            provider: None,
        };
        Ok((secret, record))
    }

    /// Whether the session is past its expiry at `now`.
    pub fn is_expired(&self, now: UnixTime) -> bool {
        self.expires_at <= now
    }
}

/// What authorised a tenant's request: the hash of its token, and of the
/// browser session it came through, if it did. A write made on its strength
/// (a create, an owner's delete) is carried out only if both still exist
/// when it commits: the store checks them in the same step as the write, so
/// a revoked token, an ended session or a deleted tenant authorises nothing
/// from then on, and a tenant re-created under the same name (whose tokens
/// and sessions are all new) inherits no write begun for the old one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Authority {
    /// SHA-256 of the token (the session's token, for a browser).
    pub token_hash: [u8; 32],
    /// SHA-256 of the session cookie, for a browser's request.
    pub session_hash: Option<[u8; 32]>,
}

impl Authority {
    /// Whether `token` and `session`, as stored now, still authorise a
    /// write for `owner` at `now`: the token exists, acts for `owner` and
    /// has not expired, and so does the session, opened with that token.
    pub fn holds(
        &self,
        owner: &str,
        token: Option<&TokenRecord>,
        session: Option<&SessionRecord>,
        now: UnixTime,
    ) -> bool {
        let token_holds = token
            .is_some_and(|t| t.hash == self.token_hash && t.tenant == owner && !t.is_expired(now));
        let session_holds = match self.session_hash {
            None => true,
            Some(hash) => session.is_some_and(|s| {
                s.hash == hash && s.token_hash == Some(self.token_hash) && !s.is_expired(now)
            }),
        };
        token_holds && session_holds
    }
}

/// The public ID of a token hash.
pub fn token_id(hash: &[u8; 32]) -> String {
    format!("tok_{}", super::hex::encode(&hash[..6]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Generated token IDs pass the check; NUL, case and length do not.
    #[test]
    fn token_ids() {
        let (_, record) = TokenRecord::generate("team", false, 0, None).unwrap();
        assert!(validate_token_id(&record.id).is_ok());
        for bad in [
            "",
            "tok_",
            "tok_0123456789ab\0",
            "tok_0123456789AB",
            "abc_0123456789ab",
        ] {
            assert!(validate_token_id(bad).is_err(), "{bad:?}");
        }
    }

    /// Rates parse in the three units and refuse zero and garbage.
    #[test]
    fn rates() {
        assert_eq!(
            Rate::parse("50/s"),
            Ok(Rate {
                count: 50,
                per_secs: 1
            })
        );
        assert_eq!(
            Rate::parse("600/m").unwrap().interval(),
            Duration::from_millis(100)
        );
        assert_eq!(Rate::parse("10/h").unwrap().to_string(), "10/h");
        for bad in ["", "50", "0/s", "x/s", "5/d", "-1/s"] {
            assert_eq!(Rate::parse(bad), Err(TenantError::Rate), "{bad}");
        }
    }

    /// Tenant names are a restricted, URL-safe alphabet.
    #[test]
    fn names() {
        assert!(validate_name("team-a_1").is_ok());
        for bad in ["", "Team", "a b", "a/b", &"x".repeat(65)] {
            assert_eq!(validate_name(bad), Err(TenantError::Name), "{bad}");
        }
    }

    /// An authority holds while its token acts for the owner and has not
    /// expired, and its session, if any, is the one opened with that token
    /// and has not expired.
    #[test]
    fn authorities() {
        let (_, token) = TokenRecord::generate("team", false, 0, Some(10)).unwrap();
        let (_, session) = SessionRecord::generate(token.hash, 0).unwrap();
        let (_, other) = TokenRecord::generate("team", false, 0, None).unwrap();
        let bearer = Authority {
            token_hash: token.hash,
            session_hash: None,
        };
        let browser = Authority {
            session_hash: Some(session.hash),
            ..bearer
        };
        assert!(bearer.holds("team", Some(&token), None, 9));
        assert!(!bearer.holds("team", Some(&token), None, 10), "expired");
        assert!(
            !bearer.holds("other", Some(&token), None, 9),
            "another tenant"
        );
        assert!(!bearer.holds("team", None, None, 9), "revoked");
        assert!(
            !bearer.holds("team", Some(&other), None, 9),
            "another token"
        );
        assert!(browser.holds("team", Some(&token), Some(&session), 9));
        assert!(!browser.holds("team", Some(&token), None, 9), "signed out");
        let (_, foreign) = SessionRecord::generate(other.hash, 0).unwrap();
        assert!(!browser.holds("team", Some(&token), Some(&foreign), 9));
    }

    /// Generated tokens are unique, prefixed, and their record holds only the hash.
    #[test]
    fn tokens() {
        let (a, ra) = TokenRecord::generate("t", false, 0, None).unwrap();
        let (b, rb) = TokenRecord::generate("t", true, 0, Some(5)).unwrap();
        assert_ne!(a, b);
        assert!(a.starts_with("snip_") && a.len() == 45);
        assert_eq!(ra.hash, hash_token(&a));
        assert!(ra.id.starts_with("tok_") && ra.id.len() == 16);
        assert!(rb.is_expired(5) && !rb.is_expired(4) && !ra.is_expired(u64::MAX));
    }
}
