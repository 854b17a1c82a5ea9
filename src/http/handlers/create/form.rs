//! `GET /` and `GET /new`: the new-paste form for browsers, a usage text for
//! everyone else. The form knows the browser's session: a signed-in tenant
//! may choose visibility, and where anonymous browsers may not create, the
//! page offers sign-in instead of the form.

use axum::Extension;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{Html, IntoResponse, Response};

use super::options::resolve_ttl;
use crate::core::Ttl;
use crate::http::context::AnonymousPolicy;
use crate::http::context::Origin;
use crate::http::credentials;
use crate::http::handlers::my::ended;
use crate::http::handlers::session::is_secure;
use crate::http::render::negotiate::{Accepts, accepts, vary_by_accept};
use crate::http::render::pages::{self, Account};
use crate::http::state::SharedState;

/// `GET /` and `GET /new`: the new-paste form for browsers, usage for everyone else.
pub async fn form(
    State(state): State<SharedState>,
    Extension(origin): Extension<Origin>,
    headers: HeaderMap,
) -> Response {
    if accepts(&headers) == Accepts::Html {
        let secure = is_secure(&state, &origin);
        let tenant = match credentials::page_tenant(&state, &headers, secure).await {
            Ok(tenant) => tenant,
            Err(e) => return ended(e, secure),
        };
        let (choices, default) = ttl_choices(&state);
        let (account, may_create) = match &tenant {
            Some((tenant, read_only)) => (Account::SignedIn(&tenant.name), !read_only),
            None => (
                Account::SignedOut,
                state.auth.anonymous == AnonymousPolicy::Allowed,
            ),
        };
        let mut response = Html(pages::new_paste(&pages::NewPasteOptions {
            ttl_choices: &choices,
            default_ttl: &default,
            max_paste_bytes: state.limits.max_paste_bytes,
            account,
            may_create,
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

/// The lifetimes the form offers (those the server allows), and the one
/// preselected: the server's default, added to the list if it is not a
/// standard choice.
fn ttl_choices(state: &SharedState) -> (Vec<(String, String)>, String) {
    let all = [
        ("10m", "10 minutes"),
        ("1h", "1 hour"),
        ("1d", "1 day"),
        ("1w", "1 week"),
        ("30d", "30 days"),
        ("365d", "1 year"),
        ("never", "Never"),
    ];
    let mut choices: Vec<(String, String)> = all
        .into_iter()
        .filter(|(value, _)| {
            Ttl::parse(value).is_ok_and(|ttl| resolve_ttl(Some(ttl), &state.limits).is_ok())
        })
        .map(|(value, label)| (value.to_owned(), label.to_owned()))
        .collect();
    let default = state.limits.default_ttl;
    let found = choices
        .iter()
        .find(|(value, _)| Ttl::parse(value).is_ok_and(|ttl| ttl == default))
        .map(|(value, _)| value.clone());
    let default_value = match (found, default) {
        (Some(value), _) => value,
        (None, Ttl::Never) => "never".to_owned(),
        (None, Ttl::After(d)) => {
            let value = d.as_secs().to_string();
            let label = ttl_label(d.as_secs());
            let at = choices
                .iter()
                .position(|(v, _)| {
                    matches!(Ttl::parse(v), Ok(Ttl::After(c)) if c > d) || v == "never"
                })
                .unwrap_or(choices.len());
            choices.insert(at, (value.clone(), label));
            value
        }
    };
    (choices, default_value)
}

/// `3 days`, `90 minutes`, `1 week`: a lifetime in its largest whole unit.
fn ttl_label(secs: u64) -> String {
    let (n, unit) = [
        (604_800, "week"),
        (86_400, "day"),
        (3_600, "hour"),
        (60, "minute"),
    ]
    .into_iter()
    .find(|(size, _)| secs.is_multiple_of(*size))
    .map_or((secs, "second"), |(size, unit)| (secs / size, unit));
    if n == 1 {
        format!("1 {unit}")
    } else {
        format!("{n} {unit}s")
    }
}
