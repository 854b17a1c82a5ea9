//! `GET /my`: "My pastes". A signed-in tenant's pastes (a person sees
//! their own only-me pastes and the team's others; `?scope=mine` only
//! their own), a page at a time through the listing's cursor, or with `q`
//! those matching a search (the page's search box, a GET form); for an
//! anonymous browser, a page its script fills from the delete tokens it
//! remembers.

use axum::Extension;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{Html, IntoResponse, Response};

use super::session::{clear_cookie, is_secure};
use crate::core::paste;
use crate::core::search::Terms;
use crate::http::api_error::ApiError;
use crate::http::context::{Caller, Origin};
use crate::http::credentials;
use crate::http::render::account::{self, Scope};
use crate::http::render::language;
use crate::http::render::layout::Account;
use crate::http::state::SharedState;
use crate::store::{ListQuery, SearchQuery};

/// Pastes per page.
const PAGE: usize = 50;

/// `GET /my`.
pub async fn my(
    State(state): State<SharedState>,
    Extension(origin): Extension<Origin>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Response {
    let secure = is_secure(&state, &origin);
    let caller = match credentials::page_caller(&state, &headers, secure).await {
        Ok(caller) => caller,
        Err(e) => return ended(e, secure),
    };
    let Caller::Tenant { tenant, .. } = &caller else {
        return html(account::my_local(
            Account::of(&caller),
            &state.site.name,
            language::of_request(&headers),
        ));
    };
    let mut query = ListQuery {
        limit: PAGE,
        viewer: caller.person().map(|p| p.subject.clone()),
        ..ListQuery::default()
    };
    let mut search = None;
    for (key, value) in form_urlencoded::parse(raw.as_deref().unwrap_or("").as_bytes()) {
        match key.as_ref() {
            "cursor" => query.cursor = Some(value.into_owned()),
            // Without a person, "mine" is nothing: the team's page is shown.
            "scope" => query.mine = value == "mine" && query.viewer.is_some(),
            // An empty box asks for the listing.
            "q" => search = Some(value.into_owned()).filter(|q| !q.trim().is_empty()),
            _ => {}
        }
    }
    let scope = if query.mine { Scope::Mine } else { Scope::Team };
    let listed = match &search {
        Some(text) => match Terms::parse(text) {
            Ok(terms) => {
                let search = SearchQuery {
                    terms,
                    cursor: query.cursor,
                    limit: PAGE,
                    viewer: query.viewer,
                    mine: query.mine,
                };
                state
                    .searches
                    .run(state.store.search(&tenant.name, &search, paste::now()))
                    .await
            }
            Err(e) => return ApiError::bad_request(e.to_string()).into_response(),
        },
        None => state.store.list(&tenant.name, &query, paste::now()).await,
    };
    match listed {
        Ok(page) => html(account::my_pastes(
            Account::of(&caller),
            &state.site.name,
            language::of_request(&headers),
            &page.pastes,
            search.as_deref(),
            page.next_cursor.as_deref(),
            scope,
        )),
        Err(e) => ApiError::from(e).into_response(),
    }
}

/// The answer to a page request whose session has ended: `401`, and the
/// stale cookie removed so the next page is an anonymous one.
pub fn ended(error: ApiError, secure: bool) -> Response {
    let mut response = error.into_response();
    if let Ok(cookie) = HeaderValue::from_str(&clear_cookie(secure)) {
        response.headers_mut().insert(header::SET_COOKIE, cookie);
    }
    response
}

fn html(page: String) -> Response {
    let mut response = Html(page).into_response();
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, no-store"),
    );
    response
}
