//! Server-rendered HTML pages: the paste view, the burn interstitial, the
//! new-paste form and error pages, and the header every page shares (the
//! sign-in and "My pastes" pages are in [`super::account`]).
//!
//! Every page works without JavaScript: the view carries the escaped text with
//! numbered line anchors, the form posts to `/`. The one script
//! ([`assets::APP_JS`], from `web/src/app.js`) enhances the page named by
//! `<body data-page>`: highlighting, line selection, encryption, the editor.
//!
//! Pages have no inline script or style (the CSP forbids both) and paste
//! content is always HTML-escaped, so it is shown as text and never rendered.
//! Pages are written straight into one pre-sized `String`; nothing is
//! compiled or looked up per request.

use std::fmt::Write;

use super::assets;
use crate::core::api::ProofParams;
use crate::core::paste::{self, PasteMeta};
use crate::core::units::format_size;
use crate::http::api_error::{ApiError, ErrorCode};

/// Where the stylesheet is served (content-hashed).
pub const CSS_PATH: &str = assets::CSS_PATH;

/// Appends `text` to `out`, escaped for HTML element content and quoted attribute values.
pub fn escape_into(out: &mut String, text: &str) {
    let mut last = 0;
    for (i, b) in text.bytes().enumerate() {
        let entity = match b {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            b'\'' => "&#39;",
            _ => continue,
        };
        out.push_str(&text[last..i]);
        out.push_str(entity);
        last = i + 1;
    }
    out.push_str(&text[last..]);
}

/// Escapes text for use in HTML element content and quoted attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    escape_into(&mut out, text);
    out
}

/// Which script behaviour a page gets (`<body data-page>`).
#[derive(Clone, Copy)]
pub(super) enum Page {
    View,
    New,
    Error,
    Signin,
    My,
}

/// Who the header says is signed in.
#[derive(Clone, Copy)]
pub enum Account<'a> {
    /// Nothing about accounts (error pages, which do not know the caller).
    Hidden,
    /// No session: a "Sign in" link.
    SignedOut,
    /// A session of this tenant: its name and a "Sign out" button.
    SignedIn(&'a str),
}

impl<'a> Account<'a> {
    /// The header's account of a request by `caller`.
    pub fn of(caller: &'a crate::http::context::Caller) -> Self {
        caller.tenant_name().map_or(Self::SignedOut, Self::SignedIn)
    }
}

fn account_nav(out: &mut String, account: Account<'_>) {
    match account {
        Account::Hidden => {}
        Account::SignedOut => out.push_str(
            "<nav class=\"account\" aria-label=\"Account\"><a href=\"/my\">My pastes</a>\
             <a href=\"/signin\" id=\"signin-link\">Sign in</a></nav>",
        ),
        Account::SignedIn(name) => {
            out.push_str("<nav class=\"account\" aria-label=\"Account\"><span class=\"tenant\" id=\"tenant-name\">");
            escape_into(out, name);
            out.push_str(
                "</span><a href=\"/my\">My pastes</a>\
                 <form method=\"post\" action=\"/signout\" class=\"signout\">\
                 <button type=\"submit\" id=\"signout\">Sign out</button></form></nav>",
            );
        }
    }
}

pub(super) fn head(out: &mut String, page: Page, title: &str, account: Account<'_>) {
    out.push_str(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"referrer\" content=\"no-referrer\">\
         <meta name=\"color-scheme\" content=\"light dark\"><title>",
    );
    escape_into(out, title);
    let page = match page {
        Page::View => "view",
        Page::New => "new",
        Page::Error => "error",
        Page::Signin => "signin",
        Page::My => "my",
    };
    let _ = write!(
        out,
        " · snip</title><link rel=\"stylesheet\" href=\"{css}\">\
         <link rel=\"icon\" href=\"{icon}\" type=\"image/svg+xml\">\
         <script type=\"module\" src=\"{js}\"></script></head>\
         <body data-page=\"{page}\"><a class=\"skip\" href=\"#main\">Skip to content</a>\
         <header class=\"top\"><a class=\"brand\" href=\"/\">snip</a>\
         <a class=\"new-link\" href=\"/new\">New paste</a>",
        css = assets::SNIP_CSS,
        icon = assets::ICON_SVG,
        js = assets::APP_JS,
    );
    account_nav(out, account);
    out.push_str(THEME);
    out.push_str("</header><main id=\"main\">");
}

/// The theme switch: shown by the script, which remembers the choice ("auto"
/// follows the system's `prefers-color-scheme`).
const THEME: &str = "<label class=\"theme\" hidden><span class=\"sr-only\">Theme</span>\
     <select id=\"theme\"><option value=\"auto\">Auto</option>\
     <option value=\"light\">Light</option><option value=\"dark\">Dark</option></select></label>";

/// The visibility choice of a signed-in tenant's form: a private paste is
/// readable only with the tenant's token or session.
const VISIBILITY: &str = "<label>Visibility <select name=\"visibility\" id=\"visibility\">\
     <option value=\"unlisted\" selected>Unlisted (anyone with the link)</option>\
     <option value=\"private\">Private (only me)</option></select></label>";

pub(super) fn foot(out: &mut String) {
    let _ = writeln!(
        out,
        "</main><footer>snip · <a href=\"{}\">third-party licences</a></footer></body></html>",
        assets::LICENSES_TXT
    );
}

/// How a paste page starts out.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shell {
    /// Readable now.
    Open,
    /// Burn after reading, not revealed yet.
    Burn,
}

/// The paste view: escaped text with line anchors, media inline, or a download
/// link; encrypted pastes are decrypted by the script. `body` may be only
/// the body's first [`VIEW_MAX_BYTES`] (the view shows no more).
pub fn view(meta: &PasteMeta, body: &[u8], account: Account<'_>) -> String {
    let shown = body.len().min(VIEW_MAX_BYTES);
    let mut out = String::with_capacity(2048 + shown + shown / 4);
    paste_page(&mut out, meta, Shell::Open, body, account);
    out
}

/// Whether the view of `meta` shows all of `body`, which links to nothing
/// else: plain text within [`VIEW_MAX_BYTES`] and [`VIEW_MAX_LINES`].
pub fn shows_whole(meta: &PasteMeta, body: &[u8]) -> bool {
    meta.content_type == paste::TEXT_PLAIN
        && !meta.encrypted
        && body.len() <= VIEW_MAX_BYTES
        && std::str::from_utf8(body).is_ok_and(|text| text.lines().nth(VIEW_MAX_LINES).is_none())
}

/// The interstitial shown for burn pastes: reading happens only on the
/// button's `POST` (the script does it with `fetch` and shows the result).
pub fn burn_interstitial(meta: &PasteMeta, account: Account<'_>) -> String {
    let mut out = String::with_capacity(4096);
    paste_page(&mut out, meta, Shell::Burn, &[], account);
    out
}

fn paste_page(out: &mut String, meta: &PasteMeta, shell: Shell, body: &[u8], account: Account<'_>) {
    let title = match (&meta.name, meta.encrypted) {
        (Some(name), false) => name.as_str(),
        (_, true) => "Encrypted paste",
        (None, false) => meta.id.as_str(),
    };
    head(out, Page::View, title, account);
    let id = meta.id.as_str(); // IDs are from a fixed alphabet: nothing to escape.
    let _ = write!(
        out,
        "<article class=\"paste\" id=\"paste\" data-id=\"{id}\" data-size=\"{}\"",
        meta.size
    );
    for (key, value) in [
        ("lang", meta.lang.as_deref()),
        ("name", meta.name.as_deref()),
        ("type", Some(meta.content_type.as_str())),
    ] {
        if let Some(value) = value {
            let _ = write!(out, " data-{key}=\"");
            escape_into(out, value);
            out.push('"');
        }
    }
    if let Some(expires) = meta.expires_at {
        let _ = write!(out, " data-expires=\"{}\"", paste::rfc3339(expires));
    }
    if meta.burn {
        out.push_str(" data-burn");
    }
    if meta.encrypted {
        out.push_str(" data-encrypted");
    }
    if let Some(check) = &meta.key_check {
        // Public parameters of the proof of key (docs/envelope.md); base64url
        // and digits need no escaping.
        let params = ProofParams::of(check);
        let _ = write!(
            out,
            " data-proof-iterations=\"{}\" data-proof-salt=\"{}\"",
            params.iterations, params.salt
        );
    }
    out.push('>');

    let hidden = if shell == Shell::Burn { " hidden" } else { "" };
    let _ = write!(out, "<div class=\"bar\"{hidden}><h1 class=\"title\">");
    escape_into(out, title);
    out.push_str("</h1><nav class=\"actions\" aria-label=\"Paste actions\">");
    if meta.encrypted || meta.burn {
        // The server has only ciphertext, or nothing until the reveal (and
        // nothing after it): the script offers the decrypted or revealed
        // bytes instead.
        out.push_str("<a class=\"btn\" id=\"download\" hidden>Download</a>");
    } else {
        let _ = write!(
            out,
            "<a class=\"btn\" href=\"/raw/{id}\">Raw</a><a class=\"btn\" id=\"download\" href=\"/download/{id}\">Download</a>"
        );
    }
    out.push_str(
        "<button type=\"button\" id=\"wrap\" aria-pressed=\"false\" hidden>Wrap</button>\
         <button type=\"button\" id=\"copy\" hidden>Copy</button>\
         <button type=\"button\" id=\"clone\" hidden>New paste from this</button>\
         <button type=\"button\" class=\"danger\" id=\"delete\" hidden>Delete</button></nav></div>",
    );
    describe(out, meta, hidden);
    out.push_str(
        "<p class=\"status\" id=\"status\" role=\"status\" aria-live=\"polite\" hidden></p>",
    );

    match shell {
        Shell::Burn => {
            let _ = write!(
                out,
                "<section class=\"burn\"><h1>Burn after reading</h1>\
                 <p>This paste ({size}) will be destroyed as soon as it is revealed. \
                 Nobody, including you, will be able to open this link again.</p>\
                 <form method=\"post\" action=\"/{id}/reveal\" id=\"reveal\">\
                 <button type=\"submit\" class=\"warn\">Reveal (it will be destroyed)</button></form>\
                 {noscript}</section>{unlock}<div id=\"content\"></div>",
                size = format_size(meta.size),
                noscript = if meta.encrypted {
                    ENCRYPTED_BURN_NOSCRIPT
                } else {
                    ""
                },
                unlock = if meta.encrypted { UNLOCK_FORM } else { "" },
            );
        }
        Shell::Open if meta.encrypted => {
            out.push_str(
                "<noscript><p class=\"notice\">This paste is end-to-end encrypted: it is decrypted \
                 in your browser with the key in the link, which needs JavaScript. \
                 Or read it with <code>snip get URL#key</code>.</p></noscript>",
            );
            out.push_str(UNLOCK_FORM);
            out.push_str("<div id=\"content\"></div>");
        }
        Shell::Open => content(out, meta, body),
    }
    out.push_str("</article>");
    foot(out);
}

/// What a browser without JavaScript is told about an encrypted burn paste:
/// its button leaves the paste intact (`POST /{id}/reveal` from a form).
const ENCRYPTED_BURN_NOSCRIPT: &str = "<noscript><p class=\"notice\">This paste is end-to-end \
     encrypted: it is decrypted in your browser with the key in the link, which needs JavaScript. \
     Without it the paste cannot be shown, so the button leaves it intact. \
     Or read it with <code>snip get URL#key</code>.</p></noscript>";

/// The password prompt of encrypted pastes, shown by the script when needed.
const UNLOCK_FORM: &str = "<form class=\"unlock\" id=\"unlock\" hidden>\
     <label for=\"password\">This paste is protected by a password:</label>\
     <input type=\"password\" id=\"password\" autocomplete=\"current-password\" required>\
     <button type=\"submit\" class=\"primary\">Decrypt</button></form>";

/// The most bytes of a paste the HTML view shows. Every line costs about a
/// hundred bytes of markup, so a page of a whole large paste would be many
/// times its size and take seconds to build and to render in the browser;
/// a reader of that much text wants the raw route anyway.
pub const VIEW_MAX_BYTES: usize = 256 * 1024;

/// The most lines of a paste the HTML view shows: bounds the markup for
/// pastes of short lines, which [`VIEW_MAX_BYTES`] alone does not.
pub const VIEW_MAX_LINES: usize = 10_000;

/// The text the view shows: at most [`VIEW_MAX_BYTES`] of `body`, cut before
/// a character that does not fit, or `None` if that prefix is not UTF-8.
fn shown_text(body: &[u8]) -> Option<&str> {
    let prefix = &body[..body.len().min(VIEW_MAX_BYTES)];
    match std::str::from_utf8(prefix) {
        Ok(text) => Some(text),
        // Only the character cut at the end of the prefix is incomplete.
        Err(e) if e.error_len().is_none() => std::str::from_utf8(&prefix[..e.valid_up_to()]).ok(),
        Err(_) => None,
    }
}

/// Says that the view shows only the first `lines` lines and where the whole
/// paste of `size` bytes is.
fn truncated(out: &mut String, id: &str, lines: usize, size: usize) {
    let _ = write!(
        out,
        "<p class=\"notice\" id=\"truncated\">This page shows the first {lines} lines only; \
         the whole paste ({}) is at <a href=\"/raw/{id}\">/raw/{id}</a>.</p>",
        format_size(size as u64)
    );
}

/// Text with numbered line anchors: the prefix `text` of a paste of `size`
/// bytes, cut to at most [`VIEW_MAX_LINES`] lines, with a notice if cut.
fn code(out: &mut String, id: &str, text: &str, size: usize) {
    let cut = text.len() < size;
    // A prefix cut by size ends at its last whole line.
    let text = match text.rfind('\n') {
        Some(end) if cut => &text[..=end],
        _ => text,
    };
    let cut = cut || text.lines().nth(VIEW_MAX_LINES).is_some();
    out.push_str("<div id=\"content\"><pre class=\"code\" id=\"code\" tabindex=\"0\"><code>");
    let mut shown = 0;
    for (n, line) in text.lines().take(VIEW_MAX_LINES).enumerate() {
        let n = n + 1;
        let _ = write!(
            out,
            "<span class=\"line\" id=\"L{n}\"><a class=\"ln\" href=\"#L{n}\">{n}</a><span class=\"lc\">"
        );
        escape_into(out, line);
        out.push_str("</span>\n</span>");
        shown = n;
    }
    out.push_str("</code></pre>");
    if cut {
        truncated(out, id, shown, size);
    }
    out.push_str("</div>");
}

/// The body of a readable, unencrypted paste.
fn content(out: &mut String, meta: &PasteMeta, body: &[u8]) {
    let id = meta.id.as_str();
    let essence = meta.content_type.split(';').next().unwrap_or("");
    match shown_text(body) {
        Some(text) if meta.content_type == paste::TEXT_PLAIN => {
            let size = usize::try_from(meta.size).unwrap_or(usize::MAX);
            code(out, id, text, size.max(body.len()));
        }
        _ if essence.starts_with("image/") => {
            let _ = write!(
                out,
                "<div id=\"content\"><figure class=\"media\"><img src=\"/raw/{id}\" alt=\""
            );
            escape_into(out, meta.name.as_deref().unwrap_or("image"));
            out.push_str("\"></figure></div>");
        }
        _ if essence.starts_with("audio/") || essence.starts_with("video/") => {
            let tag = if essence.starts_with("audio/") {
                "audio"
            } else {
                "video"
            };
            let _ = write!(
                out,
                "<div id=\"content\"><figure class=\"media\"><{tag} controls preload=\"metadata\" src=\"/raw/{id}\"></{tag}></figure></div>"
            );
        }
        _ => {
            out.push_str("<div id=\"content\"><p class=\"notice\">This paste is a file (");
            escape_into(out, meta.name.as_deref().unwrap_or(&meta.content_type));
            let _ = write!(
                out,
                ", {}). <a href=\"/download/{id}\">Download it</a>.</p></div>",
                format_size(meta.size)
            );
        }
    }
}

/// The metadata line: size, language, creation and expiry (UTC; the script shows local time).
fn describe(out: &mut String, meta: &PasteMeta, hidden: &str) {
    let _ = write!(
        out,
        "<p class=\"meta\"{hidden}><span>{}</span><span class=\"lang\">",
        format_size(meta.size)
    );
    if let Some(lang) = &meta.lang {
        escape_into(out, lang);
    }
    out.push_str("</span><span>created ");
    time(out, meta.created_at);
    out.push_str("</span><span>");
    match meta.expires_at {
        Some(t) => {
            out.push_str("expires ");
            time(out, t);
        }
        None => out.push_str("never expires"),
    }
    out.push_str("</span></p>");
}

/// A `<time>` element: the machine-readable instant, shown to the minute.
pub(super) fn time(out: &mut String, t: paste::UnixTime) {
    let iso = paste::rfc3339(t);
    // 2026-11-23T09:35:47Z → 2026-11-23 09:35 UTC
    let _ = write!(
        out,
        "<time datetime=\"{iso}\">{} {} UTC</time>",
        iso.get(..10).unwrap_or(&iso),
        iso.get(11..16).unwrap_or("")
    );
}

/// A friendly error page for browsers.
pub fn error_page(error: &ApiError) -> String {
    let (heading, explanation) = match error.status.as_u16() {
        404 if error.code == ErrorCode::MistypedId => (
            "This link looks mistyped",
            "The last character of every snip link checks the others, and this one does not \
             match: a character was probably changed, dropped or swapped while copying. \
             Check the link against the original.",
        ),
        404 if matches!(error.code, ErrorCode::NotFound | ErrorCode::MalformedId) => (
            "Paste not found",
            "There is no paste at this address. It may have expired, been deleted, or \
             (burn after reading) already been read.",
        ),
        404 => (
            "Page not found",
            "There is no page at this address. Check the link you followed, or start a new paste.",
        ),
        401 => (
            "Sign in needed",
            "This server needs a signed-in tenant here. <a href=\"/signin\">Sign in</a> with an API token.",
        ),
        413 => ("Too large", "The paste is larger than this server accepts."),
        429 => (
            "Slow down",
            "Too many requests came from you in a short time. Wait a moment, then try again.",
        ),
        _ => (error.status.canonical_reason().unwrap_or("Error"), ""),
    };
    let mut out = String::with_capacity(2048);
    head(&mut out, Page::Error, heading, Account::Hidden);
    out.push_str("<section class=\"error-page\"><h1>");
    escape_into(&mut out, heading);
    out.push_str("</h1>");
    if !explanation.is_empty() {
        let _ = write!(out, "<p>{explanation}</p>");
    }
    let _ = write!(out, "<p class=\"code-hint\">{}", error.status.as_u16());
    // The router's own 404 message is a hint for API clients (which routes
    // exist); a person who followed a link needs none of it.
    if error.code != ErrorCode::NoRoute {
        out.push_str(" · ");
        escape_into(&mut out, &error.message);
    }
    out.push_str("</p><p><a href=\"/\">Create a new paste</a></p></section>");
    foot(&mut out);
    out
}

/// What the new-paste form offers.
pub struct NewPasteOptions<'a> {
    /// `(value, label)` of every lifetime the server allows.
    pub ttl_choices: &'a [(String, String)],
    /// The value preselected (the server's default lifetime).
    pub default_ttl: &'a str,
    /// The largest paste, in bytes.
    pub max_paste_bytes: u64,
    /// Who is signed in.
    pub account: Account<'a>,
    /// Whether the caller may create (else the page says who may, instead of the form).
    pub may_create: bool,
}

/// The new-paste form; works without JavaScript (a multipart POST to `/`).
pub fn new_paste(options: &NewPasteOptions<'_>) -> String {
    let mut out = String::with_capacity(6144);
    head(&mut out, Page::New, "New paste", options.account);
    if !options.may_create {
        out.push_str(match options.account {
            Account::SignedIn(_) => {
                "<section class=\"closed\" id=\"read-only\"><h1>New paste</h1>\
                 <p>This browser signed in with a read-only token: it can read and list \
                 the tenant's pastes, not create them.</p></section>"
            }
            _ => {
                "<section class=\"closed\" id=\"signin-needed\"><h1>New paste</h1>\
                 <p>This server takes pastes from signed-in users.</p>\
                 <p><a class=\"btn primary\" href=\"/signin?next=/new\">Sign in with an API token</a></p></section>"
            }
        });
        foot(&mut out);
        return out;
    }
    let _ = write!(
        out,
        "<h1 class=\"sr-only\">New paste</h1>\
         <form class=\"new\" id=\"new\" method=\"post\" action=\"/\" enctype=\"multipart/form-data\" data-max-size=\"{max}\">\
         <label for=\"content\" class=\"sr-only\">Paste content</label>\
         <textarea id=\"content\" name=\"content\" required autofocus spellcheck=\"false\" \
         autocapitalize=\"off\" autocomplete=\"off\" aria-describedby=\"editor-hint\" \
         placeholder=\"Paste or type here, or drop a file\"></textarea>\
         <div class=\"attachment\" id=\"attachment\" hidden><span>Attached:</span>\
         <span class=\"file\" id=\"attachment-name\"></span>\
         <button type=\"button\" id=\"attachment-remove\">Remove</button></div>\
         <div class=\"options\">\
         <label>Language <select name=\"lang\" id=\"lang\"><option value=\"\">Auto-detect</option></select></label>\
         <label>File name <input name=\"name\" id=\"name\" size=\"14\" placeholder=\"optional\" autocomplete=\"off\"></label>\
         <label>Expires <select name=\"ttl\" id=\"ttl\">",
        max = options.max_paste_bytes,
    );
    for (value, label) in options.ttl_choices {
        out.push_str("<option value=\"");
        escape_into(&mut out, value);
        out.push('"');
        if value == options.default_ttl {
            out.push_str(" selected");
        }
        out.push('>');
        escape_into(&mut out, label);
        out.push_str("</option>");
    }
    let _ = write!(
        out,
        "</select></label>\
         <label><input type=\"checkbox\" name=\"burn\" id=\"burn\" value=\"true\"> Burn after reading</label>{visibility}\
         <label class=\"js-only\" hidden><input type=\"checkbox\" id=\"encrypt\"> Encrypt</label>\
         <label class=\"password\" hidden><span class=\"sr-only\">Password (optional)</span>\
         <input type=\"password\" id=\"password\" placeholder=\"Password (optional)\" autocomplete=\"new-password\" size=\"18\"></label>\
         <label class=\"btn file-button js-only\" hidden>Attach file<input type=\"file\" id=\"file\"></label>\
         <button type=\"button\" class=\"js-only\" id=\"paste-clipboard\" hidden>Paste from clipboard</button>\
         <span class=\"submit\"><button type=\"submit\" class=\"primary\">Create paste</button>\
         <kbd class=\"js-only\" hidden>Ctrl+Enter</kbd></span></div>\
         <p class=\"hint js-only\" id=\"editor-hint\" hidden>Tab indents (Shift+Tab outdents); Esc then Tab leaves the editor. \
         Up to {max}.</p>\
         <p class=\"status\" id=\"form-status\" role=\"status\" aria-live=\"polite\" hidden></p></form>\
         <section class=\"result\" id=\"result\" hidden aria-labelledby=\"result-title\">\
         <h1 id=\"result-title\">Paste created</h1>\
         <div class=\"url-row\"><label for=\"result-url\" class=\"sr-only\">Link</label>\
         <input id=\"result-url\" readonly><button type=\"button\" class=\"primary\" id=\"copy-url\">Copy</button>\
         <a class=\"btn\" id=\"open-url\">Open</a></div>\
         <div class=\"share\"><ul class=\"summary\" id=\"result-summary\"></ul>\
         <canvas id=\"qr\" role=\"img\" aria-label=\"QR code of the link\" hidden></canvas></div>\
         <details><summary>Delete link</summary>\
         <p class=\"hint\">Anyone with this link can delete the paste. This browser also remembers it, \
         so the paste shows a Delete button here.</p>\
         <div class=\"url-row\"><label for=\"delete-url\" class=\"sr-only\">Delete link</label>\
         <input id=\"delete-url\" readonly><button type=\"button\" id=\"copy-delete\">Copy</button></div></details>\
         <p><button type=\"button\" id=\"another\">New paste</button></p></section>",
        max = format_size(options.max_paste_bytes),
        visibility = if matches!(options.account, Account::SignedIn(_)) {
            VISIBILITY
        } else {
            ""
        },
    );
    foot(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Markup in user text comes out inert.
    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape(r#"<script>alert('x')</script>"><img src=x onerror=alert(1)>&"#),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&amp;"
        );
        assert_eq!(escape("plain ünïcode"), "plain ünïcode");
        assert_eq!(escape(""), "");
    }
}
