//! The options of a new paste, from the query string or the form's fields,
//! checked and typed ([`CreateOptions`]), and the lifetime policy
//! ([`resolve_ttl`]).

use axum::http::HeaderMap;

use crate::core::Ttl;
use crate::core::envelope;
use crate::core::paste::{self, Visibility};
use crate::http::api_error::ApiError;
use crate::http::state::Limits;

/// Options a creator can set, from the query string or form fields.
#[derive(Debug, Default)]
pub struct CreateOptions {
    /// How long the paste lives; `None` for the server's default.
    pub ttl: Option<Ttl>,
    /// Whether the first read destroys it.
    pub burn: bool,
    /// The language it is highlighted as.
    pub lang: Option<String>,
    /// Its file name.
    pub name: Option<String>,
    /// Whether the client sealed it in an envelope.
    pub encrypted: bool,
    /// Who may read it.
    pub visibility: Visibility,
    /// A short link's target.
    pub url: Option<String>,
    /// The verifier of an encrypted paste's proof of key (`docs/envelope.md`).
    pub verifier: Option<[u8; 32]>,
}

impl CreateOptions {
    /// Sets the option `key` (a query parameter or form field) to `value`.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), ApiError> {
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
            "verifier" => {
                self.verifier = Some(
                    envelope::parse_verifier(value.trim())
                        .map_err(|e| ApiError::bad_request(format!("verifier must be {e}")))?,
                )
            }
            other => {
                let shown: String = other.chars().take(40).collect();
                return Err(ApiError::bad_request(format!(
                    "unknown parameter {shown:?}; known: ttl, burn, lang, name, encrypted, visibility, url, verifier"
                )));
            }
        }
        Ok(())
    }

    /// Sets the option of a form field: the options of [`Self::set`], and
    /// the fields of rustypaste's forms: `oneshot_url` (a burn short link,
    /// which snip refuses as it refuses `burn` with `url`), and `remote`,
    /// refused: the server never fetches a URL a client names.
    pub fn set_field(&mut self, key: &str, value: &str) -> Result<(), ApiError> {
        match key {
            "oneshot_url" => {
                self.burn = true;
                self.set("url", value)
            }
            "remote" => Err(ApiError::bad_request(
                "this server does not fetch remote URLs (remote=…): download the file and upload it",
            )),
            _ => self.set(key, value),
        }
    }

    /// The options of a query string and of the headers that rustypaste's
    /// clients send: `expire` (a TTL, as `ttl=`) and `filename` (as
    /// `name=`). The query's options win over the headers'.
    pub fn from_request(query: Option<&str>, headers: &HeaderMap) -> Result<Self, ApiError> {
        let mut options = Self::default();
        for (header, key) in [("expire", "ttl"), ("filename", "name")] {
            if let Some(value) = headers.get(header) {
                let value = value.to_str().map_err(|_| {
                    ApiError::bad_request(format!("the {header} header must be text"))
                })?;
                let value = match header {
                    "expire" => expire_seconds(value)?,
                    _ => value.to_owned(),
                };
                options.set(key, &value).map_err(|e| {
                    ApiError::bad_request(format!("the {header} header: {}", e.message))
                })?;
            }
        }
        for (key, value) in form_urlencoded::parse(query.unwrap_or("").as_bytes()) {
            options.set(&key, &value)?;
        }
        Ok(options)
    }
}

/// rustypaste's `expire` header in seconds: its clients send a duration as
/// rustypaste reads it (`10min`, `1h 30m`, `2days`: the `humantime` grammar),
/// not snip's `ttl` grammar.
fn expire_seconds(value: &str) -> Result<String, ApiError> {
    humantime::parse_duration(value.trim())
        .map(|duration| duration.as_secs().to_string())
        .map_err(|e| ApiError::bad_request(format!("the expire header: {e}")))
}

/// The trimmed value, unless it is empty.
pub fn non_empty(value: &str) -> Option<&str> {
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
    Visibility::parse(value.trim()).ok_or_else(|| {
        ApiError::bad_request("visibility must be unlisted, team (or private) or me")
    })
}

/// Longest target a short link may have.
const MAX_URL_LEN: usize = 2048;

/// Accepts only absolute `http`/`https` URLs with a host and without
/// userinfo, so a short link can never point at `javascript:`, `data:` or a
/// local file, nor carry a password or disguise its host
/// (`https://paste.example.com@evil.example/`).
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
    if !url.username().is_empty() || url.password().is_some() {
        return Err(ApiError::bad_request(
            "url must not contain a user name or password (user:password@ before the host)",
        ));
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

/// A file name: the last path component, without control or format characters.
pub fn validate_name(name: &str) -> Result<String, ApiError> {
    // Keep only the last path component: a name is a file name, never a path.
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    if base.is_empty() || base == "." || base == ".." || !paste::is_name_text(base) {
        return Err(ApiError::bad_request(
            "name must be a file name of at most 255 bytes without control or invisible format characters (such as U+202E)",
        ));
    }
    Ok(base.to_owned())
}

/// The lifetime of a paste that asks for `requested`: the server's default
/// when it asks for none, refused beyond the server's longest.
pub fn resolve_ttl(requested: Option<Ttl>, limits: &Limits) -> Result<Ttl, ApiError> {
    let ttl = requested.unwrap_or(limits.default_ttl);
    match (ttl, limits.max_ttl) {
        (_, Ttl::Never) => Ok(ttl),
        (Ttl::After(asked), Ttl::After(max)) if asked <= max => Ok(ttl),
        (_, max) => Err(ApiError::bad_request(format!(
            "ttl must be at most {max} on this server"
        ))),
    }
}

/// Property tests of the create options in a query string (form fields go
/// through the same [`CreateOptions::set`]); `bench/fuzz` runs them long.
#[cfg(test)]
mod fuzz {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// Any query string sets options or is refused with a 400, never a
        /// panic; a name that is accepted passes its own check again.
        #[test]
        fn fuzz_create_options(query in prop_oneof![
            "\\PC{0,80}",
            "((ttl|burn|lang|name|encrypted|visibility|url|x)=[a-zA-Z0-9%._/:-]{0,20}&?){0,5}",
        ]) {
            match CreateOptions::from_request(Some(&query), &HeaderMap::new()) {
                Ok(options) => {
                    if let Some(name) = &options.name {
                        prop_assert!(validate_name(name).is_ok());
                    }
                }
                Err(e) => prop_assert_eq!(e.status, axum::http::StatusCode::BAD_REQUEST),
            }
        }
    }
}
