//! `snip login` where the provider offers no device flow: the loopback
//! redirect of RFC 8252. The CLI listens on `127.0.0.1` on a port the
//! system picks, makes a `state`, a `nonce` and a PKCE verifier, asks the
//! server for the provider's authorization URL back to
//! `http://127.0.0.1:PORT/snip-login` (`POST /api/login/loopback`), and
//! prints it. The browser signs in there and is sent back to the listener
//! with a code; the CLI checks the `state`, answers the browser a short
//! page, and hands the code and the verifier to the server
//! (`POST /api/login/loopback/token`), which redeems it with its own client
//! secret and answers the login credential.
//!
//! The listener reads one bounded request head at a time, each within a
//! few seconds; anything but `GET /snip-login` is answered `404` and
//! waited past. Nobody coming back within the timeout ends the login.

use std::io::Write;
use std::time::Duration;

use anyhow::{Context, bail};
use base64::Engine as _;
use reqwest::Url;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::login::Login;
use super::{check, send};

/// The path of the loopback redirect URI (the server's `LOOPBACK_PATH`).
const PATH: &str = "/snip-login";

/// The largest request head the listener reads.
const MAX_HEAD: usize = 8 * 1024;

/// How long one connection may take to send its request head.
const HEAD_TIME: Duration = Duration::from_secs(5);

/// 32 random bytes, base64url.
fn random() -> anyhow::Result<String> {
    let mut raw = [0u8; 32];
    getrandom::fill(&mut raw).map_err(|e| anyhow::anyhow!("no randomness: {e}"))?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(raw))
}

/// What the browser brought back.
enum Answer {
    /// The provider's code.
    Code(String),
    /// The provider's error (refused or cancelled).
    Refused(String),
    /// A request for another path, or not a sign-in's answer.
    Other,
}

/// Signs in through the browser and the loopback listener within `timeout`:
/// the login credential the server answers.
pub async fn sign_in(
    http: &reqwest::Client,
    base: &Url,
    timeout: Duration,
) -> anyhow::Result<Login> {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .context("cannot listen on 127.0.0.1 for the sign-in's redirect")?;
    let port = listener.local_addr()?.port();
    let redirect_uri = format!("http://127.0.0.1:{port}{PATH}");
    let (state, nonce, verifier) = (random()?, random()?, random()?);
    let challenge = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(Sha256::digest(verifier.as_bytes()));
    let started: serde_json::Value = send(
        http.post(base.join("api/login/loopback")?)
            .json(&serde_json::json!({
                "redirect_uri": redirect_uri,
                "state": state,
                "nonce": nonce,
                "code_challenge": challenge,
            })),
        base,
    )
    .await?
    .json()
    .await
    .context("unexpected answer from the server")?;
    let url = started["authorization_url"]
        .as_str()
        .context("unexpected answer from the server")?;
    let (shown, _) = super::terminal::neutralise(url);
    let mut err = std::io::stderr();
    writeln!(err, "To sign in, open {shown}")?;
    writeln!(
        err,
        "Waiting for the sign-in (up to {} s)…",
        timeout.as_secs()
    )?;
    let deadline = tokio::time::Instant::now() + timeout;
    let code = loop {
        let accepted = tokio::time::timeout_at(deadline, listener.accept()).await;
        let Ok(accepted) = accepted else {
            bail!(
                "nobody signed in within {} s; run snip login again",
                timeout.as_secs()
            );
        };
        let Ok((mut stream, _)) = accepted else {
            continue;
        };
        let answer = match tokio::time::timeout(HEAD_TIME, answer_of(&mut stream, &state)).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(e)) => {
                reply(&mut stream, 400, "This is not the answer of this sign-in.").await;
                return Err(e);
            }
            Err(_) => continue,
        };
        match answer {
            Answer::Code(code) => {
                reply(
                    &mut stream,
                    200,
                    "Signed in to snip. You can close this tab and go back to the terminal.",
                )
                .await;
                break code;
            }
            Answer::Refused(error) => {
                reply(&mut stream, 200, "The sign-in did not complete.").await;
                let (error, _) = super::terminal::neutralise(&error);
                bail!("the identity provider did not sign you in ({error}); run snip login again");
            }
            Answer::Other => reply(&mut stream, 404, "Not found.").await,
        }
    };
    let response = http
        .post(base.join("api/login/loopback/token")?)
        .json(&serde_json::json!({
            "redirect_uri": redirect_uri,
            "code": code,
            "code_verifier": verifier,
            "nonce": nonce,
        }))
        .send()
        .await
        .with_context(|| format!("cannot reach {base}"))?;
    check(response)
        .await?
        .json()
        .await
        .context("unexpected answer from the server")
}

/// Reads one request head from `stream`: the code of a `GET /snip-login`
/// whose `state` is `state`; an error for one with another `state`.
async fn answer_of(stream: &mut TcpStream, state: &str) -> anyhow::Result<Answer> {
    let mut head = Vec::new();
    let mut buffer = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let read = stream.read(&mut buffer).await?;
        if read == 0 || head.len() + read > MAX_HEAD {
            return Ok(Answer::Other);
        }
        head.extend_from_slice(&buffer[..read]);
    }
    let head = String::from_utf8_lossy(&head);
    let mut words = head.lines().next().unwrap_or("").split(' ');
    let (Some("GET"), Some(target)) = (words.next(), words.next()) else {
        return Ok(Answer::Other);
    };
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    if path != PATH {
        return Ok(Answer::Other);
    }
    let field = |name: &str| {
        form_urlencoded::parse(query.as_bytes())
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.into_owned())
    };
    let answered = field("state").unwrap_or_default();
    if !bool::from(answered.as_bytes().ct_eq(state.as_bytes())) {
        bail!(
            "the browser brought back an answer that does not belong to this sign-in (wrong state); run snip login again"
        );
    }
    if let Some(error) = field("error") {
        return Ok(Answer::Refused(error.chars().take(64).collect()));
    }
    match field("code").filter(|code| !code.is_empty()) {
        Some(code) => Ok(Answer::Code(code)),
        None => bail!("the provider's answer carries no code; run snip login again"),
    }
}

/// Answers the browser a plain page with `status` and `text`.
async fn reply(stream: &mut TcpStream, status: u16, text: &str) {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        _ => "Not Found",
    };
    let page = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: text/plain; charset=utf-8\r\n\
         content-length: {}\r\ncache-control: no-store\r\nconnection: close\r\n\r\n{text}\n",
        text.len() + 1
    );
    // The browser may have gone; the login's outcome does not depend on it.
    let _ = stream.write_all(page.as_bytes()).await;
    let _ = stream.shutdown().await;
}
