//! The embed view (`templates/embed.html`): a paste as a minimal page that
//! other sites may frame, with its lines numbered and highlighted by the
//! script, optionally only a range of them or one file of several, in a
//! light, dark or automatic theme.
//!
//! What may be embedded is decided by [`super::preview::shareable`]; what a
//! request asks for is parsed, before any lookup, by [`EmbedQuery::parse`].
//! The page shows no more than the paste view does ([`VIEW_MAX_BYTES`],
//! [`VIEW_MAX_LINES`]).

use std::borrow::Cow;

use askama::Template;

use super::i18n::Lang;

use super::pages::{Code, FileView, file_views, shown_text};
use crate::core::paste::{self, PasteMeta};
use crate::http::api_error::ApiError;

use super::pages::{VIEW_MAX_BYTES, VIEW_MAX_LINES};

/// The embed's colours (`?theme=`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Theme {
    /// The reader's system setting (`prefers-color-scheme`).
    #[default]
    Auto,
    Light,
    Dark,
}

impl Theme {
    /// The value of `<html data-theme>`, which the stylesheet reads (none: auto).
    pub fn attribute(self) -> Option<&'static str> {
        match self {
            Self::Auto => None,
            Self::Light => Some("light"),
            Self::Dark => Some("dark"),
        }
    }

    /// The query parameter's value.
    pub fn name(self) -> &'static str {
        self.attribute().unwrap_or("auto")
    }
}

/// A range of lines (`?lines=10-40`, or one line: `?lines=12`), counted from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineRange {
    pub first: usize,
    pub last: usize,
}

impl LineRange {
    /// The most digits a line number has (more than [`VIEW_MAX_LINES`] ever needs).
    const MAX_DIGITS: usize = 9;

    /// `N` or `N-M`, with `1 ≤ N ≤ M`.
    pub fn parse(text: &str) -> Option<Self> {
        let number = |part: &str| {
            (!part.is_empty()
                && part.len() <= Self::MAX_DIGITS
                && part.bytes().all(|b| b.is_ascii_digit()))
            .then(|| part.parse::<usize>().ok())
            .flatten()
            .filter(|&n| n > 0)
        };
        let (first, last) = match text.split_once('-') {
            Some((first, last)) => (number(first)?, number(last)?),
            None => {
                let line = number(text)?;
                (line, line)
            }
        };
        (first <= last).then_some(Self { first, last })
    }

    /// How it is written in a query.
    pub fn query_value(self) -> String {
        if self.first == self.last {
            self.first.to_string()
        } else {
            format!("{}-{}", self.first, self.last)
        }
    }
}

/// What an embed request asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EmbedQuery {
    /// Only these lines (of the paste, or of `file`).
    pub lines: Option<LineRange>,
    /// The colours.
    pub theme: Theme,
    /// Only this file of a several-file paste.
    pub file: Option<String>,
}

impl EmbedQuery {
    /// Parses a query string; a bad, repeated or empty value is `400`
    /// saying which and what it takes. Other parameters are ignored.
    pub fn parse(query: &str) -> Result<Self, ApiError> {
        let mut parsed = Self::default();
        let mut seen = [false; 3];
        for (key, value) in form_urlencoded::parse(query.as_bytes()) {
            let slot = match key.as_ref() {
                "lines" => 0,
                "theme" => 1,
                "file" => 2,
                _ => continue,
            };
            if std::mem::replace(&mut seen[slot], true) {
                return Err(ApiError::bad_request(format!("{key} is given twice")));
            }
            match slot {
                0 => {
                    parsed.lines = Some(LineRange::parse(&value).ok_or_else(|| {
                        ApiError::bad_request(
                            "lines must be a line number or a range N-M with 1 ≤ N ≤ M (lines=10-40)",
                        )
                    })?);
                }
                1 => {
                    parsed.theme = match value.as_ref() {
                        "auto" => Theme::Auto,
                        "light" => Theme::Light,
                        "dark" => Theme::Dark,
                        _ => {
                            return Err(ApiError::bad_request("theme must be light, dark or auto"));
                        }
                    };
                }
                _ => {
                    if value.is_empty() {
                        return Err(ApiError::bad_request("file must name a file of the paste"));
                    }
                    parsed.file = Some(value.into_owned());
                }
            }
        }
        Ok(parsed)
    }

    /// The query string that asks for this (empty for the defaults).
    pub fn to_query(&self) -> String {
        let mut query = form_urlencoded::Serializer::new(String::new());
        if let Some(file) = &self.file {
            query.append_pair("file", file);
        }
        if let Some(lines) = self.lines {
            query.append_pair("lines", &lines.query_value());
        }
        if self.theme != Theme::Auto {
            query.append_pair("theme", self.theme.name());
        }
        query.finish()
    }
}

/// A block of code the embed shows: lines numbered from `first`.
struct Block<'a> {
    /// The file's name, for a file of several.
    name: Option<&'a str>,
    /// Its highlighting language, as given.
    lang: Option<&'a str>,
    /// Its text, unless it is no text or past what the page shows.
    code: Option<Code<'a>>,
    /// The number of its first line.
    first: usize,
    /// Where the whole of it is, on its paste's page, when the embed shows
    /// only part of it (or none).
    rest: Option<String>,
}

impl Block<'_> {
    /// The number of the line at `index0` (0-based) of the block.
    fn number(&self, index0: &usize) -> usize {
        self.first + index0
    }
}

/// What an embed shows.
enum EmbedBody<'a> {
    /// Text, as blocks (one for a one-file paste or a chosen file).
    Blocks(Vec<Block<'a>>),
    /// A file that is no text: what it is, and a link to its page.
    File { content_type: &'a str, size: u64 },
}

/// `templates/embed.html`.
#[derive(Template)]
#[template(path = "embed.html")]
struct EmbedPage<'a> {
    meta: &'a PasteMeta,
    /// The page's language.
    lang: Lang,
    /// The instance's name.
    site: &'a str,
    title: String,
    theme: Theme,
    body: EmbedBody<'a>,
}

/// How many lines the embed of `meta` (body starting with `body`) shows
/// for `query`, for an oEmbed answer's height; `Err` as [`page`] refuses.
pub fn shown_lines(meta: &PasteMeta, body: &[u8], query: &EmbedQuery) -> Result<usize, ApiError> {
    Ok(match content(meta, body, query)? {
        EmbedBody::Blocks(blocks) => blocks
            .iter()
            .map(|block| block.code.as_ref().map_or(1, Code::shown_lines) + 2)
            .sum(),
        EmbedBody::File { .. } => 3,
    })
}

/// The embed page of a [`super::preview::shareable`] paste of `meta`,
/// whose body starts with at least [`VIEW_MAX_BYTES`] of it (or all of it),
/// for `query`, on the instance called `site`: `400` for lines it has
/// not, `404` for a file it has not.
pub fn page(
    meta: &PasteMeta,
    body: &[u8],
    query: &EmbedQuery,
    site: &str,
    lang: Lang,
) -> Result<String, ApiError> {
    let page = EmbedPage {
        meta,
        lang,
        site,
        title: super::preview::title(meta, body),
        theme: query.theme,
        body: content(meta, body, query)?,
    };
    let shown = body.len().min(VIEW_MAX_BYTES);
    Ok(super::layout::render(&page, 2048 + shown + shown / 4))
}

/// What the embed of `meta` shows for `query`.
fn content<'a>(
    meta: &'a PasteMeta,
    body: &'a [u8],
    query: &'a EmbedQuery,
) -> Result<EmbedBody<'a>, ApiError> {
    if meta.files.is_empty() {
        if query.file.is_some() {
            return Err(ApiError::not_found_because(
                "this paste holds one file: embed it without file=",
            ));
        }
        let text = (meta.content_type == paste::TEXT_PLAIN)
            .then(|| shown_text(body))
            .flatten();
        let Some(text) = text else {
            if query.lines.is_some() {
                return Err(ApiError::bad_request("lines= needs a paste of text"));
            }
            return Ok(EmbedBody::File {
                content_type: &meta.content_type,
                size: meta.size,
            });
        };
        let size = usize::try_from(meta.size).unwrap_or(usize::MAX);
        let code = Code::new(text, size.max(body.len()));
        let whole = format!("/{}", meta.id);
        let block = block(None, meta.lang.as_deref(), code, query.lines, whole)?;
        return Ok(EmbedBody::Blocks(vec![block]));
    }
    let views = file_views(meta, body);
    let chosen: Vec<FileView<'a>> = match &query.file {
        None if query.lines.is_some() => {
            return Err(ApiError::bad_request(
                "lines= of a paste of several files needs file=NAME too",
            ));
        }
        None => views,
        Some(name) => {
            let view = views
                .into_iter()
                .find(|view| view.name == name.as_str())
                .ok_or_else(|| {
                    ApiError::not_found_because("this paste holds no file of that name")
                })?;
            vec![view]
        }
    };
    let mut blocks = Vec::with_capacity(chosen.len());
    for view in chosen {
        let whole = format!("/{}#file-{}", meta.id, view.segment);
        match view.code {
            Some(code) => blocks.push(block(Some(view.name), view.lang, code, query.lines, whole)?),
            None if query.lines.is_some() => {
                return Err(ApiError::bad_request(
                    "lines= needs a file of text shown whole enough to hold them",
                ));
            }
            // A file that is no text, or past what the page shows: its
            // heading and where it is.
            None => blocks.push(Block {
                name: Some(view.name),
                lang: None,
                code: None,
                first: 1,
                rest: Some(whole),
            }),
        }
    }
    Ok(EmbedBody::Blocks(blocks))
}

/// A block of `code` (or of its `lines`), whose whole text is at `whole`.
fn block<'a>(
    name: Option<&'a str>,
    lang: Option<&'a str>,
    code: Code<'a>,
    lines: Option<LineRange>,
    whole: String,
) -> Result<Block<'a>, ApiError> {
    let Some(range) = lines else {
        let rest = code.cut.then_some(whole);
        return Ok(Block {
            name,
            lang,
            code: Some(code),
            first: 1,
            rest,
        });
    };
    let text = line_span(code.text, range).ok_or_else(|| {
        let count = code.shown_lines();
        ApiError::bad_request(match code.cut {
            true => Cow::Owned(format!(
                "lines {}: an embed shows at most the first {count} lines of this text",
                range.query_value()
            )),
            false => Cow::Owned(format!(
                "lines {}: the text has {count} line{}",
                range.query_value(),
                if count == 1 { "" } else { "s" }
            )),
        })
    })?;
    Ok(Block {
        name,
        lang,
        code: Some(Code::at_most(text, text.len(), VIEW_MAX_LINES)),
        first: range.first,
        rest: Some(whole),
    })
}

/// Lines `range.first..=range.last` of `text` (with their line breaks), if
/// it has them all.
fn line_span(text: &str, range: LineRange) -> Option<&str> {
    let mut start = None;
    let mut offset = 0;
    for (index, piece) in text.split_inclusive('\n').enumerate() {
        let number = index + 1;
        if number == range.first {
            start = Some(offset);
        }
        offset += piece.len();
        if number == range.last {
            return Some(&text[start?..offset]);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_ranges_parse_strictly() {
        let range = |first, last| Some(LineRange { first, last });
        assert_eq!(LineRange::parse("10-40"), range(10, 40));
        assert_eq!(LineRange::parse("7"), range(7, 7));
        for bad in [
            "",
            "0",
            "0-3",
            "4-3",
            "-3",
            "3-",
            "a",
            "1-2-3",
            " 1",
            "+1",
            "1234567890",
        ] {
            assert_eq!(LineRange::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn line_spans_hold_whole_lines() {
        let text = "a\nb\r\nc\nd";
        let range = |first, last| LineRange { first, last };
        assert_eq!(line_span(text, range(2, 3)), Some("b\r\nc\n"));
        assert_eq!(line_span(text, range(4, 4)), Some("d"));
        assert_eq!(line_span(text, range(1, 5)), None);
        assert_eq!(line_span("a\n", range(2, 2)), None);
    }

    #[test]
    fn queries_read_back() {
        let query = EmbedQuery::parse("lines=3-9&theme=dark&file=a%20b.rs&x=1").unwrap();
        assert_eq!(query.lines, Some(LineRange { first: 3, last: 9 }));
        assert_eq!(query.theme, Theme::Dark);
        assert_eq!(EmbedQuery::parse(&query.to_query()).unwrap(), query);
        assert!(EmbedQuery::parse("theme=blue").is_err());
        assert!(EmbedQuery::parse("lines=1&lines=2").is_err());
        assert!(EmbedQuery::parse("file=").is_err());
    }
}
