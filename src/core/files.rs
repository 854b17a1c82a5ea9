//! The files of a several-file paste: its file table (each file's name,
//! size, language and media type, in body order), and the safe base name
//! every file name is reduced to, by the server when a paste is created and
//! by the CLI before it writes a file to disk.
//!
//! A several-file paste is still one body, its files' bytes one after the
//! other; the table says where each starts. A one-file paste has no table.

use serde::{Deserialize, Serialize};

use super::paste::{MAX_NAME_BYTES, is_format_char};

/// The default of `--max-files`: the most files one paste may hold.
pub const DEFAULT_MAX_FILES: usize = 64;

/// One file of a several-file paste.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PasteFile {
    /// Its safe base name ([`safe_base_name`]), unique within the paste.
    pub name: String,
    /// Its length in bytes (never 0).
    pub size: u64,
    /// A language name for highlighting, from its name's extension.
    pub lang: Option<String>,
    /// The media type it is served with (`paste::content_type_for`).
    pub content_type: String,
}

/// A file of the table with where its bytes are in the paste's body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileSpan<'a> {
    /// The file.
    pub file: &'a PasteFile,
    /// Its position in the table, from 0.
    pub index: usize,
    /// Where its first byte is in the body.
    pub offset: u64,
}

/// The files of `table` with their offsets, in body order.
pub fn spans(table: &[PasteFile]) -> impl Iterator<Item = FileSpan<'_>> {
    table
        .iter()
        .enumerate()
        .scan(0u64, |offset, (index, file)| {
            let span = FileSpan {
                file,
                index,
                offset: *offset,
            };
            *offset = offset.saturating_add(file.size);
            Some(span)
        })
}

/// The file called `name` in `table`, with its offset.
pub fn find<'a>(table: &'a [PasteFile], name: &str) -> Option<FileSpan<'a>> {
    spans(table).find(|span| span.file.name == name)
}

/// Why a file name or a file table was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FileError {
    /// Nothing is left of the name once it is reduced.
    #[error("the file name {0:?} has no usable base name")]
    Unusable(String),
    /// The reduced name is longer than a name may be.
    #[error("a file name may have at most {MAX_NAME_BYTES} bytes")]
    TooLong,
    /// Two files have the same name.
    #[error("two files are named {0:?}; every file of a paste needs its own name")]
    Duplicate(String),
    /// A file is empty.
    #[error("the file {0:?} is empty")]
    Empty(String),
    /// More files than allowed.
    #[error("a paste may hold at most {0} files")]
    TooMany(usize),
    /// The sizes do not add up to the body's.
    #[error("the files' sizes add up to {sum} bytes, not the paste's {size}")]
    Sizes {
        /// The sum of the files' sizes.
        sum: u64,
        /// The paste's size.
        size: u64,
    },
}

/// Reduces a file name as a client sent it to a safe base name: the part
/// after its last `/` or `\`, without control or format (bidi)
/// characters, trimmed of white space. Refused if nothing usable is left
/// (empty, `.`, `..`) or if it is longer than [`MAX_NAME_BYTES`].
pub fn safe_base_name(raw: &str) -> Result<String, FileError> {
    let base = raw
        .rsplit(['/', '\\'])
        .find(|segment| !segment.trim().is_empty())
        .unwrap_or("");
    let name: String = base
        .chars()
        .filter(|&c| !c.is_control() && !is_format_char(c))
        .collect();
    let name = name.trim();
    if name.is_empty() || name == "." || name == ".." {
        return Err(FileError::Unusable(raw.chars().take(64).collect()));
    }
    if name.len() > MAX_NAME_BYTES {
        return Err(FileError::TooLong);
    }
    Ok(name.to_owned())
}

/// Whether `name` is already a safe base name (what a reader checks of a
/// name it did not reduce itself, such as a server's).
pub fn is_safe_base_name(name: &str) -> bool {
    safe_base_name(name).is_ok_and(|safe| safe == name)
}

/// `name` as one URL path segment (`/raw/{id}/{name}`): every byte but
/// the unreserved ones percent-encoded.
pub fn path_segment(name: &str) -> String {
    name.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// Checks a file table against its paste's body size: at most `max`
/// files (when given), each safely named, none empty, no name twice, sizes
/// adding up to `size`. A one-file paste's empty table passes.
pub fn check_table(table: &[PasteFile], size: u64, max: Option<usize>) -> Result<(), FileError> {
    if table.is_empty() {
        return Ok(());
    }
    if let Some(max) = max.filter(|&max| table.len() > max) {
        return Err(FileError::TooMany(max));
    }
    let mut seen = std::collections::HashSet::with_capacity(table.len());
    let mut sum = 0u64;
    for file in table {
        if !is_safe_base_name(&file.name) {
            return Err(FileError::Unusable(file.name.chars().take(64).collect()));
        }
        if file.size == 0 {
            return Err(FileError::Empty(file.name.clone()));
        }
        if !seen.insert(file.name.as_str()) {
            return Err(FileError::Duplicate(file.name.clone()));
        }
        sum = sum.saturating_add(file.size);
    }
    if sum != size {
        return Err(FileError::Sizes { sum, size });
    }
    Ok(())
}

/// The highlighting language of a file called `name`, from its extension
/// (the names the web view's highlighter knows).
pub fn language_of(name: &str) -> Option<String> {
    let lower = name.to_ascii_lowercase();
    let lang = match lower.as_str() {
        "dockerfile" => "dockerfile",
        "makefile" | "gnumakefile" => "makefile",
        _ => {
            let (_, ext) = lower.rsplit_once('.')?;
            match ext {
                "rs" => "rust",
                "py" => "python",
                "js" | "mjs" | "cjs" => "javascript",
                "ts" => "typescript",
                "go" => "go",
                "c" | "h" => "c",
                "cc" | "cpp" | "cxx" | "hpp" => "cpp",
                "java" => "java",
                "rb" => "ruby",
                "sh" | "bash" => "bash",
                "toml" => "toml",
                "yml" | "yaml" => "yaml",
                "json" => "json",
                "md" | "markdown" => "markdown",
                "html" | "htm" => "html",
                "css" => "css",
                "sql" => "sql",
                "xml" | "svg" => "xml",
                "diff" | "patch" => "diff",
                "ini" | "cfg" => "ini",
                _ => return None,
            }
        }
    };
    Some(lang.to_owned())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn file(name: &str, size: u64) -> PasteFile {
        PasteFile {
            name: name.into(),
            size,
            lang: None,
            content_type: "text/plain; charset=utf-8".into(),
        }
    }

    /// Paths, separators of both kinds, control and bidi characters are
    /// reduced to a base name; what leaves nothing usable is refused.
    #[test]
    fn names_are_reduced_to_a_safe_base_name() {
        for (raw, safe) in [
            ("main.rs", "main.rs"),
            ("src/main.rs", "main.rs"),
            ("../../etc/passwd", "passwd"),
            ("C:\\Users\\x\\notes.md", "notes.md"),
            ("dir/", "dir"),
            ("a\u{0}b\n.txt", "ab.txt"),
            ("invoice\u{202E}fdp.exe", "invoicefdp.exe"),
            ("  spaced name.txt ", "spaced name.txt"),
            (".gitignore", ".gitignore"),
            ("a..b", "a..b"),
        ] {
            assert_eq!(safe_base_name(raw).as_deref(), Ok(safe), "{raw:?}");
        }
        for raw in ["", "/", "..", ".", "a/..", "\\\\", "\u{202E}", "x/ \u{7}"] {
            assert!(
                matches!(safe_base_name(raw), Err(FileError::Unusable(_))),
                "{raw:?}"
            );
        }
        assert_eq!(safe_base_name(&"é".repeat(128)), Err(FileError::TooLong));
        assert!(safe_base_name(&"a".repeat(255)).is_ok());
        assert!(is_safe_base_name("main.rs"));
        assert!(!is_safe_base_name("../main.rs"));
        assert!(!is_safe_base_name("x\u{202E}"));
    }

    /// Offsets follow the sizes; lookups find a name's span.
    #[test]
    fn spans_and_lookups() {
        let table = [file("a", 3), file("b", 5), file("c", 1)];
        let offsets: Vec<u64> = spans(&table).map(|s| s.offset).collect();
        assert_eq!(offsets, [0, 3, 8]);
        let b = find(&table, "b").unwrap();
        assert_eq!((b.index, b.offset, b.file.size), (1, 3, 5));
        assert!(find(&table, "d").is_none());
    }

    /// A table is refused for too many, empty, duplicate or unsafe files,
    /// or sizes that do not add up.
    #[test]
    fn tables_are_checked() {
        assert_eq!(check_table(&[], 10, Some(1)), Ok(()));
        let good = [file("a", 3), file("b", 5)];
        assert_eq!(check_table(&good, 8, Some(2)), Ok(()));
        assert_eq!(check_table(&good, 8, Some(1)), Err(FileError::TooMany(1)));
        assert_eq!(
            check_table(&good, 9, None),
            Err(FileError::Sizes { sum: 8, size: 9 })
        );
        assert_eq!(
            check_table(&[file("a", 3), file("a", 5)], 8, None),
            Err(FileError::Duplicate("a".into()))
        );
        assert_eq!(
            check_table(&[file("a", 0), file("b", 8)], 8, None),
            Err(FileError::Empty("a".into()))
        );
        assert!(matches!(
            check_table(&[file("../a", 3), file("b", 5)], 8, None),
            Err(FileError::Unusable(_))
        ));
    }

    #[test]
    fn languages_from_extensions() {
        assert_eq!(language_of("main.rs").as_deref(), Some("rust"));
        assert_eq!(language_of("Cargo.toml").as_deref(), Some("toml"));
        assert_eq!(language_of("Makefile").as_deref(), Some("makefile"));
        assert_eq!(language_of("notes"), None);
    }
}
