//! What a paste's page tells other sites about it: link preview tags (Open
//! Graph and Twitter card, `templates/preview.html`) for chat programs and
//! social sites, and the oEmbed discovery link of pastes that may be
//! embedded (`/embed/{id}`, `/oembed`).
//!
//! Only a paste anyone with the link may read as it is stored is shown to
//! other sites ([`shareable`]): never a burn paste (a preview would be a
//! reading nobody chose), an encrypted one (the server has only
//! ciphertext), a private one (its tenant's alone) or a short link. For
//! those a page carries no tag about the paste at all.
//!
//! Everything a tag shows comes from the paste, so it is bounded, stripped
//! of control characters and, like every value a template shows,
//! HTML-escaped.

use crate::core::files;
use crate::core::paste::{self, PasteMeta, Visibility};
use crate::core::units::format_size;
use crate::http::state::Site;

/// The most characters of a preview's title (chat programs show about this many).
pub const TITLE_MAX_CHARS: usize = 80;

/// The most lines of a paste a preview's description is made of.
pub const DESCRIPTION_MAX_LINES: usize = 6;

/// The most characters of a preview's description.
pub const DESCRIPTION_MAX_CHARS: usize = 300;

/// The most bytes of a paste read for its title and description: more
/// than [`DESCRIPTION_MAX_LINES`] lines of code ever hold.
const PREVIEW_MAX_BYTES: usize = 4096;

/// Whether other sites may be shown the paste of `meta` (a preview, an
/// embed): an unlisted paste, neither burn after reading, encrypted nor a
/// short link.
pub fn shareable(meta: &PasteMeta) -> bool {
    meta.visibility == Visibility::Unlisted
        && !meta.burn
        && !meta.encrypted
        && meta.key_check.is_none()
        && meta.redirect.is_none()
}

/// Where the page of a paste is, as other sites see it.
pub struct Instance<'a> {
    /// The instance's name and whether it sends previews.
    pub site: &'a Site,
    /// The base of printed URLs for this request, without a trailing slash.
    pub base_url: &'a str,
}

/// What a paste's page carries for other sites (`templates/preview.html`).
pub struct Sharing {
    /// The link preview tags, unless previews are off.
    pub preview: Option<Preview>,
    /// The oEmbed discovery URL.
    pub oembed: String,
}

/// A paste's link preview.
pub struct Preview {
    /// `og:title`: its name, else its first line, else its ID.
    pub title: String,
    /// `og:description`: its first lines, or what kind of file it is.
    pub description: String,
    /// `og:url`: the paste's page.
    pub url: String,
    /// `og:site_name`: the instance's name.
    pub site_name: String,
}

/// What the page of the paste of `meta`, whose body starts with `body`,
/// tells other sites: nothing unless the paste is [`shareable`].
pub fn sharing(meta: &PasteMeta, body: &[u8], instance: &Instance<'_>) -> Option<Sharing> {
    if !shareable(meta) {
        return None;
    }
    let url = format!("{}/{}", instance.base_url, meta.id);
    let oembed = oembed_url(instance.base_url, &url);
    let preview = instance.site.link_previews.then(|| Preview {
        title: title(meta, body),
        description: description(meta, body),
        url,
        site_name: instance.site.name.clone(),
    });
    Some(Sharing { preview, oembed })
}

/// The oEmbed URL of the page at `url`, on the instance at `base_url`.
pub fn oembed_url(base_url: &str, url: &str) -> String {
    let query: String = form_urlencoded::Serializer::new(String::new())
        .append_pair("url", url)
        .append_pair("format", "json")
        .finish();
    format!("{base_url}/oembed?{query}")
}

/// A paste's title for other sites: its name, else (for several files)
/// their names, else its first line that is not blank, else its ID.
pub fn title(meta: &PasteMeta, body: &[u8]) -> String {
    if let Some(name) = &meta.name {
        return clean(name, TITLE_MAX_CHARS);
    }
    if !meta.files.is_empty() {
        let names: Vec<&str> = meta.files.iter().map(|f| f.name.as_str()).collect();
        return clean(&names.join(", "), TITLE_MAX_CHARS);
    }
    let first = text_of(meta, body)
        .and_then(|text| text.lines().map(str::trim).find(|line| !line.is_empty()))
        .map(|line| clean(line, TITLE_MAX_CHARS))
        .filter(|line| !line.is_empty());
    first.unwrap_or_else(|| meta.id.clone())
}

/// A paste's description for other sites: its first lines (of its first
/// text file), each trimmed, joined by spaces; or, for a paste that is
/// no text, its kind and size.
fn description(meta: &PasteMeta, body: &[u8]) -> String {
    let text = match meta.files.is_empty() {
        true => text_of(meta, body),
        false => files::spans(&meta.files).find_map(|span| {
            let start = usize::try_from(span.offset).ok()?;
            let end = start.saturating_add(usize::try_from(span.file.size).ok()?);
            let bytes = body.get(start..end.min(body.len()))?;
            (span.file.content_type == paste::TEXT_PLAIN)
                .then(|| utf8_prefix(bytes))
                .flatten()
        }),
    };
    let lines = text.map(|text| {
        text.lines()
            .map(str::trim)
            .filter(|line| !line.is_empty())
            .take(DESCRIPTION_MAX_LINES)
            .collect::<Vec<_>>()
            .join(" ")
    });
    match lines.map(|lines| clean(&lines, DESCRIPTION_MAX_CHARS)) {
        Some(lines) if !lines.is_empty() => lines,
        _ => format!("{}, {}", meta.content_type, format_size(meta.size)),
    }
}

/// The text of a one-file text paste's first bytes.
fn text_of<'a>(meta: &PasteMeta, body: &'a [u8]) -> Option<&'a str> {
    (meta.content_type == paste::TEXT_PLAIN && meta.files.is_empty())
        .then(|| utf8_prefix(body))
        .flatten()
}

/// At most [`PREVIEW_MAX_BYTES`] of `bytes` as text, cut before a
/// character that does not fit; `None` if they are not UTF-8.
fn utf8_prefix(bytes: &[u8]) -> Option<&str> {
    super::pages::shown_text(&bytes[..bytes.len().min(PREVIEW_MAX_BYTES)])
}

/// `text` fit for a tag: every control or invisible format character
/// (a tab, a line break, a bidi override too) and every run of white space
/// made one space, trimmed, and cut to
/// at most `max_chars` characters, the last of them `…` if it was cut.
pub fn clean(text: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max_chars * 4));
    let mut count = 0;
    let mut space = false;
    for c in text.chars() {
        if c.is_control() || c.is_whitespace() || paste::is_format_char(c) {
            space = !out.is_empty();
            continue;
        }
        let needed = 1 + usize::from(space);
        if count + needed > max_chars {
            // Room for the ellipsis: drop what it replaces.
            while count >= max_chars {
                out.pop();
                count -= 1;
            }
            out.push('…');
            return out;
        }
        if space {
            out.push(' ');
            count += 1;
            space = false;
        }
        out.push(c);
        count += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_drops_control_characters_and_bounds_the_text() {
        assert_eq!(clean("  a\tb\r\n\u{1b}[31mc \u{7f} ", 80), "a b [31mc");
        assert_eq!(clean("abcdef", 4), "abc…");
        assert_eq!(clean("abcd", 4), "abcd");
        assert_eq!(clean("ab cd", 4), "ab …");
        assert!(clean(&"é".repeat(500), 80).chars().count() <= 80);
        assert_eq!(clean("\n\t", 10), "");
        assert_eq!(clean("a\u{202e}b\u{200b}c", 10), "a b c");
    }
}
