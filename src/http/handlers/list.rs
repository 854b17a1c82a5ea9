//! `GET /api/pastes`: the caller's tenant's pastes, newest first, paginated
//! by cursor: all but other people's only-me pastes, or with `scope=mine`
//! only those the calling person authored; with `q`, those matching a
//! search, best first (`store::search`).

use axum::extract::{RawQuery, State};
use axum::{Extension, Json};

use crate::core::api::{PasteInfo, PastePage};
use crate::core::paste;
use crate::core::search::Terms;
use crate::http::api_error::ApiError;
use crate::http::context::Caller;
use crate::http::state::SharedState;
use crate::store::{ListQuery, SearchQuery};

/// Default and largest page sizes.
const DEFAULT_LIMIT: usize = 50;
const MAX_LIMIT: usize = 500;

/// Lists the calling tenant's pastes, or with `q` searches them. Query:
/// `limit` (1–500), `cursor`, `name_prefix` or `q`, and `scope` (`team`,
/// the default, or `mine`).
pub async fn list(
    State(state): State<SharedState>,
    Extension(caller): Extension<Caller>,
    RawQuery(raw): RawQuery,
) -> Result<Json<PastePage>, ApiError> {
    let owner = caller.tenant_name().ok_or_else(|| {
        ApiError::unauthorized("listing needs a tenant token: Authorization: Bearer TOKEN")
    })?;
    let (mut query, search) = parse_query(raw.as_deref())?;
    query.viewer = caller.person().map(|p| p.subject.clone());
    if query.mine && query.viewer.is_none() {
        return Err(ApiError::bad_request(
            "scope=mine needs a person signed in through the identity provider: a token alone authors nothing",
        ));
    }
    let page = match search {
        Some(terms) => {
            let search = SearchQuery {
                terms,
                cursor: query.cursor,
                limit: query.limit,
                viewer: query.viewer,
                mine: query.mine,
            };
            state
                .searches
                .run(state.store.search(owner, &search, paste::now()))
                .await?
        }
        None => state.store.list(owner, &query, paste::now()).await?,
    };
    Ok(Json(PastePage {
        pastes: page.pastes.into_iter().map(PasteInfo::from).collect(),
        next_cursor: page.next_cursor,
    }))
}

/// The listing's query, and the search's words if it has a `q`.
fn parse_query(raw: Option<&str>) -> Result<(ListQuery, Option<Terms>), ApiError> {
    let mut query = ListQuery {
        limit: DEFAULT_LIMIT,
        ..ListQuery::default()
    };
    let mut search = None;
    for (key, value) in form_urlencoded::parse(raw.unwrap_or("").as_bytes()) {
        match key.as_ref() {
            "limit" => {
                query.limit = value
                    .parse()
                    .ok()
                    .filter(|n| (1..=MAX_LIMIT).contains(n))
                    .ok_or_else(|| {
                        ApiError::bad_request(format!(
                            "limit must be a number from 1 to {MAX_LIMIT}"
                        ))
                    })?;
            }
            "cursor" => query.cursor = Some(value.into_owned()).filter(|c| !c.is_empty()),
            "name_prefix" => {
                // Names are checked the same way when a paste is created, so
                // such a prefix could match nothing; PostgreSQL would also
                // refuse a NUL in a text parameter, which would be a 500.
                if !paste::is_name_text(&value) {
                    return Err(ApiError::bad_request(
                        "name_prefix must be at most 255 bytes without control or invisible format characters (such as U+202E)",
                    ));
                }
                query.name_prefix = Some(value.into_owned()).filter(|p| !p.is_empty());
            }
            "scope" => {
                query.mine = match value.as_ref() {
                    "team" => false,
                    "mine" => true,
                    _ => return Err(ApiError::bad_request("scope must be team or mine")),
                };
            }
            "q" if value.is_empty() => search = None,
            "q" => {
                search =
                    Some(Terms::parse(&value).map_err(|e| ApiError::bad_request(e.to_string()))?);
            }
            other => {
                let shown: String = other.chars().take(40).collect();
                return Err(ApiError::bad_request(format!(
                    "unknown parameter {shown:?}; known: limit, cursor, name_prefix, q, scope"
                )));
            }
        }
    }
    if search.is_some() && query.name_prefix.is_some() {
        return Err(ApiError::bad_request(
            "q and name_prefix cannot be combined: a search ranks by the words of names already",
        ));
    }
    Ok((query, search))
}
