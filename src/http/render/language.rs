//! Which language a page is in: the `lang` cookie the language menu sets
//! (`POST /lang`), else the best of the request's `Accept-Language` (RFC
//! 4647 filtering, as Fluent negotiates), else English. Pages so chosen say
//! `Vary: Accept-Language, Cookie`, so that no cache hands one reader's
//! language to another.

use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::Response;
use fluent_langneg::{NegotiationStrategy, negotiate_languages};
use unic_langid::LanguageIdentifier;

use super::i18n::{Lang, MENU};
use crate::http::context::session_cookie::cookie;

/// The cookie that remembers the language menu's choice.
pub const LANG_COOKIE: &str = "lang";

/// How long the choice is remembered: a year, in seconds.
const LANG_COOKIE_MAX_AGE: u64 = 365 * 24 * 3600;

/// The language of a page for a request with `headers`.
pub fn of_request(headers: &HeaderMap) -> Lang {
    if let Some(lang) = cookie(headers, LANG_COOKIE).and_then(Lang::from_tag) {
        return lang;
    }
    headers
        .get(header::ACCEPT_LANGUAGE)
        .and_then(|value| value.to_str().ok())
        .map_or(Lang::En, from_accept_language)
}

/// The best language of the menu for an `Accept-Language` value: its
/// ranges by `q` (highest first, `q=0` refused), each matched as Fluent's
/// filtering does (`pt` takes `pt-BR`, `de-AT` takes `de`).
pub fn from_accept_language(value: &str) -> Lang {
    let mut ranges: Vec<(f32, &str)> = value
        .split(',')
        .filter_map(|part| {
            let mut pieces = part.split(';');
            let range = pieces.next()?.trim();
            let q = pieces
                .find_map(|p| p.trim().strip_prefix("q="))
                .map_or(Some(1.0), |q| q.trim().parse::<f32>().ok())?;
            (q > 0.0 && !range.is_empty()).then_some((q, range))
        })
        .collect();
    // Stable: ranges of one q keep their order.
    ranges.sort_by(|a, b| b.0.total_cmp(&a.0));
    let requested: Vec<LanguageIdentifier> = ranges
        .iter()
        .filter_map(|(_, range)| range.parse().ok())
        .collect();
    let available: Vec<LanguageIdentifier> = MENU
        .iter()
        .filter_map(|lang| lang.tag().parse().ok())
        .collect();
    let default: LanguageIdentifier = Lang::En.tag().parse().unwrap_or_default();
    negotiate_languages(
        &requested,
        &available,
        Some(&default),
        NegotiationStrategy::Filtering,
    )
    .first()
    .and_then(|id| Lang::from_tag(&id.to_string()))
    .unwrap_or(Lang::En)
}

/// The `Set-Cookie` value that remembers `lang`.
pub fn set_lang_cookie(lang: Lang, secure: bool) -> String {
    format!(
        "{LANG_COOKIE}={}; Max-Age={LANG_COOKIE_MAX_AGE}; Path=/; SameSite=Lax{}",
        lang.tag(),
        if secure { "; Secure" } else { "" }
    )
}

/// Adds `Accept-Language, Cookie` to an HTML answer's `Vary` (any other
/// answer is left as it is).
pub fn vary_by_language(response: &mut Response) {
    let headers = response.headers_mut();
    let html = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"));
    if !html {
        return;
    }
    let vary = match headers.get(header::VARY).and_then(|v| v.to_str().ok()) {
        Some(other) => HeaderValue::from_str(&format!("{other}, Accept-Language, Cookie")).ok(),
        None => None,
    };
    headers.insert(
        header::VARY,
        vary.unwrap_or(HeaderValue::from_static("Accept-Language, Cookie")),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_language_picks_the_best_language_offered() {
        assert_eq!(from_accept_language("de-DE,de;q=0.9,en;q=0.8"), Lang::De);
        assert_eq!(from_accept_language("pt-BR"), Lang::PtBr);
        assert_eq!(from_accept_language("pt"), Lang::PtBr);
        assert_eq!(from_accept_language("zh"), Lang::ZhCn);
        assert_eq!(from_accept_language("de-AT"), Lang::De);
        assert_eq!(from_accept_language("zh-CN,zh;q=0.9"), Lang::ZhCn);
        assert_eq!(from_accept_language("ja;q=0.5, fr;q=0.9"), Lang::Fr);
        assert_eq!(from_accept_language("ar-EG"), Lang::Ar);
        assert_eq!(from_accept_language("nl, *;q=0.1"), Lang::En);
        assert_eq!(from_accept_language(""), Lang::En);
        assert_eq!(from_accept_language("en-XA"), Lang::En);
        assert_eq!(from_accept_language("de;q=0, fr"), Lang::Fr);
        assert_eq!(from_accept_language("de;q=nonsense, es"), Lang::Es);
    }

    #[test]
    fn the_cookie_beats_accept_language() {
        let mut headers = HeaderMap::new();
        headers.insert(header::ACCEPT_LANGUAGE, HeaderValue::from_static("de"));
        assert_eq!(of_request(&headers), Lang::De);
        headers.insert(header::COOKIE, HeaderValue::from_static("a=b; lang=ja"));
        assert_eq!(of_request(&headers), Lang::Ja);
        headers.insert(header::COOKIE, HeaderValue::from_static("lang=xx"));
        assert_eq!(of_request(&headers), Lang::De);
    }
}
