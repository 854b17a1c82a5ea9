//! Server-rendered HTML pages: the paste view, the burn interstitial, the
//! new-paste form and error pages.
//!
//! Pages carry no script and no inline style (the CSP forbids both); paste
//! content is always HTML-escaped, so it is shown as text and never rendered.

use std::fmt::Write;

use super::errors::ApiError;
use crate::core::paste::{self, PasteMeta};

/// The one stylesheet, compiled into the binary and served at [`CSS_PATH`].
pub const CSS: &str = include_str!("../../web/snip.css");
/// Where the stylesheet is served.
pub const CSS_PATH: &str = "/assets/snip.css";

/// Escapes text for use in HTML element content and quoted attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn layout(title: &str, main: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"referrer\" content=\"no-referrer\">\
         <title>{title} · snip</title><link rel=\"stylesheet\" href=\"{CSS_PATH}\"></head>\
         <body><header><a class=\"brand\" href=\"/\">snip</a></header><main>{main}</main></body></html>\n",
        title = escape(title),
    )
}

/// The paste view: escaped text with line anchors, or a download link for binary content.
pub fn view(meta: &PasteMeta, body: &[u8]) -> String {
    let id = escape(&meta.id);
    let title = meta.name.as_deref().unwrap_or(&meta.id);
    let mut main = String::new();
    let _ = write!(
        main,
        "<nav class=\"actions\"><span class=\"title\">{}</span>\
         <a href=\"/raw/{id}\">raw</a><a href=\"/download/{id}\">download</a></nav>",
        escape(title)
    );
    let _ = write!(main, "<p class=\"meta\">{}</p>", describe(meta));
    match std::str::from_utf8(body) {
        _ if meta.encrypted => main.push_str(
            "<p class=\"notice\">This paste is end-to-end encrypted. Open the full link \
             (with its <code>#key</code>) in snip's web app, or read it with <code>snip get URL#key</code>.</p>",
        ),
        Ok(text) if meta.content_type == paste::TEXT_PLAIN => {
            main.push_str("<pre class=\"code\"><code>");
            for (n, line) in text.lines().enumerate() {
                let n = n + 1;
                let _ = writeln!(
                    main,
                    "<span class=\"line\" id=\"L{n}\"><a class=\"ln\" href=\"#L{n}\">{n}</a>{}</span>",
                    escape(line)
                );
            }
            main.push_str("</code></pre>");
        }
        _ => {
            let _ = write!(
                main,
                "<p class=\"notice\">This paste is a {} file of {} bytes. <a href=\"/download/{id}\">Download it</a>.</p>",
                escape(&meta.content_type),
                meta.size
            );
        }
    }
    layout(title, &main)
}

/// The interstitial shown for burn pastes: reading happens only on the button's POST.
pub fn burn_interstitial(meta: &PasteMeta) -> String {
    let main = format!(
        "<section class=\"burn\"><h1>Burn after reading</h1>\
         <p>This paste ({size} bytes) will be destroyed as soon as it is revealed. \
         Nobody, including you, will be able to open this link again.</p>\
         <form method=\"post\" action=\"/{id}/reveal\"><button type=\"submit\">Reveal (it will be destroyed)</button></form>\
         </section>",
        size = meta.size,
        id = escape(&meta.id),
    );
    layout("Burn after reading", &main)
}

/// A friendly error page for browsers.
pub fn error_page(error: &ApiError) -> String {
    let heading = match error.status.as_u16() {
        404 if error.code == "mistyped_id" => "This link looks mistyped",
        404 => "Not found",
        413 => "Too large",
        429 => "Slow down",
        _ => error.status.canonical_reason().unwrap_or("Error"),
    };
    let main = format!(
        "<section class=\"error\"><h1>{}</h1><p>{}</p><p><a href=\"/\">Create a new paste</a></p></section>",
        escape(heading),
        escape(&error.message)
    );
    layout(heading, &main)
}

/// The new-paste form; works without JavaScript (a multipart POST to `/`).
pub fn new_paste(ttl_choices: &[(&str, &str)]) -> String {
    let mut options = String::new();
    for (value, label) in ttl_choices {
        let _ = write!(
            options,
            "<option value=\"{}\">{}</option>",
            escape(value),
            escape(label)
        );
    }
    let main = format!(
        "<form class=\"new\" method=\"post\" action=\"/\" enctype=\"multipart/form-data\">\
         <textarea name=\"content\" rows=\"20\" required autofocus placeholder=\"Paste text here\"></textarea>\
         <div class=\"options\">\
         <label>Expires <select name=\"ttl\">{options}</select></label>\
         <label>Language <input name=\"lang\" size=\"10\" placeholder=\"auto\"></label>\
         <label><input type=\"checkbox\" name=\"burn\" value=\"true\"> Burn after reading</label>\
         <button type=\"submit\">Create paste</button></div></form>"
    );
    layout("New paste", &main)
}

fn describe(meta: &PasteMeta) -> String {
    let mut parts = vec![format!("{} bytes", meta.size)];
    if let Some(lang) = &meta.lang {
        parts.push(escape(lang));
    }
    parts.push(format!("created {}", paste::rfc3339(meta.created_at)));
    parts.push(match meta.expires_at {
        Some(t) => format!("expires {}", paste::rfc3339(t)),
        None => "never expires".to_owned(),
    });
    parts.join(" · ")
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
    }
}
