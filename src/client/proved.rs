//! `snip get` of an encrypted paste that is read only with a proof of key
//! (`docs/envelope.md`): the final key is derived first, from the link key,
//! the password and the paste's public salt, and its proof goes with the
//! read. A wrong password or key is then refused by the server before
//! anything is served or burnt, so the reader may try again.

use std::io::IsTerminal;

use anyhow::{Context, anyhow, bail};
use reqwest::StatusCode;

use super::error_answer::ErrorAnswer;
use super::{PasteUrl, auth, check, download, password_from_env};
use crate::core::ErrorCode;
use crate::core::api::{PasteInfo, ProofParams};
use crate::core::envelope::{self, FinalKey, Key, MAX_ITERATIONS, Meta};

/// The header the proof travels in.
const PROOF_HEADER: &str = "x-snip-proof";

/// How many passwords a person may type before `snip get` gives up.
const TRIES: u32 = 3;

/// What a read brings to the server.
pub(super) struct Reader<'a> {
    /// The HTTP client.
    pub client: &'a reqwest::Client,
    /// The paste's link.
    pub target: &'a PasteUrl,
    /// The tenant token, if any.
    pub token: Option<&'a str>,
}

/// Reads the paste `info` with the proof of `key` (and the password, when
/// its envelope needs one) and opens it: its sealed metadata and content.
pub(super) async fn get(
    reader: &Reader<'_>,
    info: &PasteInfo,
    params: &ProofParams,
    key: &Key,
) -> anyhow::Result<(Meta, Vec<u8>)> {
    let salt = params
        .salt_bytes()
        .ok_or_else(|| anyhow!("the server sent a malformed salt for this paste"))?;
    if params.iterations == 0 {
        let final_key = FinalKey::derive(key, None, &salt, 0);
        return match read(reader, info, &final_key).await? {
            Some(bytes) => open(&bytes, &final_key),
            None => bail!(
                "the key in the link is wrong (a character may be missing or changed); \
                 the paste is intact"
            ),
        };
    }
    if params.iterations > MAX_ITERATIONS {
        bail!(envelope::EnvelopeError::TooManyIterations(
            params.iterations
        ));
    }
    let interactive = std::io::stderr().is_terminal();
    let mut from_env = password_from_env()?;
    let mut typed = 0;
    loop {
        let password = match from_env.take() {
            Some(password) => password,
            None if interactive && typed < TRIES => {
                typed += 1;
                rpassword::prompt_password("Password: ")
                    .context("cannot read the password from the terminal")?
            }
            None if interactive => {
                bail!("wrong password (or key), {TRIES} times; the paste is intact")
            }
            None => {
                bail!("this paste needs a password: set SNIP_PASSWORD, or run snip on a terminal")
            }
        };
        let final_key = FinalKey::derive(key, Some(&password), &salt, params.iterations);
        match read(reader, info, &final_key).await? {
            Some(bytes) => return open(&bytes, &final_key),
            None if interactive => {
                eprintln!("snip: wrong password (or key); the paste is intact, try again");
            }
            None => bail!("wrong password or key (SNIP_PASSWORD); the paste is intact"),
        }
    }
}

/// Reads the ciphertext with the proof of `final_key`: a burn paste by
/// revealing it, any other by its raw route. `None` if the server refused
/// the proof (nothing was served or burnt).
async fn read(
    reader: &Reader<'_>,
    info: &PasteInfo,
    final_key: &FinalKey,
) -> anyhow::Result<Option<Vec<u8>>> {
    let target = reader.target;
    let request = if info.burn {
        let reveal = target.base.join(&format!("{}/reveal", target.id))?;
        reader.client.post(reveal)
    } else {
        reader.client.get(target.endpoint("raw/")?)
    };
    let response = auth::authorize(request, reader.token)
        .header(PROOF_HEADER, final_key.proof().to_text())
        // Errors as JSON, to tell a wrong proof by its code; a paste comes
        // back raw whatever is accepted.
        .header(reqwest::header::ACCEPT, "application/json")
        .send()
        .await
        .with_context(|| format!("cannot reach {}", target.base))?;
    if response.status() == StatusCode::FORBIDDEN {
        let text = response.text().await.unwrap_or_default();
        return match ErrorAnswer::parse(&text) {
            Some(answer) if answer.code() == Some(ErrorCode::WrongProof) => Ok(None),
            Some(answer) => bail!("server answered 403: {}", answer.message()),
            None => bail!("server answered 403: {}", text.trim()),
        };
    }
    Ok(Some(download(check(response).await?).await?))
}

fn open(bytes: &[u8], final_key: &FinalKey) -> anyhow::Result<(Meta, Vec<u8>)> {
    Ok(envelope::open_with(bytes, final_key)?)
}
