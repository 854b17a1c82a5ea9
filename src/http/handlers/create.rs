//! `POST /`: create a paste from a raw body or a multipart form; `GET /`: the form.

use std::borrow::Cow;
use std::time::Duration;

use axum::Extension;
use axum::body::Body;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use bytes::Bytes;
use http_body_util::{BodyExt, LengthLimitError, Limited};

use crate::core::api::{Created, DELETE_TOKEN_HEADER};
use crate::core::paste::{self, PasteMeta, Visibility};
use crate::core::random::OsRandom;
use crate::core::{PasteId, Ttl};
use crate::http::errors::ApiError;
use crate::http::pipeline::caller::Caller;
use crate::http::pipeline::forwarded::Origin;
use crate::http::render::negotiate::{Accepts, accepts};
use crate::http::render::pages;
use crate::http::state::SharedState;
use crate::store::{PutLimits, StoreError};

/// The header that carries the new paste's delete token.
const X_DELETE_TOKEN: HeaderName = HeaderName::from_static(DELETE_TOKEN_HEADER);

/// Options a creator can set, from the query string or form fields.
#[derive(Debug, Default)]
struct CreateOptions {
    ttl: Option<Ttl>,
    burn: bool,
    lang: Option<String>,
    name: Option<String>,
    encrypted: bool,
    visibility: Visibility,
    /// A short link's target.
    url: Option<String>,
}

impl CreateOptions {
    fn set(&mut self, key: &str, value: &str) -> Result<(), ApiError> {
        match key {
            "ttl" => {
                self.ttl =
                    Some(Ttl::parse(value).map_err(|e| ApiError::bad_request(e.to_string()))?)
            }
            "burn" => self.burn = parse_bool(key, value)?,
            "encrypted" => self.encrypted = parse_bool(key, value)?,
            "lang" => self.lang = non_empty(value).map(validate_lang).transpose()?,
            "name" => self.name = non_empty(value).map(validate_name).transpose()?,
            "visibility" => self.visibility = parse_visibility(value)?,
            "url" => self.url = Some(validate_url(value)?),
            other => {
                let shown: String = other.chars().take(40).collect();
                return Err(ApiError::bad_request(format!(
                    "unknown parameter {shown:?}; known: ttl, burn, lang, name, encrypted, visibility, url"
                )));
            }
        }
        Ok(())
    }

    fn from_query(query: Option<&str>) -> Result<Self, ApiError> {
        let mut options = Self::default();
        for (key, value) in form_urlencoded::parse(query.unwrap_or("").as_bytes()) {
            options.set(&key, &value)?;
        }
        Ok(options)
    }
}

fn non_empty(value: &str) -> Option<&str> {
    Some(value.trim()).filter(|v| !v.is_empty())
}

fn parse_bool(key: &str, value: &str) -> Result<bool, ApiError> {
    match value.trim().to_ascii_lowercase().as_str() {
        "" | "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(ApiError::bad_request(format!(
            "{key} must be true or false"
        ))),
    }
}

fn parse_visibility(value: &str) -> Result<Visibility, ApiError> {
    match value.trim() {
        "unlisted" => Ok(Visibility::Unlisted),
        "private" => Ok(Visibility::Private),
        _ => Err(ApiError::bad_request(
            "visibility must be unlisted or private",
        )),
    }
}

/// Longest target a short link may have.
const MAX_URL_LEN: usize = 2048;

/// Accepts only absolute `http`/`https` URLs with a host, so a short link can
/// never point at `javascript:`, `data:` or a local file.
fn validate_url(value: &str) -> Result<String, ApiError> {
    let refuse = || {
        ApiError::bad_request(format!(
            "url must be an absolute http or https URL of at most {MAX_URL_LEN} bytes"
        ))
    };
    let value = value.trim();
    if value.len() > MAX_URL_LEN {
        return Err(refuse());
    }
    let url = reqwest::Url::parse(value).map_err(|_| refuse())?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none_or(str::is_empty) {
        return Err(refuse());
    }
    Ok(url.to_string())
}

fn validate_lang(lang: &str) -> Result<String, ApiError> {
    let ok = lang.len() <= 40
        && lang
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+#._-".contains(&b));
    if ok {
        Ok(lang.to_ascii_lowercase())
    } else {
        Err(ApiError::bad_request(
            "lang must be a language name of at most 40 letters, digits or + # . _ -",
        ))
    }
}

fn validate_name(name: &str) -> Result<String, ApiError> {
    // Keep only the last path component: a name is a file name, never a path.
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    if base.is_empty() || base == "." || base == ".." || !paste::is_name_text(base) {
        return Err(ApiError::bad_request(
            "name must be a file name of at most 255 bytes without control characters",
        ));
    }
    Ok(base.to_owned())
}

/// What a paste's body and form fields came to.
struct Upload {
    options: CreateOptions,
    body: Bytes,
    /// The media type a multipart file part declared.
    declared_type: Option<String>,
}

impl Upload {
    /// For `url=…`: checks the combination and makes the target the body.
    fn into_short_link(mut self) -> Result<Self, ApiError> {
        let Some(url) = &self.options.url else {
            return Ok(self);
        };
        if !self.body.is_empty() {
            return Err(ApiError::bad_request("a short link (url=…) takes no body"));
        }
        if self.options.burn || self.options.encrypted {
            return Err(ApiError::bad_request(
                "a short link cannot be burn-after-reading or encrypted",
            ));
        }
        self.body = Bytes::from(url.clone());
        Ok(self)
    }
}

/// `POST /`: store the body (or the form's `file`/`content` part) as a new paste.
pub async fn create(
    State(state): State<SharedState>,
    Extension(caller): Extension<Caller>,
    Extension(origin): Extension<Origin>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, Response> {
    let upload = read_upload(&state, &caller, query.as_deref(), &headers, body)
        .await
        .map_err(closing)?;
    let (meta, token) = store_paste(&state, &caller, upload)
        .await
        .map_err(IntoResponse::into_response)?;
    let base = state.base_url(&origin);
    Ok(created_response(&base, &meta, &token, accepts(&headers)))
}

/// An error answered before the request body was read to its end: the client
/// may still be sending it, so the connection cannot carry another request.
/// hyper then drains the rest or closes the connection, depending on timing;
/// without `Connection: close` a client would reuse the connection and its
/// next request could fail with a connection error instead of an answer.
fn closing(error: ApiError) -> Response {
    let mut response = error.into_response();
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// Checks the caller and the request, and reads the paste and its options from the body.
async fn read_upload(
    state: &SharedState,
    caller: &Caller,
    query: Option<&str>,
    headers: &HeaderMap,
    body: Body,
) -> Result<Upload, ApiError> {
    caller.check_can_write(state.auth.anonymous)?;
    let options = CreateOptions::from_query(query)?;
    check_encoding(headers)?;
    let limit = match caller {
        Caller::Tenant { tenant, .. } => tenant
            .max_paste_bytes
            .unwrap_or(state.limits.max_paste_bytes),
        Caller::Anonymous => state.limits.max_paste_bytes,
    };
    let boundary = multipart_boundary(headers)?;
    let allowed = match boundary {
        Some(_) => limit.saturating_add(MULTIPART_OVERHEAD),
        None => limit,
    };
    if content_length(headers).is_some_and(|length| length > allowed) {
        return Err(ApiError::too_large(limit));
    }
    let timeout = state.limits.body_timeout;
    let upload = match boundary {
        Some(boundary) => {
            with_timeout(timeout, read_multipart(body, boundary, options, limit)).await?
        }
        None => Upload {
            options,
            body: with_timeout(timeout, read_raw(body, limit)).await?,
            declared_type: None,
        },
    };
    let upload = upload.into_short_link()?;
    if upload.body.is_empty() {
        return Err(ApiError::bad_request("the paste is empty"));
    }
    if upload.body.len() as u64 > limit {
        return Err(ApiError::too_large(limit));
    }
    Ok(upload)
}

/// Room for multipart boundaries and headers on top of the paste size limit.
const MULTIPART_OVERHEAD: u64 = 64 * 1024;

fn content_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .parse()
        .ok()
}

fn check_encoding(headers: &HeaderMap) -> Result<(), ApiError> {
    match headers
        .get(header::CONTENT_ENCODING)
        .map(|v| v.to_str().unwrap_or("?"))
    {
        None | Some("identity") => Ok(()),
        Some(other) => Err(ApiError::unsupported(format!(
            "Content-Encoding {:?} is not supported; send the paste uncompressed",
            other.chars().take(40).collect::<String>()
        ))),
    }
}

/// The boundary of a `multipart/form-data` body; `None` for any other (raw) body.
fn multipart_boundary(headers: &HeaderMap) -> Result<Option<String>, ApiError> {
    let Some(content_type) = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
    else {
        return Ok(None);
    };
    let essence = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    if essence == "multipart/form-data" {
        multer::parse_boundary(content_type)
            .map(Some)
            .map_err(|_| ApiError::bad_request("multipart/form-data without a boundary"))
    } else if essence.starts_with("multipart/") {
        Err(ApiError::unsupported(format!(
            "{essence} is not supported; send the paste as the raw body or as multipart/form-data"
        )))
    } else {
        // Every other type, including curl's default application/x-www-form-urlencoded,
        // is the paste itself, byte for byte.
        Ok(None)
    }
}

async fn with_timeout<T>(
    limit: Duration,
    work: impl Future<Output = Result<T, ApiError>>,
) -> Result<T, ApiError> {
    tokio::time::timeout(limit, work)
        .await
        .unwrap_or_else(|_| Err(ApiError::timeout(limit.as_secs())))
}

/// Reads a raw body, refusing it as soon as it passes `limit` (memory stays bounded).
async fn read_raw(body: Body, limit: u64) -> Result<Bytes, ApiError> {
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    match Limited::new(body, limit).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) if e.downcast_ref::<LengthLimitError>().is_some() => {
            Err(ApiError::too_large(limit as u64))
        }
        Err(e) => Err(ApiError::bad_request(format!(
            "could not read the request body: {e}"
        ))),
    }
}

async fn read_multipart(
    body: Body,
    boundary: String,
    mut options: CreateOptions,
    limit: u64,
) -> Result<Upload, ApiError> {
    let constraints = multer::Constraints::new().size_limit(
        multer::SizeLimit::new()
            .whole_stream(limit.saturating_add(MULTIPART_OVERHEAD))
            .per_field(limit),
    );
    let mut form =
        multer::Multipart::with_constraints(body.into_data_stream(), boundary, constraints);
    let mut content = None;
    let mut declared_type = None;
    while let Some(field) = form
        .next_field()
        .await
        .map_err(|e| multipart_error(e, limit))?
    {
        let key = field.name().unwrap_or("").to_owned();
        match key.as_str() {
            "file" | "content" => {
                if content.is_some() {
                    return Err(ApiError::bad_request(
                        "the form has more than one file or content part",
                    ));
                }
                let file_name = field.file_name().and_then(non_empty);
                if let Some(file_name) =
                    file_name.filter(|_| key == "file" && options.name.is_none())
                {
                    options.name = Some(validate_name(file_name)?);
                }
                declared_type = field.content_type().map(|m| m.essence_str().to_owned());
                content = Some(field.bytes().await.map_err(|e| multipart_error(e, limit))?);
            }
            _ => {
                let value = field.text().await.map_err(|e| multipart_error(e, limit))?;
                options.set(&key, &value)?;
            }
        }
    }
    let body =
        content.ok_or_else(|| ApiError::bad_request("the form has no file or content part"))?;
    Ok(Upload {
        options,
        body,
        declared_type,
    })
}

fn multipart_error(e: multer::Error, limit: u64) -> ApiError {
    match e {
        multer::Error::FieldSizeExceeded { .. } | multer::Error::StreamSizeExceeded { .. } => {
            ApiError::too_large(limit)
        }
        other => ApiError::bad_request(format!("malformed multipart body: {other}")),
    }
}

fn resolve_ttl(requested: Option<Ttl>, state: &SharedState) -> Result<Ttl, ApiError> {
    let ttl = requested.unwrap_or(state.limits.default_ttl);
    match (ttl, state.limits.max_ttl) {
        (_, Ttl::Never) => Ok(ttl),
        (Ttl::After(asked), Ttl::After(max)) if asked <= max => Ok(ttl),
        (_, max) => Err(ApiError::bad_request(format!(
            "ttl must be at most {max} on this server"
        ))),
    }
}

async fn store_paste(
    state: &SharedState,
    caller: &Caller,
    upload: Upload,
) -> Result<(PasteMeta, String), ApiError> {
    let Upload {
        options,
        body,
        declared_type,
    } = upload;
    let ttl = resolve_ttl(options.ttl, state)?;
    let owner = caller.tenant_name().map(str::to_owned);
    if options.visibility == Visibility::Private && owner.is_none() {
        return Err(ApiError::bad_request("private pastes need a tenant token"));
    }
    let limits = PutLimits {
        owner_max_bytes: match caller {
            Caller::Tenant { tenant, .. } => tenant.max_bytes,
            Caller::Anonymous => None,
        },
    };
    // The token and the first ID share 64 bytes of this thread's OS randomness.
    let mut random = OsRandom::new().map_err(|_| ApiError::internal())?;
    let token = paste::generate_token(&mut random).map_err(|_| ApiError::internal())?;
    let now = paste::now();
    let content_type = if options.encrypted {
        paste::OCTET_STREAM.to_owned()
    } else {
        paste::content_type_for(options.name.as_deref(), declared_type.as_deref(), &body)
    };
    let mut meta = PasteMeta {
        id: String::new(),
        created_at: now,
        expires_at: ttl.expires_at(now),
        burn: options.burn,
        encrypted: options.encrypted,
        lang: options.lang,
        name: options.name,
        content_type,
        size: body.len() as u64,
        delete_token_hash: paste::hash_token(&token),
        owner,
        visibility: options.visibility,
        redirect: options.url,
    };
    // A collision needs ~2^29 pastes at the default length; retrying is enough.
    for _ in 0..4 {
        meta.id = PasteId::generate_from(state.limits.id_length, &mut random)
            .map_err(|_| ApiError::internal())?
            .to_string();
        match state.store.put(meta.clone(), body.clone(), limits).await {
            Ok(()) => return Ok((meta, token)),
            Err(StoreError::IdTaken) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    tracing::error!("four random paste IDs in a row were taken; is --id-length too small?");
    Err(ApiError::internal())
}

fn created_response(base: &str, meta: &PasteMeta, token: &str, wants: Accepts) -> Response {
    // `concat`, not `format!`: every create builds these, and the formatting
    // machinery costs several times a plain copy.
    let url = [base, "/", &meta.id].concat();
    let mut response = match wants {
        // A browser's plain form post: go and look at the new paste.
        Accepts::Html => (
            StatusCode::SEE_OTHER,
            [(header::LOCATION, format!("/{}", meta.id))],
        )
            .into_response(),
        Accepts::Json => {
            let created = Created {
                id: Cow::Borrowed(&meta.id),
                url: Cow::Borrowed(&url),
                raw_url: Cow::Owned(format!("{base}/raw/{}", meta.id)),
                delete_token: Cow::Borrowed(token),
                expires_at: meta.expires_at.map(paste::rfc3339),
                burn: meta.burn,
                size: meta.size,
            };
            (StatusCode::CREATED, axum::Json(created)).into_response()
        }
        Accepts::Other => (StatusCode::CREATED, [&url, "\n"].concat()).into_response(),
    };
    let headers = response.headers_mut();
    if let Some(location) = HeaderValue::from_str(&url)
        .ok()
        .filter(|_| wants != Accepts::Html)
    {
        headers.insert(header::LOCATION, location);
    }
    if let Ok(token) = HeaderValue::from_str(token) {
        headers.insert(X_DELETE_TOKEN, token);
    }
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// `GET /` and `GET /new`: the new-paste form for browsers, usage for everyone else.
pub async fn form(
    State(state): State<SharedState>,
    Extension(origin): Extension<Origin>,
    headers: HeaderMap,
) -> Response {
    if accepts(&headers) == Accepts::Html {
        let (choices, default) = ttl_choices(&state);
        let mut response = Html(pages::new_paste(&pages::NewPasteOptions {
            ttl_choices: &choices,
            default_ttl: &default,
            max_paste_bytes: state.limits.max_paste_bytes,
        }))
        .into_response();
        response
            .headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
        return response;
    }
    let url = state.base_url(&origin);
    format!(
        "snip: a pastebin\n\n\
         create:  cat file | curl --data-binary @- {url}/\n\
         options: {url}/?ttl=1h&burn=true&lang=rust&name=main.rs\n\
         read:    curl {url}/ID\n\
         delete:  curl -X DELETE -H 'X-Delete-Token: TOKEN' {url}/ID\n"
    )
    .into_response()
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
            Ttl::parse(value).is_ok_and(|ttl| resolve_ttl(Some(ttl), state).is_ok())
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
