//! A real OpenID Connect provider for the tests: panva's `oidc-provider`
//! run by `web/test/oidc-provider.mjs` on an ephemeral loopback port, and a
//! person going through its development login and consent pages over HTTP
//! (cookies kept by hand, forms read from its pages), up to the moment the
//! provider sends the browser back to snip's callback.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;

use reqwest::Url;

/// The client the script registers.
pub const CLIENT_ID: &str = "snip";
/// Its secret.
pub const CLIENT_SECRET: &str = "snip-test-secret";

/// The running provider; killed when dropped.
pub struct Provider {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
    /// `http://127.0.0.1:PORT`, or the URL of the proxy in front.
    pub issuer: String,
    /// Where the provider listens: `http://127.0.0.1:PORT`.
    pub listening: String,
    /// The provider's signing key: its `kid` and its base64 PKCS#8.
    pub key: (String, String),
    /// An RSA key the provider does not know: its `kid` and base64 PKCS#8.
    pub stranger: (String, String),
}

impl Provider {
    /// Starts the provider, or `None` (with the reason printed) without
    /// node or `web/node_modules` on a developer's machine; under `CI` their
    /// absence fails the test.
    pub fn start() -> Option<Self> {
        Self::start_as(None)
    }

    /// [`Self::start`], the provider naming itself `issuer` (a proxy in
    /// front of it) when given.
    pub fn start_as(issuer: Option<&str>) -> Option<Self> {
        Self::start_with(issuer, false)
    }

    /// [`Self::start`], the client a native application (a loopback
    /// redirect URI matches on any port) and no device flow offered.
    pub fn start_native() -> Option<Self> {
        Self::start_with(None, true)
    }

    fn start_with(issuer: Option<&str>, native: bool) -> Option<Self> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let script = root.join("web/test/oidc-provider.mjs");
        if !root.join("web/node_modules/oidc-provider").is_dir() {
            let why = "web/node_modules/oidc-provider is missing (npm ci --prefix web)";
            if std::env::var_os("CI").is_some() {
                panic!("{why}; CI must install it (.ci/run does)");
            }
            eprintln!("skipping: {why}");
            return None;
        }
        let mut command = Command::new("node");
        if let Some(issuer) = issuer {
            command.env("OIDC_ISSUER", issuer);
        }
        if native {
            command.env("OIDC_NATIVE", "1");
        }
        let mut child = command
            .arg(script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("node runs");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let mut provider = Self {
            child,
            stdin,
            lines,
            issuer: String::new(),
            listening: String::new(),
            key: Default::default(),
            stranger: Default::default(),
        };
        let words =
            |line: String| -> Vec<String> { line.split(' ').skip(1).map(str::to_owned).collect() };
        provider.listening = words(provider.expect("listening ")).remove(0);
        provider.issuer = words(provider.expect("issuer ")).remove(0);
        let [kid, pkcs8] = <[String; 2]>::try_from(words(provider.expect("key "))).unwrap();
        provider.key = (kid, pkcs8);
        let [kid, pkcs8] = <[String; 2]>::try_from(words(provider.expect("stranger "))).unwrap();
        provider.stranger = (kid, pkcs8);
        Some(provider)
    }

    /// The next line the provider prints that starts with `prefix`.
    fn expect(&self, prefix: &str) -> String {
        loop {
            let line = self
                .lines
                .recv_timeout(super::wait::PATIENCE)
                .expect("the provider answers");
            if line.starts_with(prefix) {
                return line;
            }
        }
    }

    /// Registers snip's callbacks (`redirect_uris`) and waits until the
    /// provider serves.
    pub fn configure(&mut self, redirect_uris: &[String]) {
        writeln!(self.stdin, "{}", redirect_uris.join(" ")).expect("write to the provider");
        self.expect("ready");
    }

    /// Removes the account `login`: the provider refuses to renew its
    /// sign-ins from now on.
    pub fn remove(&mut self, login: &str) {
        writeln!(self.stdin, "gone {login}").expect("write to the provider");
        self.expect("ok");
    }

    /// Gives the account `login` the groups `groups` from its next sign-in
    /// (or renewal) on.
    pub fn set_groups(&mut self, login: &str, groups: &[&str]) {
        writeln!(self.stdin, "groups {login} {}", groups.join(",")).expect("write to the provider");
        self.expect("ok");
    }
}

impl Provider {
    /// Stops the provider: its port is closed from now on.
    pub fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Provider {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A browser's cookies for one host, kept by hand.
#[derive(Default, Clone)]
pub struct Jar(BTreeMap<String, String>);

impl Jar {
    /// Takes the `Set-Cookie` headers of `response` (an empty value removes).
    pub fn take(&mut self, response: &reqwest::Response) {
        for value in response.headers().get_all("set-cookie") {
            let Some((name, rest)) = value.to_str().ok().and_then(|v| v.split_once('=')) else {
                continue;
            };
            let value = rest.split(';').next().unwrap_or("").to_owned();
            let expired = rest.contains("Max-Age=0") || rest.contains("expires=Thu, 01 Jan 1970");
            if value.is_empty() || expired {
                self.0.remove(name);
            } else {
                self.0.insert(name.to_owned(), value);
            }
        }
    }

    /// The `Cookie` header value.
    pub fn header(&self) -> String {
        self.0
            .iter()
            .map(|(name, value)| format!("{name}={value}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// The value of the cookie `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    /// Sets the cookie `name`.
    pub fn set(&mut self, name: &str, value: &str) {
        self.0.insert(name.to_owned(), value.to_owned());
    }
}

/// A client that follows no redirects.
pub fn no_redirects() -> reqwest::Client {
    super::http::client()
}

/// Goes through the provider's pages from its authorization URL `start` as
/// `login` (any password), keeping the provider's cookies; returns the URL
/// the provider sends the browser back to (snip's callback with the code).
pub async fn log_in(client: &reqwest::Client, start: &str, login: &str) -> String {
    match walk(client, start, login).await {
        Walked::Left(url) => url,
        Walked::Ended(page) => panic!("the provider never sent the browser back: {page}"),
    }
}

/// Goes through the provider's device pages from `start` (its verification
/// URL with the user code) as `login`: confirms the code, logs in and
/// consents; returns the page saying the device is signed in.
pub async fn approve_device(client: &reqwest::Client, start: &str, login: &str) -> String {
    match walk(client, start, login).await {
        Walked::Ended(page) => page,
        Walked::Left(url) => panic!("the provider sent the browser away, to {url}"),
    }
}

/// Where a walk through the provider's pages ended.
enum Walked {
    /// Sent to another origin, at this URL.
    Left(String),
    /// On a page of the provider without a form, this one.
    Ended(String),
}

/// Follows the provider's redirects and submits its forms (the login form
/// with `login`), until it sends the browser elsewhere or shows a page
/// without a form.
async fn walk(client: &reqwest::Client, start: &str, login: &str) -> Walked {
    let mut jar = Jar::default();
    let mut url = Url::parse(start).unwrap();
    let origin = url.origin().ascii_serialization();
    let get = |url: Url, cookies: String| client.get(url).header("cookie", cookies).send();
    let mut response = get(url.clone(), jar.header()).await.unwrap();
    for _ in 0..20 {
        jar.take(&response);
        if let Some(next) = location(&url, &response) {
            if next.origin().ascii_serialization() != origin {
                return Walked::Left(next.to_string());
            }
            url = next;
            response = get(url.clone(), jar.header()).await.unwrap();
            continue;
        }
        // A page with a form (the device code's, the login or the consent
        // form), or the page a walk ends on.
        let page = response.text().await.unwrap();
        if !page.contains("<form") {
            return Walked::Ended(page);
        }
        let (action, mut fields) = form(&page);
        if fields.iter().any(|(name, _)| name == "login") {
            fields.retain(|(name, _)| name != "login" && name != "password");
            fields.push(("login".into(), login.into()));
            fields.push(("password".into(), "any password".into()));
        }
        url = url.join(&action).unwrap();
        response = client
            .post(url.clone())
            .header("cookie", jar.header())
            .header("content-type", "application/x-www-form-urlencoded")
            .body(
                form_urlencoded::Serializer::new(String::new())
                    .extend_pairs(&fields)
                    .finish(),
            )
            .send()
            .await
            .unwrap();
    }
    panic!("the provider never sent the browser back");
}

/// Where a redirect points, if it is one.
fn location(base: &Url, response: &reqwest::Response) -> Option<Url> {
    if !response.status().is_redirection() {
        return None;
    }
    let location = response.headers().get("location")?.to_str().ok()?;
    base.join(location).ok()
}

/// The first form of `page`: its action and its inputs' names and values.
fn form(page: &str) -> (String, Vec<(String, String)>) {
    let start = page.find("<form").expect("a form on the provider's page");
    let form = &page[start..];
    let form = &form[..form.find("</form>").unwrap_or(form.len())];
    let action = attribute(form, "action").unwrap_or_default();
    let fields = form
        .split("<input")
        .skip(1)
        .filter_map(|input| {
            let input = &input[..input.find('>').unwrap_or(input.len())];
            Some((
                attribute(input, "name")?,
                attribute(input, "value").unwrap_or_default(),
            ))
        })
        .collect();
    (action, fields)
}

/// The value of `name="…"` in a tag.
fn attribute(tag: &str, name: &str) -> Option<String> {
    let pattern = format!("{name}=\"");
    let start = tag.find(&pattern)? + pattern.len();
    let end = tag[start..].find('"')?;
    Some(tag[start..start + end].replace("&amp;", "&"))
}
