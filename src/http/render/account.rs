//! The pages of signed-in browsers: sign-in with an API token, and "My
//! pastes" (a tenant's listing, or for an anonymous browser the pastes whose
//! delete tokens it keeps, which the script fills in).
//!
//! The token is typed into a password field and posted once; it never
//! appears in a page, and the session cookie is `HttpOnly`, so no script of
//! any page can read either.

use std::fmt::Write;

use super::pages::{Account, Page, escape_into, foot, head, time};
use crate::core::paste::{PasteMeta, Visibility};
use crate::core::units::format_size;

/// The sign-in page; `error` says why the last attempt failed, `next` is
/// where a successful sign-in goes (already checked to be a local path).
pub fn signin(error: Option<&str>, next: &str) -> String {
    let mut out = String::with_capacity(4096);
    head(&mut out, Page::Signin, "Sign in", Account::Hidden);
    out.push_str(
        "<section class=\"signin\"><h1>Sign in</h1>\
         <p>Sign in with an API token of your tenant (the administrator gives it to you). \
         The browser keeps only a session cookie; the token is not stored.</p>",
    );
    if let Some(error) = error {
        out.push_str("<p class=\"status error\" id=\"signin-error\" role=\"alert\">");
        escape_into(&mut out, error);
        out.push_str("</p>");
    }
    out.push_str(
        "<form method=\"post\" action=\"/signin\" id=\"signin\">\
         <label for=\"token\">API token</label> \
         <input type=\"password\" id=\"token\" name=\"token\" required autocomplete=\"current-password\" \
         autocapitalize=\"off\" spellcheck=\"false\" size=\"40\">\
         <input type=\"hidden\" name=\"next\" value=\"",
    );
    escape_into(&mut out, next);
    out.push_str("\"> <button type=\"submit\" class=\"primary\">Sign in</button></form></section>");
    foot(&mut out);
    out
}

/// A page of a signed-in tenant's pastes, newest first, with a link to the
/// next page when there is one.
pub fn my_pastes(tenant: &str, pastes: &[PasteMeta], next_cursor: Option<&str>) -> String {
    let mut out = String::with_capacity(4096 + pastes.len() * 512);
    head(&mut out, Page::My, "My pastes", Account::SignedIn(tenant));
    out.push_str("<section class=\"my\" data-signed-in=\"true\"><h1>My pastes</h1>");
    if pastes.is_empty() {
        out.push_str("<p id=\"my-empty\">No pastes yet. <a href=\"/new\">Create one</a>.</p>");
    } else {
        out.push_str(
            "<table class=\"pastes\" id=\"my-pastes\"><thead><tr><th>Name</th><th>Size</th>\
             <th>Created</th><th>Expires</th><th>Visibility</th><th>Burn</th><th></th></tr></thead><tbody>",
        );
        for meta in pastes {
            row(&mut out, meta);
        }
        out.push_str("</tbody></table>");
    }
    if let Some(cursor) = next_cursor {
        out.push_str("<p><a class=\"btn\" id=\"my-next\" href=\"/my?cursor=");
        escape_into(&mut out, &urlencode(cursor));
        out.push_str("\">Older pastes</a></p>");
    }
    out.push_str(
        "<p class=\"status\" id=\"my-status\" role=\"status\" aria-live=\"polite\" hidden></p></section>",
    );
    foot(&mut out);
    out
}

/// "My pastes" of an anonymous browser: the script lists the pastes this
/// browser created from their remembered delete tokens.
pub fn my_local(account: Account<'_>) -> String {
    let mut out = String::with_capacity(4096);
    head(&mut out, Page::My, "My pastes", account);
    out.push_str(
        "<section class=\"my\" data-signed-in=\"false\"><h1>My pastes</h1>\
         <p>Pastes created in this browser, from the delete links it remembers. \
         <a href=\"/signin?next=/my\">Sign in</a> to see all the pastes of your tenant.</p>\
         <p class=\"js-only\" id=\"my-local-empty\" hidden>This browser remembers no pastes.</p>\
         <noscript><p>This list needs JavaScript.</p></noscript>\
         <table class=\"pastes\" id=\"my-local\" hidden><thead><tr><th>Paste</th><th>Created</th>\
         <th>Expires</th><th></th></tr></thead><tbody></tbody></table>\
         <p class=\"status\" id=\"my-status\" role=\"status\" aria-live=\"polite\" hidden></p></section>",
    );
    foot(&mut out);
    out
}

fn row(out: &mut String, meta: &PasteMeta) {
    let id = meta.id.as_str(); // IDs are from a fixed alphabet: nothing to escape.
    let _ = write!(out, "<tr data-id=\"{id}\"><td><a href=\"/{id}\">");
    escape_into(out, meta.name.as_deref().unwrap_or(id));
    let _ = write!(out, "</a></td><td>{}</td><td>", format_size(meta.size));
    time(out, meta.created_at);
    out.push_str("</td><td>");
    match meta.expires_at {
        Some(t) => time(out, t),
        None => out.push_str("never"),
    }
    let visibility = match meta.visibility {
        Visibility::Private => "private",
        Visibility::Unlisted => "unlisted",
    };
    let burn = if meta.burn { "yes" } else { "no" };
    let _ = write!(
        out,
        "</td><td>{visibility}</td><td>{burn}</td>\
         <td><button type=\"button\" class=\"delete\" data-id=\"{id}\">Delete</button></td></tr>"
    );
}

fn urlencode(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}
