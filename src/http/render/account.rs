//! The pages of signed-in browsers: sign-in with an API token, and "My
//! pastes" (a tenant's listing, or for an anonymous browser the pastes whose
//! delete tokens it keeps, which the script fills in); `templates/signin.html`,
//! `my_pastes.html` and `my_local.html`.
//!
//! The token is typed into a password field and posted once; it never
//! appears in a page, and the session cookie is `HttpOnly`, so no script of
//! any page can read either.

use askama::Template;

use super::i18n::Lang;
use super::layout::{Account, Instant, Layout, Page, render};
use crate::core::paste::{PasteMeta, Visibility};

/// Why the last sign-in attempt was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SigninRefusal {
    /// No such token, or it has been revoked.
    UnknownToken,
    /// The token has expired.
    Expired,
}

/// `templates/signin.html`.
#[derive(Template)]
#[template(path = "signin.html")]
struct SigninPage<'a> {
    layout: Layout<'a>,
    refusal: Option<SigninRefusal>,
    /// Where a successful sign-in goes.
    next: &'a str,
    /// `next`, URL-encoded for the identity provider link's query.
    next_query: String,
    /// Which ways of signing in the page offers.
    ways: SigninWays,
    /// After signing out a person who signed in through the provider: the
    /// provider's end-session URL, to sign out there too.
    provider_signout: Option<&'a str>,
}

/// Which ways of signing in the server offers.
#[derive(Clone, Copy, Debug)]
pub struct SigninWays {
    /// Through the identity provider (`--oidc-issuer`).
    pub provider: bool,
    /// With an API token (unless `--token-signin off`).
    pub token: bool,
}

/// The sign-in page; `refusal` says why the last attempt failed, `next` is
/// where a successful sign-in goes (already checked to be a local path).
pub fn signin(
    refusal: Option<SigninRefusal>,
    next: &str,
    ways: SigninWays,
    site: &str,
    lang: Lang,
) -> String {
    signin_page(refusal, next, ways, None, site, lang)
}

/// The sign-in page after signing out a person who signed in through the
/// provider, with a link to `provider_signout` (its end-session URL): a
/// link, since the pages' CSP (`form-action 'self'`) stops the sign-out
/// form's answer from sending the browser to another site.
pub fn signed_out(ways: SigninWays, provider_signout: &str, site: &str, lang: Lang) -> String {
    signin_page(None, "/my", ways, Some(provider_signout), site, lang)
}

fn signin_page(
    refusal: Option<SigninRefusal>,
    next: &str,
    ways: SigninWays,
    provider_signout: Option<&str>,
    site: &str,
    lang: Lang,
) -> String {
    let page = SigninPage {
        layout: Layout {
            page: Page::Signin,
            account: Account::Hidden,
            site,
            lang,
            here: "/signin".to_owned(),
        },
        refusal,
        next,
        next_query: form_urlencoded::byte_serialize(next.as_bytes()).collect(),
        ways,
        provider_signout,
    };
    render(&page, 4096)
}

/// `templates/my_pastes.html`.
#[derive(Template)]
#[template(path = "my_pastes.html")]
struct MyPastesPage<'a> {
    layout: Layout<'a>,
    pastes: &'a [PasteMeta],
    /// The search's words as typed, when the page shows a search's results.
    search: Option<&'a str>,
    /// The next page's query: the search's words and the cursor, URL-encoded.
    next_query: Option<String>,
    scope: Scope,
}

/// Which of a tenant's pastes "My pastes" lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The team's: all but other people's only-me pastes.
    Team,
    /// Only those the signed-in person created.
    Mine,
}

impl<'a> MyPastesPage<'a> {
    /// The table's rows.
    fn rows(&self) -> impl Iterator<Item = Row<'a>> + use<'a> {
        self.pastes.iter().map(|meta| Row {
            meta,
            created: Instant::new(meta.created_at),
            expires: meta.expires_at.map(Instant::new),
        })
    }
}

/// A paste in the table of "My pastes".
struct Row<'a> {
    meta: &'a PasteMeta,
    created: Instant,
    expires: Option<Instant>,
}

impl Row<'_> {
    /// The message naming the paste's visibility.
    fn visibility_message(&self) -> &'static str {
        match self.meta.visibility {
            Visibility::Unlisted => "visibility-unlisted",
            Visibility::Team => "visibility-team",
            Visibility::Me => "visibility-me",
        }
    }
}

/// A page of a signed-in tenant's pastes (`scope`), newest first, or with
/// `search` (the words as typed) the pastes matching it, best first; with a
/// link to the next page when there is one.
pub fn my_pastes(
    account: Account<'_>,
    site: &str,
    lang: Lang,
    pastes: &[PasteMeta],
    search: Option<&str>,
    next_cursor: Option<&str>,
    scope: Scope,
) -> String {
    let next_query = next_cursor.map(|cursor| {
        let mut query = form_urlencoded::Serializer::new(String::new());
        if let Some(search) = search {
            query.append_pair("q", search);
        }
        if scope == Scope::Mine {
            query.append_pair("scope", "mine");
        }
        query.append_pair("cursor", cursor).finish()
    });
    let page = MyPastesPage {
        layout: Layout {
            page: Page::My,
            account,
            site,
            lang,
            here: "/my".to_owned(),
        },
        pastes,
        search,
        next_query,
        scope,
    };
    render(&page, 4096 + pastes.len() * 512)
}

/// `templates/my_local.html`.
#[derive(Template)]
#[template(path = "my_local.html")]
struct MyLocalPage<'a> {
    layout: Layout<'a>,
}

/// "My pastes" of an anonymous browser: the script lists the pastes this
/// browser created from their remembered delete tokens.
pub fn my_local(account: Account<'_>, site: &str, lang: Lang) -> String {
    let page = MyLocalPage {
        layout: Layout {
            page: Page::My,
            account,
            site,
            lang,
            here: "/my".to_owned(),
        },
    };
    render(&page, 4096)
}
