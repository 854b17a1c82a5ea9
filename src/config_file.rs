//! Reading a TOML config file into a typed struct, for the server's
//! `--config` file and the client's `config.toml` alike.
//!
//! The struct is the caller's (`serde`, `deny_unknown_fields`, kebab-case
//! keys). Keys may also be written with `_` for `-` (`public_url`); both
//! spellings of one key in one file are refused. Every error names the file,
//! the line and, when there is one, the key, so that a typo or a wrong value
//! is found without guessing.

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use toml::Spanned;
use toml::de::DeTable;

/// Why a config file does not make settings.
#[derive(Debug, thiserror::Error)]
pub enum ConfigFileError {
    /// The file cannot be read (missing, unreadable, not UTF-8).
    #[error("cannot read config file {}: {error}", path.display())]
    Read {
        path: PathBuf,
        error: std::io::Error,
    },
    /// The file is not TOML.
    #[error("{place}: not valid TOML: {message}")]
    Syntax { place: Place, message: String },
    /// A key that is no setting.
    #[error("{place}: unknown key '{key}'")]
    UnknownKey { place: Place, key: String },
    /// One key written twice, once with `-` and once with `_`.
    #[error("{place}: '{key}' is given twice")]
    Repeated { place: Place, key: String },
    /// The file as a whole does not make the settings (no one key to blame).
    #[error("{place}: {message}")]
    Invalid { place: Place, message: String },
    /// A key whose value is of the wrong type or refused by its parser.
    #[error("{place}: {key}: {message}")]
    Value {
        place: Place,
        key: String,
        message: String,
    },
}

impl ConfigFileError {
    /// Whether the file is simply not there (which some callers allow).
    pub fn is_missing(&self) -> bool {
        matches!(self, Self::Read { error, .. } if error.kind() == std::io::ErrorKind::NotFound)
    }
}

/// A file and a line in it (1-based), shown as `config file PATH, line N`.
#[derive(Debug, Clone)]
pub struct Place {
    pub path: PathBuf,
    pub line: Option<usize>,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "config file {}", self.path.display())?;
        match self.line {
            Some(line) => write!(f, ", line {line}"),
            None => Ok(()),
        }
    }
}

/// Reads the file at `path` into `T`.
pub fn load<T: DeserializeOwned>(path: &Path) -> Result<T, ConfigFileError> {
    let text = std::fs::read_to_string(path).map_err(|error| ConfigFileError::Read {
        path: path.to_owned(),
        error,
    })?;
    from_text(path, &text)
}

/// [`load`] of a file's `text`; `path` is only for the errors.
pub fn from_text<T: DeserializeOwned>(path: &Path, text: &str) -> Result<T, ConfigFileError> {
    let place = |span: Option<Range<usize>>| Place {
        path: path.to_owned(),
        line: span.map(|span| line_of(text, span.start)),
    };
    let document = DeTable::parse(text).map_err(|error| ConfigFileError::Syntax {
        place: place(error.span()),
        message: error.message().trim_end().to_owned(),
    })?;
    let document_span = document.span();
    let mut table = DeTable::new();
    // Where each key and its value are, to name the key of an error that
    // points into a value.
    let mut entries: Vec<(String, Range<usize>)> = Vec::new();
    for (key, value) in document.into_inner() {
        let span = key.span();
        let name = key.get_ref().replace('_', "-");
        entries.push((name.clone(), span.start..value.span().end));
        let key = Spanned::new(span.clone(), name.clone().into());
        if table.insert(key, value).is_some() {
            return Err(ConfigFileError::Repeated {
                place: place(Some(span)),
                key: name,
            });
        }
    }
    let root = Spanned::new(document_span, table);
    T::deserialize(toml::de::Deserializer::from(root)).map_err(|error| {
        let span = error.span();
        let key = span.as_ref().and_then(|span| {
            entries
                .iter()
                .find(|(_, entry)| entry.start <= span.start && span.end <= entry.end)
                .map(|(name, _)| name.clone())
        });
        let message = error.message().trim_end().to_owned();
        match key {
            Some(key) if message.starts_with("unknown field") => ConfigFileError::UnknownKey {
                place: place(span),
                key,
            },
            Some(key) => ConfigFileError::Value {
                place: place(span),
                key,
                message,
            },
            None => ConfigFileError::Invalid {
                place: place(span),
                message,
            },
        }
    })
}

/// The 1-based line of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    let before = text.get(..offset).unwrap_or(text);
    before.bytes().filter(|&b| b == b'\n').count() + 1
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "kebab-case")]
    struct Sample {
        max_size: Option<u64>,
        names: Option<Vec<String>>,
    }

    fn read(text: &str) -> Result<Sample, String> {
        from_text(Path::new("/etc/x.toml"), text).map_err(|e| e.to_string())
    }

    /// Keys with `-` or `_`, arrays, and errors naming file, line and key.
    #[test]
    fn keys_values_and_errors() {
        let ok = read("max_size = 3\nnames = [\"a\", \"b\"]\n").unwrap();
        assert_eq!(ok.max_size, Some(3));
        assert_eq!(ok.names.unwrap(), ["a", "b"]);
        assert_eq!(
            read("max-size = 1\n\nmax-sise = 2\n").unwrap_err(),
            "config file /etc/x.toml, line 3: unknown key 'max-sise'"
        );
        let wrong = read("names = []\nmax-size = \"big\"\n").unwrap_err();
        assert!(
            wrong.starts_with("config file /etc/x.toml, line 2: max-size: "),
            "{wrong}"
        );
        let twice = read("max-size = 1\nmax_size = 2\n").unwrap_err();
        assert!(twice.contains("'max-size' is given twice"), "{twice}");
        let syntax = read("a = 1\nb = \n").unwrap_err();
        assert!(
            syntax.starts_with("config file /etc/x.toml, line 2: not valid TOML"),
            "{syntax}"
        );
    }
}
