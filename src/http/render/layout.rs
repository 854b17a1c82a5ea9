//! What every page shares: the layout's data (`templates/base.html`: which
//! script behaviour the page gets, who the header says is signed in), the
//! instants pages show, and rendering a page into one pre-sized `String`.
//!
//! Pages are askama templates in `templates/`, compiled into the binary and
//! checked at compile time: every value a template shows is HTML-escaped
//! unless the template marks it `|safe`, and none does. A page's struct
//! carries data (a paste's metadata, an enum saying which message to show),
//! never prose: every word a person reads is a message of the page's
//! language ([`super::i18n`]), which the templates name.

use askama::Template;

use super::i18n::Lang;
use crate::core::paste;
use crate::http::context::Caller;

/// Which script behaviour a page gets (`<body data-page>`).
#[derive(Clone, Copy)]
pub enum Page {
    View,
    New,
    Error,
    Signin,
    My,
}

impl Page {
    /// The value of `<body data-page>`, which `web/src/app.js` reads.
    pub fn name(self) -> &'static str {
        match self {
            Self::View => "view",
            Self::New => "new",
            Self::Error => "error",
            Self::Signin => "signin",
            Self::My => "my",
        }
    }
}

/// Who the header says is signed in.
#[derive(Clone, Copy)]
pub enum Account<'a> {
    /// Only what fits any caller, the "My pastes" link (error pages, which
    /// do not know the caller, and the sign-in page).
    Hidden,
    /// No session: a "Sign in" link.
    SignedOut,
    /// A session of this tenant: its name and a "Sign out" button.
    SignedIn(&'a str),
    /// A person signed in through the identity provider, acting for a
    /// tenant: both names and a "Sign out" button.
    Person {
        /// The person's display name.
        name: &'a str,
        /// The tenant they act for.
        tenant: &'a str,
        /// The other tenants their groups let them switch to.
        teams: &'a [String],
    },
    /// A person signed in through the identity provider who belongs to no
    /// tenant: their name, and that they have an anonymous visitor's rights.
    Teamless(&'a str),
}

impl<'a> Account<'a> {
    /// The header's account of a request by `caller`.
    pub fn of(caller: &'a Caller) -> Self {
        match caller {
            Caller::Tenant {
                tenant,
                person: Some(person),
                teams,
                ..
            } => Self::Person {
                name: &person.name,
                tenant: &tenant.name,
                teams,
            },
            Caller::Tenant { tenant, .. } => Self::SignedIn(&tenant.name),
            Caller::Teamless { person } => Self::Teamless(&person.name),
            Caller::Anonymous => Self::SignedOut,
        }
    }

    /// Whether a tenant is signed in.
    pub fn is_signed_in(&self) -> bool {
        matches!(self, Self::SignedIn(_) | Self::Person { .. })
    }

    /// Whether a person in no tenant is signed in.
    pub fn is_teamless(&self) -> bool {
        matches!(self, Self::Teamless(_))
    }

    /// Whether a person is signed in (who may author only-me pastes).
    pub fn is_person(&self) -> bool {
        matches!(self, Self::Person { .. })
    }
}

/// What `templates/base.html` needs of every page: each page's struct has
/// it as its `layout` field.
pub struct Layout<'a> {
    pub page: Page,
    pub account: Account<'a>,
    /// The instance's name (`--title`): the end of every page's title and
    /// the header's brand.
    pub site: &'a str,
    /// The page's language.
    pub lang: Lang,
    /// The page's own path, where the language menu sends the browser back.
    pub here: String,
}

impl Layout<'_> {
    /// The message `id` in the page's language.
    pub fn t<'i>(&self, id: &'i str) -> std::borrow::Cow<'i, str> {
        self.lang.t(id)
    }
}

/// An instant a page shows (`templates/macros.html`'s `time`): in UTC, to
/// the minute; the script shows it in local time.
pub struct Instant {
    /// RFC 3339, to the second: `2026-11-23T09:35:47Z`.
    iso: String,
}

impl Instant {
    pub fn new(t: paste::UnixTime) -> Self {
        Self {
            iso: paste::rfc3339(t),
        }
    }

    /// The machine-readable instant (`<time datetime>`).
    pub fn iso(&self) -> &str {
        &self.iso
    }

    /// Its day: `2026-11-23`.
    pub fn date(&self) -> &str {
        self.iso.get(..10).unwrap_or(&self.iso)
    }

    /// Its minute: `09:35`.
    pub fn minute(&self) -> &str {
        self.iso.get(11..16).unwrap_or("")
    }
}

/// Renders `page` into a `String` of `capacity` bytes to start with (a
/// page's usual size, so that it is written without growing).
///
/// Rendering into a `String` cannot fail in practice: a `String` takes any
/// write, and no value or filter these templates use returns an error.
/// Were one to, the page would end where it failed, and the failure is logged.
pub fn render(page: &impl Template, capacity: usize) -> String {
    let mut out = String::with_capacity(capacity);
    if let Err(e) = page.render_into(&mut out) {
        tracing::error!(error = %e, "cannot render a page");
    }
    out
}
