//! Embedding pastes in other sites: `GET /embed/{id}`, the embed view
//! ([`crate::http::render::embed`]), the one page any site may frame; and
//! `GET /oembed`, which tells an oEmbed consumer (a blog engine, a chat
//! program) the `<iframe>` that embeds a paste's URL.
//!
//! Only pastes [`preview::shareable`] are embedded: a burn, encrypted or
//! private paste, or a short link, is `404` here whoever asks, its owner
//! too. A request's parameters are checked before any lookup.

use std::sync::Arc;

use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use bytes::Bytes;

use super::read::{self, PasteRead, ROBOTS};
use crate::core::PasteId;
use crate::core::paste::PasteMeta;
use crate::http::api_error::{ApiError, ErrorCode};
use crate::http::context::{Caller, Origin};
use crate::http::render::embed::{self, EmbedQuery, LineRange};
use crate::http::render::language;
use crate::http::render::preview;
use crate::http::render::security_headers::EMBED_CSP;
use crate::http::state::SharedState;
use crate::store::Opened;

/// The refusal of a paste that exists but is never embedded, or of none.
fn not_embeddable() -> ApiError {
    ApiError::not_found_because(
        "no paste to embed has this ID (burn-after-reading, encrypted and private pastes \
         and short links are never embedded)",
    )
}

/// A [`preview::shareable`] paste's metadata and the first bytes of its
/// body the embed shows, or `404`.
async fn embeddable(
    state: &SharedState,
    caller: &Caller,
    id: &PasteId,
) -> Result<(Arc<PasteMeta>, Bytes), ApiError> {
    let Opened { meta, body } = read::load(state, caller, id).await?;
    if !preview::shareable(&meta) {
        return Err(not_embeddable());
    }
    let shown = read::shown_prefix(&meta, body).await?;
    Ok((meta, shown))
}

/// `GET /embed/{id}`: the embed view, `?lines=N-M`, `?theme=light|dark|auto`,
/// `?file=NAME`; framable by any site.
pub async fn embed(
    State(state): State<SharedState>,
    read: PasteRead,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let query = EmbedQuery::parse(query.as_deref().unwrap_or(""))?;
    let (meta, shown) = embeddable(&state, &read.caller, &read.id).await?;
    let lang = language::of_request(&headers);
    let page = embed::page(&meta, &shown, &query, &state.site.name, lang)?;
    let mut response = Html(page).into_response();
    let headers = response.headers_mut();
    // Every security header but X-Frame-Options: with both of these set,
    // the finishing layer adds none.
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(EMBED_CSP),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(ROBOTS, HeaderValue::from_static("noindex"));
    Ok(response)
}

/// The width of an embed when the consumer sets no `maxwidth`, in CSS pixels.
const WIDTH: u32 = 720;
/// The tallest embed when the consumer sets no `maxheight`: longer pastes scroll.
const MAX_HEIGHT: u32 = 600;
/// How tall a line of the embed is, in CSS pixels (`pre.code`'s
/// line-height; its title bar and margins are counted as lines).
const LINE_HEIGHT: u32 = 24;
/// The most pixels `maxwidth` and `maxheight` may say.
const MAX_PIXELS: u32 = 100_000;

/// What an oEmbed request asks for.
struct OembedQuery {
    url: String,
    max_width: Option<u32>,
    max_height: Option<u32>,
}

impl OembedQuery {
    /// Parses `/oembed`'s query: `url` (required), `format` (`json`, the
    /// default; another is `501`, as the oEmbed spec says), `maxwidth`,
    /// `maxheight`.
    fn parse(query: &str) -> Result<Self, ApiError> {
        let mut url = None;
        let mut max_width = None;
        let mut max_height = None;
        for (key, value) in form_urlencoded::parse(query.as_bytes()) {
            let slot = match key.as_ref() {
                "url" => &mut url,
                "format" => {
                    if value != "json" {
                        return Err(ApiError::new(
                            StatusCode::NOT_IMPLEMENTED,
                            ErrorCode::FormatNotImplemented,
                            "format: this server answers oEmbed requests in json only",
                        ));
                    }
                    continue;
                }
                "maxwidth" => {
                    max_width = Some(pixels("maxwidth", &value)?);
                    continue;
                }
                "maxheight" => {
                    max_height = Some(pixels("maxheight", &value)?);
                    continue;
                }
                _ => continue,
            };
            *slot = Some(value.into_owned());
        }
        let url = url
            .filter(|url| !url.is_empty())
            .ok_or_else(|| ApiError::bad_request("url is required: the URL of a paste"))?;
        Ok(Self {
            url,
            max_width,
            max_height,
        })
    }
}

/// A `maxwidth` or `maxheight`: a whole number of pixels, 1 to [`MAX_PIXELS`].
fn pixels(name: &str, value: &str) -> Result<u32, ApiError> {
    value
        .parse::<u32>()
        .ok()
        .filter(|n| (1..=MAX_PIXELS).contains(n))
        .ok_or_else(|| {
            ApiError::bad_request(format!(
                "{name} must be a whole number of pixels from 1 to {MAX_PIXELS}"
            ))
        })
}

/// What a paste URL of this server names: the paste, and what to embed of it.
fn embedded_by(url: &str, base_url: &str) -> Result<(PasteId, EmbedQuery), ApiError> {
    let foreign = || {
        ApiError::not_found_because(format!(
            "url is no paste of this server: paste URLs are {base_url}/ID"
        ))
    };
    let rest = url
        .get(..base_url.len())
        .filter(|head| head.eq_ignore_ascii_case(base_url))
        .map(|_| &url[base_url.len()..])
        .ok_or_else(foreign)?;
    let (rest, fragment) = rest.split_once('#').unwrap_or((rest, ""));
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    let (id, query) = match path.strip_prefix("/embed/") {
        // The embed's own URL, with what it asks for.
        Some(id) => (id, EmbedQuery::parse(query)?),
        // A page's URL; `#L10-L40` names lines.
        None => {
            let id = path.strip_prefix('/').ok_or_else(foreign)?;
            let lines = fragment
                .strip_prefix('L')
                .map(|lines| lines.replacen("-L", "-", 1))
                .and_then(|lines| LineRange::parse(&lines));
            (
                id,
                EmbedQuery {
                    lines,
                    ..EmbedQuery::default()
                },
            )
        }
    };
    let id = PasteId::parse(id).map_err(|_| foreign())?;
    Ok((id, query))
}

/// The oEmbed answer (`type` `rich`).
#[derive(serde::Serialize)]
struct Oembed {
    version: &'static str,
    #[serde(rename = "type")]
    kind: &'static str,
    html: String,
    width: u32,
    height: u32,
    title: String,
    provider_name: String,
    provider_url: String,
    cache_age: u32,
}

/// `templates/oembed.html`: the `<iframe>` of an oEmbed answer.
#[derive(askama::Template)]
#[template(path = "oembed.html")]
struct Iframe<'a> {
    src: &'a str,
    width: u32,
    height: u32,
    title: &'a str,
}

/// `GET /oembed?url=…&format=json&maxwidth=…&maxheight=…`: the `<iframe>`
/// that embeds the paste at `url`, sized to its lines within the bounds.
pub async fn oembed(
    State(state): State<SharedState>,
    axum::Extension(caller): axum::Extension<Caller>,
    axum::Extension(origin): axum::Extension<Origin>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let query = OembedQuery::parse(query.as_deref().unwrap_or(""))?;
    let base_url = state.base_url(&origin);
    let (id, embed_query) = embedded_by(&query.url, &base_url)?;
    let (meta, shown) = embeddable(&state, &caller, &id).await?;
    let lines = embed::shown_lines(&meta, &shown, &embed_query)?;
    let width = query.max_width.map_or(WIDTH, |max| max.min(WIDTH));
    let tall = u32::try_from(lines + 1)
        .unwrap_or(u32::MAX)
        .saturating_mul(LINE_HEIGHT);
    let height = tall.min(query.max_height.unwrap_or(MAX_HEIGHT));
    let title = preview::title(&meta, &shown);
    let embed_query = embed_query.to_query();
    let src = match embed_query.is_empty() {
        true => format!("{base_url}/embed/{}", meta.id),
        false => format!("{base_url}/embed/{}?{embed_query}", meta.id),
    };
    let html = crate::http::render::layout::render(
        &Iframe {
            src: &src,
            width,
            height,
            title: &title,
        },
        256,
    );
    let answer = Oembed {
        version: "1.0",
        kind: "rich",
        html,
        width,
        height,
        title,
        provider_name: state.site.name.clone(),
        provider_url: format!("{base_url}/"),
        cache_age: 3600,
    };
    let mut response = axum::Json(answer).into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paste_urls_of_this_server_only() {
        let id = PasteId::generate(12).unwrap();
        let base = "https://paste.example.com";
        let url = |path: &str| format!("{base}{path}");
        let (found, query) = embedded_by(&url(&format!("/{id}")), base).unwrap();
        assert_eq!(
            (found.as_str(), query),
            (id.as_str(), EmbedQuery::default())
        );
        let (_, query) = embedded_by(&url(&format!("/{id}#L3-L9")), base).unwrap();
        assert_eq!(query.lines, Some(LineRange { first: 3, last: 9 }));
        let (_, query) = embedded_by(&url(&format!("/embed/{id}?theme=dark")), base).unwrap();
        assert_eq!(query.theme, embed::Theme::Dark);
        for bad in [
            format!("https://evil.example.com/{id}"),
            format!("{base}.evil.example/{id}"),
            format!("{base}/raw/{id}"),
            format!("{base}/nope"),
            base.to_owned(),
        ] {
            assert!(embedded_by(&bad, base).is_err(), "{bad}");
        }
        assert_eq!(
            embedded_by(&url(&format!("/embed/{id}?theme=x")), base)
                .unwrap_err()
                .status,
            StatusCode::BAD_REQUEST
        );
    }
}
