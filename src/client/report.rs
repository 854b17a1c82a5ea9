//! How a client command reports the error it ends with: one line, each
//! cause after the one it explains.
//!
//! An HTTP client error is several layers of the same event ("error sending
//! request for url (…)", "client error (Connect)", "tcp connect error"),
//! each repeating what the context already says; only the innermost says
//! what happened ("Connection refused", a certificate the system does not
//! trust, a name that does not resolve). So the chain stops at the HTTP
//! client's error and gives that cause instead.

/// `error` and its causes as one line, `: `-separated.
pub fn error_line(error: &anyhow::Error) -> String {
    let mut parts = Vec::new();
    for cause in error.chain() {
        if cause.downcast_ref::<reqwest::Error>().is_some() {
            parts.push(innermost(cause).to_string());
            break;
        }
        parts.push(cause.to_string());
    }
    parts.join(": ")
}

fn innermost<'a>(
    mut error: &'a (dyn std::error::Error + 'static),
) -> &'a (dyn std::error::Error + 'static) {
    while let Some(source) = error.source() {
        error = source;
    }
    error
}

#[cfg(test)]
mod tests {
    use anyhow::Context as _;

    use super::*;

    /// A connection refused (nothing listens on the discard port) reads as
    /// the context and the refusal, without the client's layers.
    #[tokio::test]
    async fn a_refused_connection_is_one_cause() {
        let refused = crate::client::client()
            .unwrap()
            .get("http://127.0.0.1:9/")
            .send()
            .await
            .map(drop)
            .context("cannot reach http://127.0.0.1:9/")
            .expect_err("nothing listens on the discard port");
        let line = error_line(&refused);
        assert!(
            line.starts_with("cannot reach http://127.0.0.1:9/: Connection refused"),
            "{line}"
        );
        assert!(!line.contains("error sending request"), "{line}");
    }

    /// Errors of other kinds keep every cause.
    #[test]
    fn other_causes_are_all_kept() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let error = anyhow::Error::new(io).context("cannot read x");
        assert_eq!(error_line(&error), "cannot read x: no such file");
    }
}
