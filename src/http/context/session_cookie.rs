//! The browser session cookie: its two names (plain HTTP and HTTPS), reading
//! it from a request, and the `Set-Cookie` values that set and clear it;
//! likewise the short-lived cookie that carries a sign-in through an
//! identity provider from its start to its callback.

use axum::http::{HeaderMap, header};

/// The name of the browser session cookie over plain HTTP.
pub const SESSION_COOKIE: &str = "snip_session";

/// Its name over HTTPS. A browser keeps a `__Host-` cookie only if it is
/// `Secure`, has `Path=/` and no `Domain`, so no other host (a sibling
/// subdomain, or a plain-HTTP page on the same name) can set one and plant
/// its own session in the browser. Browsers refuse the prefix without
/// `Secure`, which plain HTTP cannot have, hence two names.
pub const SECURE_SESSION_COOKIE: &str = "__Host-snip_session";

/// The session cookie's name over HTTPS (`secure`) or plain HTTP.
pub fn session_cookie_name(secure: bool) -> &'static str {
    if secure {
        SECURE_SESSION_COOKIE
    } else {
        SESSION_COOKIE
    }
}

/// The value of the session cookie a request over HTTPS (`secure`) or plain
/// HTTP carries, if any. Over HTTPS only the `__Host-` name counts: a plain
/// one may have been planted by another host.
pub fn session_cookie(headers: &HeaderMap, secure: bool) -> Option<&str> {
    cookie(headers, session_cookie_name(secure))
}

/// Whether a request carries a session cookie of either name (it then needs
/// the store to be decided).
pub fn carries_session_cookie(headers: &HeaderMap) -> bool {
    cookie(headers, SESSION_COOKIE).is_some() || cookie(headers, SECURE_SESSION_COOKIE).is_some()
}

/// The non-empty value of the cookie called `name`.
pub(crate) fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(found, _)| *found == name)
        .map(|(_, value)| value.trim())
        .filter(|value| !value.is_empty())
}

/// The `Set-Cookie` value that sets the session cookie to `secret` for `max_age` seconds.
pub fn set_session_cookie(secret: &str, max_age: u64, secure: bool) -> String {
    format!(
        "{}={secret}; Max-Age={max_age}; Path=/; HttpOnly; SameSite=Lax{}",
        session_cookie_name(secure),
        if secure { "; Secure" } else { "" }
    )
}

/// The `Set-Cookie` value that removes the session cookie.
pub fn clear_session_cookie(secure: bool) -> String {
    set_session_cookie("", 0, secure)
}

/// The name of the cookie that carries a sign-in through the identity
/// provider over plain HTTP (and [`SECURE_SIGNIN_COOKIE`] over HTTPS).
pub const SIGNIN_COOKIE: &str = "snip_signin";

/// Its name over HTTPS, with the `__Host-` prefix for the same reason as the
/// session's.
pub const SECURE_SIGNIN_COOKIE: &str = "__Host-snip_signin";

/// How long a sign-in through the provider may take, in seconds.
pub const SIGNIN_SECS: u64 = 600;

/// The sign-in cookie a request carries, if any.
pub fn signin_cookie(headers: &HeaderMap, secure: bool) -> Option<&str> {
    cookie(
        headers,
        if secure {
            SECURE_SIGNIN_COOKIE
        } else {
            SIGNIN_COOKIE
        },
    )
}

/// The `Set-Cookie` value that sets the sign-in cookie to `value` (or, with
/// an empty value, removes it). `SameSite=Lax`: the provider sends the
/// browser back with a top-level navigation from its own site.
pub fn set_signin_cookie(value: &str, secure: bool) -> String {
    let (name, secure_attr) = if secure {
        (SECURE_SIGNIN_COOKIE, "; Secure")
    } else {
        (SIGNIN_COOKIE, "")
    };
    let max_age = if value.is_empty() { 0 } else { SIGNIN_SECS };
    format!("{name}={value}; Max-Age={max_age}; Path=/; HttpOnly; SameSite=Lax{secure_attr}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::context::test_headers as headers;

    /// The session cookie is found among others and in any `Cookie` header;
    /// an empty value or a look-alike name is no session. Over HTTPS only
    /// the `__Host-` name counts, over plain HTTP only the plain one.
    #[test]
    fn finds_the_session_cookie() {
        let two = headers(&[
            ("cookie", "theme=dark"),
            (
                "cookie",
                "a=1; snip_session=abc ; __Host-snip_session=def; b=2",
            ),
        ]);
        assert_eq!(session_cookie(&two, false), Some("abc"));
        assert_eq!(session_cookie(&two, true), Some("def"));
        for none in [
            "snip_session=",
            "snip_session_x=abc",
            "xsnip_session=abc",
            "__host-snip_session=abc",
            "theme=dark",
        ] {
            for secure in [false, true] {
                assert_eq!(
                    session_cookie(&headers(&[("cookie", none)]), secure),
                    None,
                    "{none}"
                );
            }
        }
        let planted = headers(&[("cookie", "snip_session=planted")]);
        assert_eq!(session_cookie(&planted, true), None);
        assert!(carries_session_cookie(&planted));
        assert_eq!(session_cookie(&HeaderMap::new(), false), None);
    }
}
