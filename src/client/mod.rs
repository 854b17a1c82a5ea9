//! The `snip` client commands: a thin layer over the HTTP API. `put`, `get`
//! and `delete` live here, `list` and `shorten` in [`user`], the admin
//! commands in [`admin`]. All send the tenant token of [`auth`] when there is one.
//! `backup`, `restore` and `migrate` live in [`backup`], with the store flags
//! of [`store_args`] that `snip serve` shares.
//!
//! With `put --encrypt` the client seals each paste in an envelope
//! ([`crate::core::envelope`]) before upload and prints `URL#KEY`; the key
//! never reaches the server. `get URL#KEY` opens it again, proving the key
//! (and password) to the server first (`proved.rs`), so a wrong one never
//! destroys a burn paste.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, anyhow, bail};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use clap::Args;
use reqwest::{StatusCode, Url};
use serde::de::DeserializeOwned;

use crate::core::api::{Created, DELETE_TOKEN_HEADER, PasteInfo};
use crate::core::envelope::{self, EnvelopeError, Key};
use crate::core::{PasteId, Ttl};

pub mod admin;
pub mod auth;
pub mod backup;
mod bundle;
mod error_answer;
pub mod login;
mod loopback;
mod progress;
mod proved;
pub mod report;
pub mod settings;
pub mod store_args;
mod terminal;
mod tokens;
mod upload;
pub mod user;

pub use auth::TokenArg;
use error_answer::ErrorAnswer;
use settings::ClientConfig;
pub use store_args::StoreArgs;
pub use user::{ListArgs, ShortenArgs};

/// Where the client sends requests.
#[derive(Debug, Clone, Args)]
pub struct ServerArg {
    /// The snip server to talk to; `host:port` means http [default: the
    /// SNIP_SERVER environment variable, then the config file's server, then
    /// http://127.0.0.1:8000].
    #[arg(long)]
    pub server: Option<String>,
}

impl ServerArg {
    /// The server named by the flag, `SNIP_SERVER` or the config file.
    pub fn url(&self) -> anyhow::Result<String> {
        Ok(ClientConfig::load()?.server(self.server.as_deref()).value)
    }
}

/// `snip put`.
#[derive(Debug, Clone, Args)]
pub struct PutArgs {
    /// Files to upload: several make one paste holding them all, each under
    /// its base name (with --each, one paste each) [default: standard input].
    pub files: Vec<PathBuf>,
    /// One paste per file, instead of one paste holding every file.
    #[arg(long)]
    pub each: bool,
    /// Lifetime: seconds, 30s, 10m, 1h, 1d, 1w, or never [default: SNIP_TTL,
    /// then the config file's ttl, then the server's].
    #[arg(short, long)]
    pub ttl: Option<String>,
    /// Burn after reading: the first reader destroys it [default: SNIP_BURN,
    /// then the config file's burn].
    #[arg(short, long)]
    pub burn: bool,
    /// Language for highlighting (e.g. rust, python).
    #[arg(short, long)]
    pub lang: Option<String>,
    /// File name [default: the file's own name].
    #[arg(short, long)]
    pub name: Option<String>,
    /// Encrypt on this machine before uploading (lang and name too). The key is
    /// only in the printed link, after the #; the server never sees it
    /// [default: SNIP_ENCRYPT, then the config file's encrypt].
    #[arg(short, long)]
    pub encrypt: bool,
    /// Also require a password to decrypt (implies --encrypt). Asked on the
    /// terminal, or taken from the SNIP_PASSWORD environment variable; never
    /// given on the command line, where other users could see it.
    #[arg(long)]
    pub password: bool,
    /// Private: only the tenant's tokens can read it (needs a token).
    #[arg(long)]
    pub private: bool,
    /// Print a JSON array, one object per paste (url with its #key, id,
    /// raw_url, delete_token, expires_at, burn, size, file), instead of URLs.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub server: ServerArg,
    #[command(flatten)]
    pub auth: TokenArg,
}

/// `snip get`.
#[derive(Debug, Clone, Args)]
pub struct GetArgs {
    /// The paste's URL (or bare ID, with --server), with its #key if it is
    /// encrypted. A password, if one is needed, is taken from SNIP_PASSWORD or
    /// asked on the terminal.
    pub url: String,
    /// Print the paste's metadata as JSON instead of its bytes (never reveals
    /// a burn paste).
    #[arg(long)]
    pub meta: bool,
    /// Write the paste to FILE (a temporary file renamed into place, so FILE
    /// is never half-written); `-` writes to standard output even when it is
    /// a terminal, which binary pastes otherwise are not. For a paste of
    /// several files, the directory to write each of them into (made if
    /// missing; never a path outside it); `URL/NAME` reads one file.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub server: ServerArg,
    #[command(flatten)]
    pub auth: TokenArg,
}

/// `snip delete`.
#[derive(Debug, Clone, Args)]
pub struct DeleteArgs {
    /// The paste's URL (or bare ID, with --server).
    pub url: String,
    /// The delete token [default: the one remembered when this user created the
    /// paste; without one, the tenant's API token deletes the tenant's own pastes].
    #[arg(long)]
    pub token: Option<String>,
    #[command(flatten)]
    pub server: ServerArg,
    #[command(flatten)]
    pub auth: TokenArg,
}

pub(crate) fn client() -> anyhow::Result<reqwest::Client> {
    // rustls needs a process-wide crypto provider; a second install is a harmless no-op.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .user_agent(concat!("snip/", env!("CARGO_PKG_VERSION")))
        .build()
        .context("cannot build the HTTP client")
}

/// Turns a non-success response into an error carrying the server's message.
pub(crate) async fn check(response: reqwest::Response) -> anyhow::Result<reqwest::Response> {
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    let text = response.text().await.unwrap_or_default();
    let message = ErrorAnswer::parse(&text)
        .map(|answer| answer.message().to_owned())
        .unwrap_or_else(|| text.trim().to_owned());
    // Printed on standard error, most often a terminal.
    let (message, _) = terminal::neutralise(&message);
    bail!("server answered {status}: {message}")
}

/// Sends `request`, naming `server` if it cannot be reached, and turns an
/// error status into an error carrying the server's message.
pub(crate) async fn send(
    request: reqwest::RequestBuilder,
    server: &Url,
) -> anyhow::Result<reqwest::Response> {
    let response = request
        .send()
        .await
        .with_context(|| format!("cannot reach {server}"))?;
    check(response).await
}

/// [`send`], then the JSON of the server's answer.
pub(crate) async fn send_json<T: DeserializeOwned>(
    request: reqwest::RequestBuilder,
    server: &Url,
) -> anyhow::Result<T> {
    send(request, server)
        .await?
        .json()
        .await
        .context("unexpected answer from the server")
}

/// `snip put`: uploads each file (or stdin) and prints one URL per paste.
pub async fn put(args: PutArgs) -> anyhow::Result<()> {
    let client = client()?;
    let config = ClientConfig::load()?;
    let server = config.server(args.server.server.as_deref()).value;
    let base = base_url(&server)?;
    let token = args.auth.token_at(&server).await?;
    let ttl = config.ttl(args.ttl.as_deref());
    // The server's own grammar, checked before anything is read or sent.
    if let Some(value) = &ttl.value {
        Ttl::parse(value).map_err(|e| anyhow!("{e} (from the {})", ttl.source))?;
    }
    let ttl = ttl.value;
    let burn = config.burn(args.burn)?.value;
    let encrypt = config.encrypt(args.encrypt)?.value || args.password;
    let password = if args.password {
        Some(new_password()?)
    } else {
        None
    };
    if args.files.len() > 1 && !args.each {
        let names = bundle::names(&args.files)?;
        let names_label = names.join(", ");
        let inputs = read_inputs(&args.files)?;
        let files: Vec<(String, Vec<u8>)> = names
            .into_iter()
            .zip(inputs.into_iter().map(|i| i.body))
            .collect();
        let mut query = lifetime_query(ttl.as_deref(), burn, args.private);
        // Plain: a form of one part per file. Encrypted: one envelope whose
        // sealed metadata lists the files (docs/envelope.md).
        let (content_type, body, key) = if encrypt {
            let (meta, body) = bundle::sealed(files);
            let (sealed, key) = seal(&body, &meta, password.as_deref(), &mut query)?;
            ("application/octet-stream".to_owned(), sealed, Some(key))
        } else {
            let (content_type, body) = bundle::form(&files)?;
            (content_type, body, None)
        };
        let request = || {
            auth::authorize(client.post(base.clone()), token.as_deref())
                .query(&query)
                .header(reqwest::header::ACCEPT, "application/json")
                .header(reqwest::header::CONTENT_TYPE, content_type.clone())
        };
        let mut created: Created<'static> = upload::send(request, body, "uploading", &base).await?;
        let plain_url = created.url.to_string();
        if let Some(key) = key {
            created.url = format!("{}#{}", created.url, key.to_fragment()).into();
        }
        if let Err(e) = tokens::remember(
            &plain_url,
            tokens::Remembered::of(&created, Some(names_label)),
        ) {
            eprintln!(
                "snip: warning: could not remember the delete token of {}: {e:#}",
                created.id
            );
        }
        if args.json {
            println!("{}", serde_json::to_string_pretty(&created)?);
        } else {
            println!("{}", created.url);
        }
        return Ok(());
    }
    let inputs = read_inputs(&args.files)?;
    // Several links on a terminal are told apart by their files; a pipe gets bare URLs.
    let labelled = !args.json && inputs.len() > 1 && std::io::stdout().is_terminal();
    let mut uploaded = Vec::new();
    for Input { path, body } in inputs {
        let file_name = path
            .as_deref()
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned());
        let mut query = lifetime_query(ttl.as_deref(), burn, args.private);
        let name = args.name.clone().or(file_name);
        let remembered_name = name.clone();
        let (body, key) = if encrypt {
            // Everything the paste says about itself goes inside the envelope.
            let meta = envelope::Meta {
                lang: args.lang.clone(),
                name,
                ..envelope::Meta::default()
            };
            let (sealed, key) = seal(&body, &meta, password.as_deref(), &mut query)?;
            (sealed, Some(key))
        } else {
            if let Some(lang) = &args.lang {
                query.push(("lang", lang.clone()));
            }
            if let Some(name) = name {
                query.push(("name", name));
            }
            (body, None)
        };
        let label = path
            .as_deref()
            .and_then(Path::file_name)
            .map_or("uploading".into(), |n| n.to_string_lossy());
        let request = || {
            auth::authorize(client.post(base.clone()), token.as_deref())
                .query(&query)
                .header(reqwest::header::ACCEPT, "application/json")
                .header(reqwest::header::CONTENT_TYPE, "application/octet-stream")
        };
        let created = upload::send(request, body, &label, &base).await;
        let mut created: Created<'static> = created?;
        let plain_url = created.url.to_string();
        if let Some(key) = key {
            created.url = format!("{}#{}", created.url, key.to_fragment()).into();
        }
        let remembered = tokens::Remembered::of(&created, remembered_name);
        if let Err(e) = tokens::remember(&plain_url, remembered) {
            eprintln!(
                "snip: warning: could not remember the delete token of {}: {e:#}",
                created.id
            );
        }
        let file = path.map(|p| p.display().to_string());
        if args.json {
            uploaded.push(Uploaded { file, created });
        } else if labelled {
            println!("{}\t{}", file.as_deref().unwrap_or("-"), created.url);
        } else {
            println!("{}", created.url);
        }
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&uploaded)?);
    }
    Ok(())
}

/// Seals `body` and `meta` under a fresh key (and `password`), adding to
/// `query` what the server needs to know of an encrypted paste.
fn seal(
    body: &[u8],
    meta: &envelope::Meta,
    password: Option<&str>,
    query: &mut Vec<(&'static str, String)>,
) -> anyhow::Result<(Vec<u8>, Key)> {
    let key = Key::generate().map_err(|e| anyhow!("no randomness for a key: {e}"))?;
    let (sealed, proof) =
        envelope::seal_proved(body, meta, &key, password).context("cannot encrypt the paste")?;
    query.push(("encrypted", "true".into()));
    // Readers must then prove the key (and password) before the server
    // serves or burns the ciphertext (docs/envelope.md).
    query.push(("verifier", URL_SAFE_NO_PAD.encode(proof.verifier())));
    Ok((sealed, key))
}

/// The query every paste `put` makes starts with: its lifetime, burn and
/// visibility.
fn lifetime_query(ttl: Option<&str>, burn: bool, private: bool) -> Vec<(&'static str, String)> {
    let mut query = Vec::new();
    if let Some(ttl) = ttl {
        query.push(("ttl", ttl.to_owned()));
    }
    if burn {
        query.push(("burn", "true".into()));
    }
    if private {
        query.push(("visibility", "private".into()));
    }
    query
}

/// One paste to upload: a file's bytes (with its path), or standard input's.
struct Input {
    path: Option<PathBuf>,
    body: Vec<u8>,
}

/// Reads every file, or standard input when there are none, before the first
/// upload, so an unreadable file fails the command before anything is created.
fn read_inputs(files: &[PathBuf]) -> anyhow::Result<Vec<Input>> {
    if files.is_empty() {
        let mut body = Vec::new();
        std::io::stdin()
            .read_to_end(&mut body)
            .context("cannot read standard input")?;
        return Ok(vec![Input { path: None, body }]);
    }
    files
        .iter()
        .map(|path| {
            let body =
                std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
            Ok(Input {
                path: Some(path.clone()),
                body,
            })
        })
        .collect()
}

/// What `put --json` prints for each paste: the server's answer (its `url`
/// with the `#key` of an encrypted paste) and the file it came from.
#[derive(serde::Serialize)]
struct Uploaded {
    /// The file as given on the command line; `null` for standard input.
    file: Option<String>,
    #[serde(flatten)]
    created: Created<'static>,
}

/// `snip get`: writes the raw bytes to stdout, revealing a burn paste if
/// needed, and decrypting an encrypted paste with the link's key.
pub async fn get(args: GetArgs) -> anyhow::Result<()> {
    let client = client()?;
    let server = args.server.url()?;
    let target = PasteUrl::parse(&args.url, &server)?;
    // The API token, or the kept login, goes to the configured server only.
    let token = if target.on_configured_server {
        args.auth.token_at(&server).await?
    } else {
        if args.auth.token()?.is_some() {
            eprintln!(
                "snip: note: {} is not the configured server ({}); fetching without the API token",
                target.base, target.configured
            );
        }
        None
    };
    // Ask first (this never burns): a burn paste must not be destroyed by a
    // reader who cannot decrypt it.
    let request = auth::authorize(
        client.get(target.endpoint("api/pastes/")?),
        token.as_deref(),
    )
    .header(reqwest::header::ACCEPT, "application/json");
    let info: PasteInfo = send_json(request, &target.base).await?;
    let sink = Sink::new(args.output.as_deref());
    if args.meta {
        // JSON escapes C0 controls, not DEL or C1 ones a name may hold.
        let json = serde_json::to_string_pretty(&info)? + "\n";
        return sink.write(json.as_bytes());
    }
    if !info.encrypted && (target.file.is_some() || !info.files.is_empty()) {
        return get_files(&client, &target, token.as_deref(), &info, &args).await;
    }
    if info.encrypted && info.burn && target.file.is_some() {
        // Its files are sealed together: one of them cannot be read alone.
        bail!(
            "an encrypted burn paste is read whole, and destroyed by that reading: \
             write all of it with snip get URL#KEY -o DIR"
        );
    }
    // Checked before the download too, so a burn paste is not revealed only to be refused.
    if !info.encrypted && !info.content_type.starts_with("text/") {
        sink.check_binary(true)?;
    }
    let key = match (info.encrypted, target.fragment.as_deref()) {
        (true, None) => bail!(
            "the link has no #key: this paste is encrypted, and only the full link \
             (with the part after #) can decrypt it"
        ),
        (true, Some(fragment)) => Some(Key::from_fragment(fragment)?),
        (false, Some(_)) => {
            eprintln!("snip: note: this paste is not encrypted; ignoring the # part of the link");
            None
        }
        (false, None) => None,
    };
    if let (Some(params), Some(key)) = (&info.proof, &key) {
        let reader = proved::Reader {
            client: &client,
            target: &target,
            token: token.as_deref(),
        };
        let (meta, content) = proved::get(&reader, &info, params, key).await?;
        if !meta.files.is_empty() || target.file.is_some() {
            return write_sealed(&target, &info, &args, &meta, &content);
        }
        sink.check_binary(looks_binary(&content))?;
        return sink.write(&content);
    }
    let response = auth::authorize(client.get(target.endpoint("raw/")?), token.as_deref())
        .send()
        .await
        .with_context(|| format!("cannot reach {}", target.base))?;
    let response = if response.status() == StatusCode::CONFLICT {
        // A burn paste: only an explicit reveal reads it (and destroys it).
        let reveal = target.base.join(&format!("{}/reveal", target.id))?;
        auth::authorize(client.post(reveal), token.as_deref())
            .send()
            .await
            .context("cannot reveal the paste")?
    } else {
        response
    };
    let bytes = download(check(response).await?).await?;
    let content = match key {
        Some(key) => {
            let (meta, content) = decrypt(&bytes, &key)?;
            if !meta.files.is_empty() || target.file.is_some() {
                return write_sealed(&target, &info, &args, &meta, &content);
            }
            content
        }
        None => bytes,
    };
    sink.check_binary(looks_binary(&content))?;
    sink.write(&content)
}

/// `snip get` of a several-file paste: `URL/NAME` writes one file as a
/// one-file paste is written; `URL -o DIR` writes every file into DIR, from
/// the paste's zip (a burn paste's reveal), each only under a safe base
/// name ([`bundle::write_all`]).
async fn get_files(
    client: &reqwest::Client,
    target: &PasteUrl,
    token: Option<&str>,
    info: &PasteInfo,
    args: &GetArgs,
) -> anyhow::Result<()> {
    let sink = Sink::new(args.output.as_deref());
    if let Some(name) = &target.file {
        let Some(file) = info.files.iter().find(|f| &f.name == name) else {
            bail!("this paste holds no file named {name:?}");
        };
        if !file.content_type.starts_with("text/") {
            sink.check_binary(true)?;
        }
        let segment = crate::core::files::path_segment(name);
        let url = target.base.join(&format!("raw/{}/{segment}", target.id))?;
        let response = send(auth::authorize(client.get(url), token), &target.base).await?;
        let content = download(response).await?;
        sink.check_binary(looks_binary(&content))?;
        return sink.write(&content);
    }
    let names: Vec<&str> = info.files.iter().map(|f| f.name.as_str()).collect();
    let dir = match &args.output {
        Some(dir) if dir != Path::new("-") => dir,
        _ => bail!(
            "this paste holds {} files ({}): write them all with -o DIR, or one with snip get URL/NAME",
            names.len(),
            names.join(", ")
        ),
    };
    let request = if info.burn {
        // One reveal gives every file, and destroys the paste.
        let reveal = target.base.join(&format!("{}/reveal", target.id))?;
        client.post(reveal)
    } else {
        client.get(target.endpoint("download/")?)
    };
    let response = send(auth::authorize(request, token), &target.base).await?;
    let archive = download(response).await?;
    for path in bundle::write_all(dir, &archive, &info.files)? {
        println!("{}", path.display());
    }
    Ok(())
}

/// `snip get` of an opened envelope that holds several files (or of
/// `URL/NAME#KEY`): `URL/NAME` writes that one file, `-o DIR` every file
/// into DIR ([`bundle::write_files`]). Without either, the files are
/// listed with how to read them; a burn paste, already destroyed, has its
/// files written into a new directory named after it instead, so nothing
/// is lost.
fn write_sealed(
    target: &PasteUrl,
    info: &PasteInfo,
    args: &GetArgs,
    meta: &envelope::Meta,
    content: &[u8],
) -> anyhow::Result<()> {
    let files = envelope::split(meta, content);
    let sink = Sink::new(args.output.as_deref());
    if let Some(name) = &target.file {
        if files.is_empty() {
            bail!("this paste holds one file, not several: read it without /{name}");
        }
        let Some((_, bytes)) = files.iter().find(|(file, _)| &file.name == name) else {
            bail!("this paste holds no file named {name:?}");
        };
        sink.check_binary(looks_binary(bytes))?;
        return sink.write(bytes);
    }
    let named = files
        .iter()
        .map(|(file, bytes)| (file.name.as_str(), *bytes));
    let dir = match &args.output {
        Some(dir) if dir != Path::new("-") => dir.clone(),
        _ if info.burn => {
            // The server's word for the ID, used as a path only if it is a plain name.
            let base = crate::core::files::safe_base_name(&info.id)
                .ok()
                .filter(|name| name == &info.id)
                .unwrap_or_else(|| "snip-paste".to_owned());
            let dir = fresh_dir(&base)?;
            eprintln!(
                "snip: note: this burn paste holds {} files and is now destroyed on the server; \
                 they are written into {}",
                files.len(),
                dir.display()
            );
            dir
        }
        _ => {
            let names: Vec<&str> = files.iter().map(|(file, _)| file.name.as_str()).collect();
            bail!(
                "this paste holds {} files ({}): write them all with -o DIR, or one with snip get URL/NAME#KEY",
                names.len(),
                names.join(", ")
            );
        }
    };
    for path in bundle::write_files(&dir, named)? {
        println!("{}", path.display());
    }
    Ok(())
}

/// A directory made now in the current one, called `base` (or `base.2`,
/// `base.3`, … if that is taken), so nothing already there is overwritten.
fn fresh_dir(base: &str) -> anyhow::Result<PathBuf> {
    for n in 1..100 {
        let dir = PathBuf::from(if n == 1 {
            base.to_owned()
        } else {
            format!("{base}.{n}")
        });
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e).with_context(|| format!("cannot make {}", dir.display())),
        }
    }
    bail!("cannot find a free directory name for {base} here")
}

/// A URL path segment, percent-decoded (a file name in a link).
fn decoded(segment: &str) -> String {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Where `snip get` writes the paste.
enum Sink<'a> {
    /// Standard output; `forced` by `--output -`, even a terminal and binary.
    Stdout { forced: bool },
    /// A file, written whole or not at all.
    File(&'a Path),
}

impl<'a> Sink<'a> {
    fn new(output: Option<&'a Path>) -> Self {
        match output {
            None => Self::Stdout { forced: false },
            Some(path) if path == Path::new("-") => Self::Stdout { forced: true },
            Some(path) => Self::File(path),
        }
    }

    /// Whether this is a terminal that gets what is safe for it, not the
    /// exact bytes (which `--output -` asks for).
    fn guards_terminal(&self) -> bool {
        matches!(self, Self::Stdout { forced: false }) && std::io::stdout().is_terminal()
    }

    /// Refuses binary content for a terminal, as curl does: it would garble
    /// the terminal (control sequences) and is rarely what was meant.
    fn check_binary(&self, binary: bool) -> anyhow::Result<()> {
        if binary && self.guards_terminal() {
            bail!(
                "this paste is binary and standard output is a terminal; \
                 save it with -o FILE, or print it anyway with --output -"
            );
        }
        Ok(())
    }

    /// Writes `content`; text for a terminal with its control characters
    /// made visible ([`terminal::neutralise`]), saying so on standard error.
    fn write(&self, content: &[u8]) -> anyhow::Result<()> {
        match self {
            Self::Stdout { .. } => {
                let mut stdout = std::io::stdout().lock();
                match std::str::from_utf8(content) {
                    Ok(text) if self.guards_terminal() => {
                        let (shown, count) = terminal::neutralise(text);
                        if count > 0 {
                            eprintln!(
                                "snip: note: {count} control characters (such as terminal escape \
                                 sequences) are shown as ^X or <U+…>; save the exact bytes with \
                                 -o FILE, or print them with --output -"
                            );
                        }
                        stdout.write_all(shown.as_bytes())?;
                    }
                    _ => stdout.write_all(content)?,
                }
                stdout.flush()?;
                Ok(())
            }
            Self::File(path) => write_atomically(path, content)
                .with_context(|| format!("cannot write {}", path.display())),
        }
    }
}

/// Text is UTF-8 without NUL bytes; anything else would garble a terminal.
fn looks_binary(content: &[u8]) -> bool {
    content.contains(&0) || std::str::from_utf8(content).is_err()
}

/// Writes `content` to a temporary file beside `path`, then renames it over
/// `path`, so a reader (or a failed download) never sees a half-written file.
fn write_atomically(path: &Path, content: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .unwrap_or(path.as_os_str())
        .to_string_lossy();
    let tmp = dir.join(format!(".{name}.snip-{}", std::process::id()));
    let result = std::fs::File::create_new(&tmp).and_then(|mut file| {
        file.write_all(content)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    });
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Reads the whole answer, with a progress bar when it is large and stderr a terminal.
async fn download(mut response: reqwest::Response) -> anyhow::Result<Vec<u8>> {
    let Some(bar) = response
        .content_length()
        .and_then(|length| progress::bar(length, "downloading"))
    else {
        let bytes = response.bytes().await.context("the download broke off")?;
        return Ok(bytes.to_vec());
    };
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await.context("the download broke off")? {
        bar.inc(chunk.len() as u64);
        bytes.extend_from_slice(&chunk);
    }
    bar.finish_and_clear();
    Ok(bytes)
}

/// Opens an envelope, getting a password from `SNIP_PASSWORD` or the terminal
/// if it needs one. A typed password may be retried: the bytes are already here.
fn decrypt(bytes: &[u8], key: &Key) -> anyhow::Result<(envelope::Meta, Vec<u8>)> {
    let header = envelope::Header::parse(bytes)?;
    if !header.needs_password() {
        return Ok(envelope::open(bytes, key, None)?);
    }
    let interactive = std::io::stderr().is_terminal();
    if let Some(password) = password_from_env()? {
        match envelope::open(bytes, key, Some(&password)) {
            // A burn paste is gone from the server by now: let a person retry.
            Err(EnvelopeError::Decrypt) if interactive => {
                eprintln!("snip: SNIP_PASSWORD is wrong (or the key is)");
            }
            result => return Ok(result?),
        }
    } else if !interactive {
        bail!("this paste needs a password: set SNIP_PASSWORD, or run snip on a terminal");
    }
    let mut tries = 0;
    loop {
        let password = rpassword::prompt_password("Password: ")
            .context("this paste needs a password, and it cannot be read from the terminal")?;
        match envelope::open(bytes, key, Some(&password)) {
            Err(EnvelopeError::Decrypt) if tries < 2 => {
                tries += 1;
                eprintln!("snip: wrong password (or key); try again");
            }
            result => return Ok(result?),
        }
    }
}

/// `SNIP_PASSWORD`, if set.
fn password_from_env() -> anyhow::Result<Option<String>> {
    match std::env::var("SNIP_PASSWORD") {
        Ok(password) => Ok(Some(password)),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => bail!("SNIP_PASSWORD is not valid UTF-8"),
    }
}

/// The password for new pastes: `SNIP_PASSWORD`, or typed twice on the terminal.
fn new_password() -> anyhow::Result<String> {
    let password = match password_from_env()? {
        Some(password) => password,
        None => {
            if !std::io::stderr().is_terminal() {
                bail!("--password needs a terminal to ask for it, or SNIP_PASSWORD");
            }
            return typed_new_password();
        }
    };
    if password.is_empty() {
        bail!("the password is empty");
    }
    Ok(password)
}

/// A new password typed twice on the terminal; a mistyped confirmation (or
/// an empty password) asks again, up to [`PASSWORD_TRIES`] times, since
/// nothing has been uploaded yet.
fn typed_new_password() -> anyhow::Result<String> {
    let ask = |prompt: &str| {
        rpassword::prompt_password(prompt).context("cannot read the password from the terminal")
    };
    for _ in 0..PASSWORD_TRIES {
        let password = ask("Password: ")?;
        if password.is_empty() {
            eprintln!("The password is empty; type one.");
            continue;
        }
        if ask("Password (again): ")? == password {
            return Ok(password);
        }
        eprintln!("The passwords do not match; type it again.");
    }
    bail!("no password after {PASSWORD_TRIES} tries: the two did not match")
}

/// How often `put --password` asks before giving up.
const PASSWORD_TRIES: usize = 3;

/// `snip delete`: deletes with `--token` or the remembered token.
pub async fn delete(args: DeleteArgs) -> anyhow::Result<()> {
    let client = client()?;
    let server = args.server.url()?;
    let target = PasteUrl::parse(&args.url, &server)?;
    let url = target.endpoint("")?;
    let token = match args.token {
        Some(token) => Some(token),
        None => tokens::recall(url.as_str())?,
    };
    // The API token, or the kept login, goes to the configured server only.
    let api_token = match args.auth.token()? {
        _ if target.on_configured_server => args.auth.token_at(&server).await?,
        Some(_) => {
            if token.is_none() {
                bail!(
                    "{url} is not on the configured server ({}), and the API token is only \
                     sent there; pass its delete token with --token, or --server {} if the \
                     token is for that server",
                    target.configured,
                    target.base.origin().ascii_serialization()
                );
            }
            None
        }
        None => None,
    };
    if token.is_none() && api_token.is_none() {
        // The token is forgotten after a delete: a second one lands here.
        let meta = client.get(target.endpoint("api/pastes/")?).send().await;
        if meta.is_ok_and(|r| r.status() == StatusCode::NOT_FOUND) {
            bail!("{url} is already deleted (or has expired)");
        }
        bail!("no delete token remembered for {url}; pass --token (or an API token of its tenant)");
    }
    let mut request = auth::authorize(client.delete(url.clone()), api_token.as_deref());
    if let Some(token) = token {
        request = request.header(DELETE_TOKEN_HEADER, token);
    }
    let response = request
        .send()
        .await
        .with_context(|| format!("cannot reach {}", target.base))?;
    if response.status() == StatusCode::NOT_FOUND {
        // Gone either way: the remembered token is of no more use.
        let _ = tokens::forget(url.as_str());
        bail!("{url} is already deleted (or has expired)");
    }
    check(response).await?;
    if let Err(e) = tokens::forget(url.as_str()) {
        eprintln!("snip: warning: could not update the token file: {e:#}");
    }
    eprintln!("deleted {url}");
    Ok(())
}

/// The server's URL with a trailing `/`; `host:port` without a scheme is taken as `http://`.
pub(crate) fn base_url(server: &str) -> anyhow::Result<Url> {
    let with_scheme;
    let server = if server.contains("://") {
        server
    } else {
        with_scheme = format!("http://{server}");
        &with_scheme
    };
    let mut url = Url::parse(server).with_context(|| format!("{server:?} is not a server URL"))?;
    if !url.path().ends_with('/') {
        let path = format!("{}/", url.path());
        url.set_path(&path);
    }
    Ok(url)
}

/// A paste named by URL (`http://host/ID`, `http://host/raw/ID`) or bare ID,
/// with the link's `#fragment` (an encrypted paste's key), if any.
struct PasteUrl {
    base: Url,
    id: String,
    /// One file of a several-file paste (`URL/NAME`).
    file: Option<String>,
    fragment: Option<String>,
    /// The configured server's URL.
    configured: Url,
    /// Whether the paste is on the configured server (same scheme, host and
    /// port): the only one credentials are sent to.
    on_configured_server: bool,
}

impl PasteUrl {
    fn parse(input: &str, server: &str) -> anyhow::Result<Self> {
        let (input, fragment) = match input.split_once('#') {
            Some((rest, fragment)) => (rest, Some(fragment).filter(|f| !f.is_empty())),
            None => (input, None),
        };
        let fragment = fragment.map(str::to_owned);
        let configured = base_url(server)?;
        if !input.contains("://") {
            let bare = input.trim_matches('/');
            let (id, file) = match bare.split_once('/') {
                Some((id, name)) => (id, Some(decoded(name))),
                None => (bare, None),
            };
            return Ok(Self {
                base: configured.clone(),
                id: id.to_owned(),
                file,
                fragment,
                configured,
                on_configured_server: true,
            });
        }
        let mut url = Url::parse(input).with_context(|| format!("{input:?} is not a paste URL"))?;
        let mut segments: Vec<String> = url
            .path_segments()
            .map(|s| s.filter(|s| !s.is_empty()).map(str::to_owned).collect())
            .unwrap_or_default();
        let Some(mut id) = segments.pop() else {
            bail!("{input:?} names no paste");
        };
        // `…/ID/NAME`: one file of a several-file paste.
        let mut file = None;
        if PasteId::parse(&id).is_err()
            && segments.last().is_some_and(|s| PasteId::parse(s).is_ok())
        {
            file = Some(decoded(&id));
            id = segments.pop().unwrap_or_default();
        }
        if matches!(
            segments.last().map(String::as_str),
            Some("raw" | "download")
        ) {
            segments.pop();
        }
        url.set_query(None);
        url.set_path(&format!(
            "{}/",
            segments.iter().map(|s| format!("/{s}")).collect::<String>()
        ));
        Ok(Self {
            on_configured_server: url.origin() == configured.origin(),
            base: url,
            id,
            file,
            fragment,
            configured,
        })
    }

    fn endpoint(&self, prefix: &str) -> anyhow::Result<Url> {
        Ok(self.base.join(&format!("{prefix}{}", self.id))?)
    }
}
