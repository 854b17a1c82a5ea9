//! Searching a tenant's pastes: the words a query asks for (`Terms`), and
//! what of a paste is searchable (`Searchable`), one definition for both
//! stores, so that the embedded index and PostgreSQL's full-text search see
//! the same words.
//!
//! A word is a run of letters and digits (Unicode's alphanumerics), lower
//! case, at most [`MAX_WORD_BYTES`] long; everything else separates words.
//! That is the tokenizer of the embedded index (tantivy's default), and the
//! text handed to PostgreSQL is reduced to such words joined by spaces, so
//! its parser never sees a URL, a path or a version number as one token.
//!
//! Only what is bounded is searchable: a paste's names and languages, and
//! the first [`INDEXED_BYTES`] of its text. Never the content of an
//! encrypted paste (the server sees only ciphertext), of a burn paste (a
//! search that matches would tell something of a paste meant to be read
//! once, by its reveal), of a short link, or of bytes that are not text.

use super::files;
use super::paste::{MAX_NAME_BYTES, PasteMeta, is_format_char};

/// The most bytes of a paste's text that are searchable: the first 64 KiB,
/// which hold the whole of nearly every paste, and the head of a long log
/// (where its header, commands and first errors are). It bounds the index's
/// size per paste and the work a create adds.
pub const INDEXED_BYTES: usize = 64 << 10;

/// The longest word indexed (tantivy's default limit): longer runs are
/// hashes, base64 and the like, which nobody types.
pub const MAX_WORD_BYTES: usize = 40;

/// The longest query, in bytes.
pub const MAX_QUERY_BYTES: usize = MAX_NAME_BYTES;

/// The most words a query may have.
pub const MAX_QUERY_WORDS: usize = 16;

/// Why a query was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    /// Longer than [`MAX_QUERY_BYTES`].
    #[error("q must be at most {MAX_QUERY_BYTES} bytes")]
    TooLong,
    /// Control or invisible format characters.
    #[error("q must not hold control or invisible format characters")]
    BadCharacter,
    /// No word to search for.
    #[error("q must hold at least one word (letters or digits)")]
    NoWords,
    /// More than [`MAX_QUERY_WORDS`] words.
    #[error("q may hold at most {MAX_QUERY_WORDS} words")]
    TooManyWords,
}

/// The words a search asks for: a paste matches if each of them is one of
/// its name's, language's or text's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Terms(Vec<String>);

impl Terms {
    /// Parses a query as a person typed it.
    pub fn parse(query: &str) -> Result<Self, QueryError> {
        if query.len() > MAX_QUERY_BYTES {
            return Err(QueryError::TooLong);
        }
        if query.chars().any(|c| c.is_control() || is_format_char(c)) {
            return Err(QueryError::BadCharacter);
        }
        let mut terms: Vec<String> = Vec::new();
        for word in words(query) {
            if !terms.contains(&word) {
                terms.push(word);
            }
        }
        match terms.len() {
            0 => Err(QueryError::NoWords),
            n if n > MAX_QUERY_WORDS => Err(QueryError::TooManyWords),
            _ => Ok(Self(terms)),
        }
    }

    /// The words, lower case, each once.
    pub fn words(&self) -> &[String] {
        &self.0
    }

    /// The words joined by spaces: for PostgreSQL, whose
    /// `websearch_to_tsquery` then asks for all of them.
    pub fn joined(&self) -> String {
        self.0.join(" ")
    }
}

/// The words of `text`, lower case, in order, each at most
/// [`MAX_WORD_BYTES`] (longer ones are left out).
pub fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && w.len() <= MAX_WORD_BYTES)
        .map(str::to_lowercase)
        .filter(|w| w.len() <= MAX_WORD_BYTES)
}

/// What of a paste is searchable, as words joined by spaces.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Searchable {
    /// The paste's name and its files' names.
    pub names: String,
    /// Its language and its files' languages.
    pub langs: String,
    /// The words of the first [`INDEXED_BYTES`] of its text, if the server
    /// may know it (see the module's doc).
    pub content: String,
}

impl Searchable {
    /// What of the paste `meta` describes is searchable; `head` is the
    /// start of its body (at least its first [`INDEXED_BYTES`], or all of
    /// it), `None` when it was not read.
    pub fn of(meta: &PasteMeta, head: Option<&[u8]>) -> Self {
        let names = meta.name.iter().chain(meta.files.iter().map(|f| &f.name));
        let langs = meta
            .lang
            .iter()
            .chain(meta.files.iter().filter_map(|f| f.lang.as_ref()));
        let content = match head {
            Some(head) if content_searchable(meta) => text_of(meta, head),
            _ => String::new(),
        };
        Self {
            names: joined_words(names.map(String::as_str)),
            langs: joined_words(langs.map(String::as_str)),
            content: joined_words([content.as_str()]),
        }
    }
}

/// Whether the server may search a paste's content (see the module's doc).
pub fn content_searchable(meta: &PasteMeta) -> bool {
    !meta.encrypted && !meta.burn && meta.redirect.is_none()
}

/// The text of the first [`INDEXED_BYTES`] of `head`: of a several-file
/// paste, its text files' bytes in body order; of a one-file paste, its
/// bytes if it is text. Bytes that are not UTF-8 separate words.
fn text_of(meta: &PasteMeta, head: &[u8]) -> String {
    let head = &head[..head.len().min(INDEXED_BYTES)];
    if meta.files.is_empty() {
        return match is_text(&meta.content_type) {
            true => String::from_utf8_lossy(head).into_owned(),
            false => String::new(),
        };
    }
    let mut text = String::new();
    for span in files::spans(&meta.files) {
        let Ok(start) = usize::try_from(span.offset) else {
            break;
        };
        if start >= head.len() {
            break;
        }
        if !is_text(&span.file.content_type) {
            continue;
        }
        let end = usize::try_from(span.offset.saturating_add(span.file.size))
            .map_or(head.len(), |end| end.min(head.len()));
        text.push_str(&String::from_utf8_lossy(&head[start..end]));
        text.push(' ');
    }
    text
}

fn is_text(content_type: &str) -> bool {
    content_type.starts_with("text/")
}

fn joined_words<'a>(texts: impl IntoIterator<Item = &'a str>) -> String {
    let mut joined = String::new();
    for word in texts.into_iter().flat_map(words) {
        if !joined.is_empty() {
            joined.push(' ');
        }
        joined.push_str(&word);
    }
    joined
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::files::PasteFile;
    use crate::core::paste::tests::test_meta;

    /// Punctuation separates words, case does not count, and each word is kept once.
    #[test]
    fn parses_words() {
        let terms = Terms::parse("Deploy.sh  --force deploy ÉTÉ").unwrap();
        assert_eq!(terms.words(), ["deploy", "sh", "force", "été"]);
        assert_eq!(terms.joined(), "deploy sh force été");
    }

    /// Every refusal names its reason.
    #[test]
    fn refuses_bad_queries() {
        assert_eq!(Terms::parse(""), Err(QueryError::NoWords));
        assert_eq!(Terms::parse(" -- ! "), Err(QueryError::NoWords));
        assert_eq!(Terms::parse(&"a".repeat(256)), Err(QueryError::TooLong));
        assert_eq!(Terms::parse("a\u{202E}b"), Err(QueryError::BadCharacter));
        assert_eq!(Terms::parse("a\nb"), Err(QueryError::BadCharacter));
        let many: Vec<String> = (0..17).map(|i| format!("w{i}")).collect();
        assert_eq!(Terms::parse(&many.join(" ")), Err(QueryError::TooManyWords));
    }

    /// Long runs are not words.
    #[test]
    fn leaves_out_long_runs() {
        let long = "x".repeat(MAX_WORD_BYTES + 1);
        assert_eq!(
            words(&format!("a {long} b")).collect::<Vec<_>>(),
            ["a", "b"]
        );
    }

    /// A text paste's content is searchable, up to the bound; an encrypted
    /// or burn paste's never; names and languages always.
    #[test]
    fn what_is_searchable() {
        let meta = PasteMeta {
            name: Some("notes.md".into()),
            lang: Some("markdown".into()),
            content_type: "text/plain; charset=utf-8".into(),
            ..test_meta()
        };
        let mut body = b"Hello, World! ".to_vec();
        body.resize(INDEXED_BYTES, b' ');
        body.extend_from_slice(b"beyond");
        let found = Searchable::of(&meta, Some(&body));
        assert_eq!(found.names, "notes md");
        assert_eq!(found.langs, "markdown");
        assert_eq!(found.content, "hello world");
        for meta in [
            PasteMeta {
                encrypted: true,
                ..meta.clone()
            },
            PasteMeta {
                burn: true,
                ..meta.clone()
            },
            PasteMeta {
                content_type: "application/octet-stream".into(),
                ..meta.clone()
            },
        ] {
            let found = Searchable::of(&meta, Some(b"secret words"));
            assert_eq!(found.content, "");
            assert_eq!(found.names, "notes md");
        }
    }

    /// A several-file paste: every file's name and language, and its text files' words.
    #[test]
    fn several_files() {
        let file = |name: &str, size, lang: Option<&str>, kind: &str| PasteFile {
            name: name.into(),
            size,
            lang: lang.map(Into::into),
            content_type: kind.into(),
        };
        let meta = PasteMeta {
            content_type: "application/zip".into(),
            files: vec![
                file("main.rs", 8, Some("rust"), "text/plain; charset=utf-8"),
                file("logo.png", 4, None, "image/png"),
                file("b.txt", 5, None, "text/plain; charset=utf-8"),
            ],
            ..test_meta()
        };
        let found = Searchable::of(&meta, Some(b"fn main(PNG!hello"));
        assert_eq!(found.names, "main rs logo png b txt");
        assert_eq!(found.langs, "rust");
        assert_eq!(found.content, "fn main hello");
    }
}
