//! Who is calling: the [`Caller`] of a request (a tenant's token or
//! session, or anonymous), and what anonymous callers may do on this server
//! ([`AnonymousPolicy`]). The pipeline establishes the caller and leaves it
//! in the request's extensions; handlers and pages ask it.

use crate::core::tenant::{Authority, Person, Tenant};

/// What anonymous (token-less) clients may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum AnonymousPolicy {
    /// Create and read.
    #[default]
    Allowed,
    /// Read only.
    ReadOnly,
    /// Nothing: every paste route needs a token.
    Off,
}

/// The caller of a request, as the pipeline's authentication established it.
#[derive(Debug, Clone)]
#[allow(
    clippy::large_enum_variant,
    reason = "one caller per request, moved into its extensions; boxing would add an allocation to every authenticated request"
)]
pub enum Caller {
    /// No token.
    Anonymous,
    /// A person the identity provider signed in whose groups name no tenant
    /// of this server: their name, and an anonymous visitor's rights.
    Teamless {
        /// The person.
        person: Box<Person>,
    },
    /// A valid token of a tenant.
    Tenant {
        /// The tenant's current settings.
        tenant: Tenant,
        /// The token's public ID.
        token_id: String,
        /// Whether the token may only read.
        read_only: bool,
        /// The token and session that authorised the request: the store
        /// checks that they still hold when a write commits.
        authority: Authority,
        /// The person signed in through the identity provider, for a
        /// session opened that way (boxed: most callers have none, and the
        /// enum stays small).
        person: Option<Box<Person>>,
        /// The other tenants a session opened through the identity provider
        /// may switch to (the header's switcher); empty otherwise.
        teams: Vec<String>,
    },
}

impl Caller {
    /// The tenant's name, if any.
    pub fn tenant_name(&self) -> Option<&str> {
        match self {
            Self::Anonymous | Self::Teamless { .. } => None,
            Self::Tenant { tenant, .. } => Some(&tenant.name),
        }
    }

    /// The person behind a session opened through the identity provider.
    pub fn person(&self) -> Option<&Person> {
        match self {
            Self::Anonymous => None,
            Self::Teamless { person } => Some(person),
            Self::Tenant { person, .. } => person.as_deref(),
        }
    }

    /// What authorised a tenant's request (`None` for anonymous callers).
    pub fn authority(&self) -> Option<&Authority> {
        match self {
            Self::Anonymous | Self::Teamless { .. } => None,
            Self::Tenant { authority, .. } => Some(authority),
        }
    }

    /// Whether the caller has only an anonymous visitor's rights: no token,
    /// or a person in no tenant.
    pub fn is_anonymous(&self) -> bool {
        !matches!(self, Self::Tenant { .. })
    }

    /// Whether this caller owns pastes of `owner`.
    pub fn owns(&self, owner: Option<&str>) -> bool {
        owner.is_some() && self.tenant_name() == owner
    }
}
