//! An error answer as the client reads it (`{"error":{"code","message"}}`),
//! tolerant of a code this client does not know: a newer server may answer
//! with one, and its message is still worth printing.

use serde::{Deserialize, Deserializer};

use crate::core::ErrorCode;

/// The parts of an error answer the client uses.
#[derive(Debug, Deserialize)]
pub(crate) struct ErrorAnswer {
    error: Detail,
}

#[derive(Debug, Deserialize)]
struct Detail {
    #[serde(deserialize_with = "known_code")]
    code: Option<ErrorCode>,
    message: String,
}

/// A code this client knows, or `None` for one it does not.
fn known_code<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<ErrorCode>, D::Error> {
    let code = String::deserialize(deserializer)?;
    Ok(serde_json::from_value(serde_json::Value::String(code)).ok())
}

impl ErrorAnswer {
    /// Reads an answer's body; `None` if it is not an error answer at all.
    pub(crate) fn parse(body: &str) -> Option<Self> {
        serde_json::from_str(body).ok()
    }

    /// The code, if this client knows it.
    pub(crate) fn code(&self) -> Option<ErrorCode> {
        self.error.code
    }

    /// The server's one-line message.
    pub(crate) fn message(&self) -> &str {
        &self.error.message
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_and_unknown_codes() {
        let known = ErrorAnswer::parse(r#"{"error":{"code":"wrong_proof","message":"no"}}"#);
        assert_eq!(
            known.as_ref().and_then(ErrorAnswer::code),
            Some(ErrorCode::WrongProof)
        );
        let newer = ErrorAnswer::parse(r#"{"error":{"code":"from_the_future","message":"later"}}"#)
            .expect("an error answer");
        assert_eq!(newer.code(), None);
        assert_eq!(newer.message(), "later");
        assert!(ErrorAnswer::parse("plain text").is_none());
    }
}
