//! `GET /` and `GET /new`: the new-paste form for browsers, a usage text for
//! everyone else. The form knows the browser's session: a signed-in tenant
//! may choose visibility, and where anonymous browsers may not create, the
//! page offers sign-in instead of the form.

use axum::Extension;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{Html, IntoResponse, Response};

use crate::core::Ttl;
use crate::http::context::Origin;
use crate::http::context::{AnonymousPolicy, Caller};
use crate::http::credentials;
use crate::http::handlers::my::ended;
use crate::http::handlers::session::is_secure;
use crate::http::render::language;
use crate::http::render::layout::Account;
use crate::http::render::negotiate::{Accepts, accepts, vary_by_accept};
use crate::http::render::pages::{self, Lifetime, TtlChoice};
use crate::http::state::SharedState;

/// `GET /` and `GET /new`: the new-paste form for browsers, usage for everyone else.
pub async fn form(
    State(state): State<SharedState>,
    Extension(origin): Extension<Origin>,
    headers: HeaderMap,
) -> Response {
    if accepts(&headers) == Accepts::Html {
        let secure = is_secure(&state, &origin);
        let caller = match credentials::page_caller(&state, &headers, secure).await {
            Ok(caller) => caller,
            Err(e) => return ended(e, secure),
        };
        let (choices, default) = ttl_choices(&state);
        let may_create = match &caller {
            Caller::Tenant { read_only, .. } => !read_only,
            Caller::Anonymous | Caller::Teamless { .. } => {
                state.auth.anonymous == AnonymousPolicy::Allowed
            }
        };
        let account = Account::of(&caller);
        let mut response = Html(pages::new_paste(&pages::NewPasteOptions {
            ttl_choices: &choices,
            default_ttl: &default,
            max_paste_bytes: state.limits.max_paste_bytes,
            account,
            site: &state.site.name,
            may_create,
            lang: language::of_request(&headers),
        }))
        .into_response();
        response
            .headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
        return vary_by_accept(response);
    }
    let url = state.base_url(&origin);
    let usage = format!(
        "snip: a pastebin\n\n\
         create:  cat file | curl --data-binary @- {url}/\n\
         options: {url}/?ttl=1h&burn=true&lang=rust&name=main.rs\n\
         read:    curl {url}/ID\n\
         delete:  curl -X DELETE -H 'X-Delete-Token: TOKEN' {url}/ID\n"
    );
    vary_by_accept(usage.into_response())
}

/// The lifetimes the form offers (the server's choices, all allowed), and
/// the one preselected: the server's default, added in its place by length
/// if it is not among the choices.
fn ttl_choices(state: &SharedState) -> (Vec<TtlChoice>, String) {
    let limits = &state.limits;
    let mut lifetimes = limits.ttl_choices.clone();
    if !lifetimes.contains(&limits.default_ttl) {
        lifetimes.push(limits.default_ttl);
    }
    lifetimes.sort();
    lifetimes.dedup();
    let choices = lifetimes
        .into_iter()
        .map(|ttl| TtlChoice {
            value: ttl.to_string(),
            lifetime: match ttl {
                Ttl::Never => Lifetime::Never,
                Ttl::After(d) => lifetime_of(d.as_secs()),
            },
        })
        .collect();
    (choices, limits.default_ttl.to_string())
}

/// `3 days`, `90 minutes`, `1 week`, `1 year` (365 days): a lifetime in its
/// largest whole unit.
fn lifetime_of(secs: u64) -> Lifetime {
    let whole = |size: u64| secs.is_multiple_of(size).then_some(secs / size);
    if let Some(n) = whole(31_536_000) {
        Lifetime::Years(n)
    } else if let Some(n) = whole(604_800) {
        Lifetime::Weeks(n)
    } else if let Some(n) = whole(86_400) {
        Lifetime::Days(n)
    } else if let Some(n) = whole(3_600) {
        Lifetime::Hours(n)
    } else if let Some(n) = whole(60) {
        Lifetime::Minutes(n)
    } else {
        Lifetime::Seconds(secs)
    }
}
