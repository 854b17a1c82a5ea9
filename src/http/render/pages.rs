//! Server-rendered HTML pages: the paste view, the burn interstitial, the
//! new-paste form and error pages (`templates/paste.html` with `files.html`,
//! `new_paste.html`, `error.html`; the sign-in and "My pastes" pages are in
//! [`super::account`], what every page shares in [`super::layout`]).
//!
//! Every page works without JavaScript: the view carries the escaped text with
//! numbered line anchors, the form posts to `/`. The one script
//! ([`assets::APP_JS`], from `web/src/app.js`) enhances the page named by
//! `<body data-page>`: highlighting, line selection, encryption, the editor.
//!
//! Pages have no inline script or style (the CSP forbids both) and paste
//! content is always HTML-escaped (by askama), so it is shown as text and
//! never rendered. Templates are compiled into the binary; a page is written
//! straight into one pre-sized `String`.

use askama::Template;

use super::assets;
use super::i18n::Lang;
use super::layout::{Account, Instant, Layout, Page, render};
use super::preview::{self, Instance, Sharing};
use crate::core::api::ProofParams;
use crate::core::files;
use crate::core::paste::{self, PasteMeta, Visibility};
use crate::http::api_error::{ApiError, ErrorCode};

/// Where the stylesheet is served (content-hashed).
pub const CSS_PATH: &str = assets::CSS_PATH;

/// The most bytes of a paste the HTML view shows. Every line costs about a
/// hundred bytes of markup, so a page of a whole large paste would be many
/// times its size and take seconds to build and to render in the browser;
/// a reader of that much text wants the raw route anyway.
pub const VIEW_MAX_BYTES: usize = 256 * 1024;

/// The most lines of a paste the HTML view shows: bounds the markup for
/// pastes of short lines, which [`VIEW_MAX_BYTES`] alone does not.
pub const VIEW_MAX_LINES: usize = 10_000;

/// `templates/paste.html`: a paste's page.
#[derive(Template)]
#[template(path = "paste.html")]
struct PastePage<'a> {
    layout: Layout<'a>,
    meta: &'a PasteMeta,
    title: PasteTitle<'a>,
    body: PasteBody<'a>,
    created: Instant,
    expires: Option<Instant>,
    /// Public parameters of the proof of key (docs/envelope.md).
    proof: Option<ProofParams>,
    /// What the page tells other sites (`templates/preview.html`).
    sharing: Option<Sharing>,
}

impl PastePage<'_> {
    /// The paste's size, for people.
    fn size(&self) -> String {
        self.layout.lang.size(self.meta.size)
    }

    /// Whether reading it needs a password (its proof of key is derived
    /// from one): the burn card asks for it up front.
    fn needs_password(&self) -> bool {
        self.proof
            .as_ref()
            .is_some_and(|proof| proof.iterations > 0)
    }
}

/// What a paste page is titled.
#[derive(Clone, Copy)]
enum PasteTitle<'a> {
    /// Its name.
    Named(&'a str),
    /// An encrypted paste, whatever its name.
    Encrypted,
    /// An unnamed paste: its ID.
    Id(&'a str),
}

/// What a paste page shows below its title and metadata.
enum PasteBody<'a> {
    /// Burn after reading, not revealed yet: the button that reveals it.
    Burn,
    /// End-to-end encrypted: the script decrypts it into the page.
    Encrypted,
    /// Text, with numbered line anchors.
    Code(Code<'a>),
    /// An image, audio or video, inline from `/raw/{id}`.
    Image,
    Audio,
    Video,
    /// Anything else: a download link.
    File,
    /// A several-file paste: each file under its own heading
    /// (`templates/files.html`).
    Files(Vec<FileView<'a>>),
}

impl PasteBody<'_> {
    fn is_burn(&self) -> bool {
        matches!(self, Self::Burn)
    }
}

/// The text a view shows: a prefix of the paste, cut to at most
/// [`VIEW_MAX_LINES`] whole lines.
pub(super) struct Code<'a> {
    /// The text shown, ending at a whole line if the paste goes on.
    pub(super) text: &'a str,
    /// Whether the paste goes on past `text` (the page says where it is).
    pub(super) cut: bool,
    /// The whole paste's size in bytes.
    size: usize,
}

impl<'a> Code<'a> {
    /// `text`, a prefix of a paste of `size` bytes.
    pub(super) fn new(text: &'a str, size: usize) -> Self {
        Self::at_most(text, size, VIEW_MAX_LINES)
    }

    /// `text`, a prefix of a text of `size` bytes, cut to at most
    /// `max_lines` whole lines.
    pub(super) fn at_most(text: &'a str, size: usize, max_lines: usize) -> Self {
        let cut = text.len() < size;
        // A prefix cut by size ends at its last whole line.
        let text = match text.rfind('\n') {
            Some(end) if cut => &text[..=end],
            _ => text,
        };
        // At most max_lines lines, ending after the last one's newline.
        let (text, cut) = match max_lines.checked_sub(1) {
            None => ("", !text.is_empty() || cut),
            Some(last) => match text.match_indices('\n').nth(last) {
                Some((end, _)) if end + 1 < text.len() => (&text[..=end], true),
                _ => (text, cut),
            },
        };
        Self { text, cut, size }
    }

    /// The lines shown.
    pub(super) fn lines(&self) -> std::str::Lines<'a> {
        self.text.lines()
    }

    /// The byte of the paste at which the lines not shown start (where the
    /// script fetches the rest from, with a `Range` request).
    fn shown_bytes(&self) -> usize {
        self.text.len()
    }

    /// Whether the last line shown goes on in the rest (a first line longer
    /// than [`VIEW_MAX_BYTES`]).
    fn ends_mid_line(&self) -> bool {
        self.cut && !self.text.ends_with('\n')
    }

    /// How many lines are shown.
    pub(super) fn shown_lines(&self) -> usize {
        self.lines().count()
    }

    /// The whole paste's size in bytes.
    fn whole_bytes(&self) -> u64 {
        self.size as u64
    }
}

/// About how many bytes of markup a file's line costs besides its text
/// and its anchor's name (which it holds twice).
const LINE_MARKUP: usize = 100;

/// One file of a several-file paste as its page shows it.
pub(super) struct FileView<'a> {
    /// Its safe base name, as stored.
    pub(super) name: &'a str,
    /// Its name as a URL path segment (`/raw/{id}/{segment}`).
    pub(super) segment: String,
    /// Its highlighting language.
    pub(super) lang: Option<&'a str>,
    /// Its media type.
    pub(super) content_type: &'a str,
    /// Its size in bytes.
    pub(super) bytes: u64,
    /// Its text, if it is text and not past the page's bounds' end.
    pub(super) code: Option<Code<'a>>,
}

impl FileView<'_> {
    /// What its lines' anchors start with: `file-NAME-L`.
    fn line_prefix(&self) -> String {
        format!("file-{}-L", self.name)
    }
}

/// The files of a several-file paste, each with what `body` (a prefix of
/// the paste's body) holds of its text: the page shows at most
/// [`VIEW_MAX_BYTES`] and [`VIEW_MAX_LINES`] of them all, as a one-file
/// paste's does, and says of a file cut how to read the rest.
pub(super) fn file_views<'a>(meta: &'a PasteMeta, body: &'a [u8]) -> Vec<FileView<'a>> {
    let shown = &body[..body.len().min(VIEW_MAX_BYTES)];
    let mut lines_left = VIEW_MAX_LINES;
    // A line's markup names its anchor twice, so a long name costs more
    // lines: the lines' markup stays within what a one-file page's does.
    let mut markup_left = VIEW_MAX_LINES * LINE_MARKUP;
    files::spans(&meta.files)
        .map(|span| {
            let file = span.file;
            let start = usize::try_from(span.offset).unwrap_or(usize::MAX);
            let size = usize::try_from(file.size).unwrap_or(usize::MAX);
            let end = start.saturating_add(size).min(shown.len());
            let per_line = LINE_MARKUP + 2 * file.name.len();
            let code = (file.content_type == paste::TEXT_PLAIN)
                .then(|| shown.get(start..end))
                .flatten()
                .and_then(shown_text)
                .map(|text| Code::at_most(text, size, lines_left.min(markup_left / per_line)));
            if let Some(code) = &code {
                lines_left = lines_left.saturating_sub(code.shown_lines());
                markup_left = markup_left.saturating_sub(code.shown_lines() * per_line);
            }
            FileView {
                name: &file.name,
                segment: files::path_segment(&file.name),
                lang: file.lang.as_deref(),
                content_type: &file.content_type,
                bytes: file.size,
                code,
            }
        })
        .collect()
}

/// The paste view: escaped text with line anchors, media inline, or a download
/// link; encrypted pastes are decrypted by the script. `body` may be only
/// the body's first [`VIEW_MAX_BYTES`] (the view shows no more).
pub fn view(
    meta: &PasteMeta,
    body: &[u8],
    account: Account<'_>,
    instance: &Instance<'_>,
    lang: Lang,
) -> String {
    let shown = body.len().min(VIEW_MAX_BYTES);
    let mut page = paste_page(
        meta,
        readable(meta, body),
        account,
        instance.site.name.as_str(),
        lang,
    );
    page.sharing = preview::sharing(meta, body, instance);
    render(&page, 2048 + shown + shown / 4)
}

/// Whether the view of `meta` shows all of `body`, which links to nothing
/// else: plain text within [`VIEW_MAX_BYTES`] and [`VIEW_MAX_LINES`] (for
/// a several-file paste, every file shown whole).
pub fn shows_whole(meta: &PasteMeta, body: &[u8]) -> bool {
    if !meta.files.is_empty() {
        return !meta.encrypted
            && body.len() <= VIEW_MAX_BYTES
            && file_views(meta, body)
                .iter()
                .all(|file| file.code.as_ref().is_some_and(|code| !code.cut));
    }
    meta.content_type == paste::TEXT_PLAIN
        && !meta.encrypted
        && body.len() <= VIEW_MAX_BYTES
        && std::str::from_utf8(body).is_ok_and(|text| text.lines().nth(VIEW_MAX_LINES).is_none())
}

/// The interstitial shown for burn pastes: reading happens only on the
/// button's `POST` (the script does it with `fetch` and shows the result).
pub fn burn_interstitial(meta: &PasteMeta, account: Account<'_>, site: &str, lang: Lang) -> String {
    render(
        &paste_page(meta, PasteBody::Burn, account, site, lang),
        4096,
    )
}

fn paste_page<'a>(
    meta: &'a PasteMeta,
    body: PasteBody<'a>,
    account: Account<'a>,
    site: &'a str,
    lang: Lang,
) -> PastePage<'a> {
    let title = match (&meta.name, meta.encrypted) {
        (Some(name), false) => PasteTitle::Named(name),
        (_, true) => PasteTitle::Encrypted,
        (None, false) => PasteTitle::Id(&meta.id),
    };
    PastePage {
        layout: Layout {
            page: Page::View,
            account,
            site,
            lang,
            here: format!("/{}", meta.id),
        },
        meta,
        title,
        body,
        created: Instant::new(meta.created_at),
        expires: meta.expires_at.map(Instant::new),
        proof: meta.key_check.as_ref().map(ProofParams::of),
        sharing: None,
    }
}

/// What the view of a readable paste shows of `body`.
fn readable<'a>(meta: &'a PasteMeta, body: &'a [u8]) -> PasteBody<'a> {
    if meta.encrypted {
        return PasteBody::Encrypted;
    }
    if !meta.files.is_empty() {
        return PasteBody::Files(file_views(meta, body));
    }
    let essence = meta.content_type.split(';').next().unwrap_or("");
    match shown_text(body) {
        Some(text) if meta.content_type == paste::TEXT_PLAIN => {
            let size = usize::try_from(meta.size).unwrap_or(usize::MAX);
            PasteBody::Code(Code::new(text, size.max(body.len())))
        }
        _ if essence.starts_with("image/") => PasteBody::Image,
        _ if essence.starts_with("audio/") => PasteBody::Audio,
        _ if essence.starts_with("video/") => PasteBody::Video,
        _ => PasteBody::File,
    }
}

/// The text the view shows: at most [`VIEW_MAX_BYTES`] of `body`, cut before
/// a character that does not fit, or `None` if that prefix is not UTF-8.
pub(super) fn shown_text(body: &[u8]) -> Option<&str> {
    let prefix = &body[..body.len().min(VIEW_MAX_BYTES)];
    match std::str::from_utf8(prefix) {
        Ok(text) => Some(text),
        // Only the character cut at the end of the prefix is incomplete.
        Err(e) if e.error_len().is_none() => std::str::from_utf8(&prefix[..e.valid_up_to()]).ok(),
        Err(_) => None,
    }
}

/// `templates/error.html`: an error page.
#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage<'a> {
    layout: Layout<'a>,
    kind: ErrorKind,
    /// The HTTP status code.
    status: u16,
    /// The error's message, when it helps a person (the API's, in English).
    message: Option<&'a str>,
}

/// Which explanation an error page gives.
enum ErrorKind {
    MistypedId,
    PasteNotFound,
    PageNotFound,
    SignInNeeded,
    TooLarge,
    SlowDown,
    /// Any other error: its status code, no explanation.
    Other,
}

/// A friendly error page for browsers, in `lang`, at `here` (the request's path).
pub fn error_page(error: &ApiError, site: &str, lang: Lang, here: &str) -> String {
    let kind = match error.status.as_u16() {
        404 if error.code == ErrorCode::MistypedId => ErrorKind::MistypedId,
        404 if matches!(error.code, ErrorCode::NotFound | ErrorCode::MalformedId) => {
            ErrorKind::PasteNotFound
        }
        404 => ErrorKind::PageNotFound,
        401 => ErrorKind::SignInNeeded,
        413 => ErrorKind::TooLarge,
        429 => ErrorKind::SlowDown,
        _ => ErrorKind::Other,
    };
    let page = ErrorPage {
        layout: Layout {
            page: Page::Error,
            account: Account::Hidden,
            site,
            lang,
            here: here.to_owned(),
        },
        kind,
        status: error.status.as_u16(),
        // The router's own 404 message is a hint for API clients (which
        // routes exist); a person who followed a link needs none of it.
        message: (error.code != ErrorCode::NoRoute).then_some(error.message.as_ref()),
    };
    render(&page, 2048)
}

/// A lifetime the new-paste form offers, labelled in its largest whole unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lifetime {
    Never,
    Seconds(u64),
    Minutes(u64),
    Hours(u64),
    Days(u64),
    Weeks(u64),
    Years(u64),
}

/// One choice of the form's "Expires" menu.
#[derive(Debug, PartialEq, Eq)]
pub struct TtlChoice {
    /// What the form posts as `ttl`, in the ttl grammar (`10m`, `3d`, `never`).
    pub value: String,
    /// What the menu says.
    pub lifetime: Lifetime,
}

/// What the new-paste form offers.
pub struct NewPasteOptions<'a> {
    /// Every lifetime the server allows.
    pub ttl_choices: &'a [TtlChoice],
    /// The value preselected (the server's default lifetime).
    pub default_ttl: &'a str,
    /// The largest paste, in bytes.
    pub max_paste_bytes: u64,
    /// Who is signed in.
    pub account: Account<'a>,
    /// The instance's name.
    pub site: &'a str,
    /// Whether the caller may create (else the page says who may, instead of the form).
    pub may_create: bool,
    /// The page's language.
    pub lang: Lang,
}

/// `templates/new_paste.html`: the new-paste form.
#[derive(Template)]
#[template(path = "new_paste.html")]
struct NewPastePage<'a> {
    layout: Layout<'a>,
    ttl_choices: &'a [TtlChoice],
    default_ttl: &'a str,
    max_paste_bytes: u64,
    may_create: bool,
}

impl NewPastePage<'_> {
    /// The largest paste, for people.
    fn max_paste_size(&self) -> String {
        self.layout.lang.size(self.max_paste_bytes)
    }
}

/// The new-paste form; works without JavaScript (a multipart POST to `/`).
pub fn new_paste(options: &NewPasteOptions<'_>) -> String {
    let page = NewPastePage {
        layout: Layout {
            page: Page::New,
            account: options.account,
            site: options.site,
            lang: options.lang,
            here: "/".to_owned(),
        },
        ttl_choices: options.ttl_choices,
        default_ttl: options.default_ttl,
        max_paste_bytes: options.max_paste_bytes,
        may_create: options.may_create,
    };
    render(&page, 6144)
}
