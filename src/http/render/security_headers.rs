//! The security headers every answer carries: the CSP of pages and of raw
//! paste bytes, and the headers that stop sniffing, referrers and framing.
//! The finishing layer adds them to every answer; the raw answers set their
//! own CSP, and the embed view its own and no `X-Frame-Options`, so that
//! other sites may frame it and no other page.

use axum::http::{HeaderName, HeaderValue, header};

/// The CSP of HTML pages: nothing but snip's own scripts, styles, images and
/// API, no inline script or style, no eval, no framing; `blob:` only for
/// media decrypted or revealed in the browser. Trusted Types make any
/// `innerHTML` from a plain string throw: snip's policy (`snip`) is used
/// only for highlight.js output and markup built from escaped text, and
/// DOMPurify's (`dompurify`) only to parse rendered Markdown into an inert
/// document, which it sanitises before anything is shown.
pub const PAGE_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self' blob:; media-src 'self' blob:; connect-src 'self'; \
     form-action 'self'; frame-ancestors 'none'; base-uri 'none'; \
     require-trusted-types-for 'script'; trusted-types snip dompurify";

/// The CSP of the embed view (`/embed/{id}`): the pages' CSP, but any site
/// may frame it, and it posts no form.
pub const EMBED_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self'; connect-src 'self'; form-action 'none'; frame-ancestors *; \
     base-uri 'none'; require-trusted-types-for 'script'; trusted-types snip";

/// The CSP of raw paste bytes: nothing may load or run, and the document is sandboxed.
pub const RAW_CSP: &str = "default-src 'none'; sandbox";

/// The security headers of every response, with their values unless the
/// handler set its own (the raw answers' CSP). A handler that sets
/// `X-Content-Type-Options` sets them all (the finishing layer then adds none).
///
/// Values made in a constant: `HeaderValue::from_static` checks every byte
/// when it runs, and the page CSP is long and added to every answer.
pub const SECURITY_HEADERS: [(HeaderName, HeaderValue); 4] = [
    (
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(PAGE_CSP),
    ),
    (
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    ),
    (
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    ),
    (header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY")),
];
