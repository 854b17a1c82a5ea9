//! Every value a client or tenant controls comes out of every template that
//! shows it HTML-escaped: as text, never as markup or an attribute's end.

use axum::http::StatusCode;

use super::account::{Scope, SigninWays, my_local, my_pastes, signin};
use super::i18n::Lang;
use super::layout::Account;
use super::pages::{self, NewPasteOptions, burn_interstitial, error_page, new_paste};
use super::preview::Instance;
use crate::core::files::PasteFile;
use crate::core::paste::tests::test_meta;
use crate::core::paste::{self, PasteMeta};
use crate::core::tenant::Person;
use crate::http::api_error::ApiError;
use crate::http::state::Site;

/// Markup that would run a script, end an attribute (either quote) or start
/// an entity if it were not escaped.
const EVIL: &str = r#"<script>alert('x')</script>"&"#;

/// [`EVIL`] as askama writes it into HTML.
const ESCAPED: &str = "&#60;script&#62;alert(&#39;x&#39;)&#60;/script&#62;&#34;&#38;";

/// `page` shows [`EVIL`] escaped exactly `times` times, and never as it is.
fn assert_escaped(page: &str, times: usize) {
    assert!(!page.contains("<script>"), "{page}");
    assert!(!page.contains("'x'"), "{page}");
    assert_eq!(page.matches(ESCAPED).count(), times, "{page}");
}

/// The paste view on an instance called `snip`, which sends link previews.
fn view(meta: &PasteMeta, body: &[u8], account: Account<'_>) -> String {
    let site = Site::default();
    let instance = Instance {
        site: &site,
        base_url: "http://127.0.0.1:8000",
    };
    pages::view(meta, body, account, &instance, Lang::En)
}

fn meta(change: impl FnOnce(&mut PasteMeta)) -> PasteMeta {
    let mut meta = test_meta();
    meta.id = "abcdefghijklm".into();
    meta.expires_at = Some(3_600);
    change(&mut meta);
    meta
}

/// The view of a text paste: its name (title, heading, `data-name`), its
/// language (`data-lang`, the metadata line), its text, its author and
/// the signed-in tenant's name.
#[test]
fn view_of_text_escapes_name_language_text_author_and_tenant() {
    let meta = meta(|m| {
        m.name = Some(EVIL.into());
        m.lang = Some(EVIL.into());
        m.size = EVIL.len() as u64;
        m.author = Some(Person {
            subject: EVIL.into(),
            name: EVIL.into(),
        });
    });
    let page = view(&meta, EVIL.as_bytes(), Account::SignedIn(EVIL));
    // The link preview's title and description, twice each (Open Graph,
    // Twitter card).
    assert_escaped(&page, 3 + 2 + 1 + 1 + 1 + 4);
}

/// The instance's name (`--title`) heads every page and names the site in
/// link previews.
#[test]
fn the_instance_name_is_escaped() {
    let site = Site {
        name: EVIL.into(),
        link_previews: true,
    };
    let instance = Instance {
        site: &site,
        base_url: "http://127.0.0.1:8000",
    };
    let page = pages::view(&meta(|_| {}), b"text", Account::Hidden, &instance, Lang::En);
    // <title>, the header's brand, og:site_name.
    assert_escaped(&page, 3);
    let error = ApiError::not_found();
    assert_escaped(&error_page(&error, EVIL, Lang::En, "/"), 2);
}

/// A several-file paste: each file's name (its anchors, heading, labels,
/// download name, line anchors), language, text and media type.
#[test]
fn view_of_several_files_escapes_names_languages_texts_and_types() {
    let text = PasteFile {
        name: EVIL.into(),
        size: EVIL.len() as u64,
        lang: Some(EVIL.into()),
        content_type: paste::TEXT_PLAIN.into(),
    };
    let binary = PasteFile {
        name: "b".into(),
        size: 2,
        lang: None,
        content_type: format!("application/x-{EVIL}"),
    };
    let meta = meta(|m| {
        m.size = text.size + binary.size;
        m.files = vec![text, binary];
    });
    let body = [EVIL.as_bytes(), b"\0\x01"].concat();
    // The files' names are the link preview's title and the text file's
    // text its description, twice each.
    assert_escaped(&view(&meta, &body, Account::Hidden), 10 + 2 + 1 + 1 + 4);
}

/// An image's name is also its `alt` text.
#[test]
fn view_of_image_escapes_its_name() {
    let meta = meta(|m| {
        m.name = Some(EVIL.into());
        m.content_type = "image/png".into();
    });
    // And the link preview's title, twice.
    assert_escaped(&view(&meta, b"\x89PNG", Account::SignedOut), 4 + 2);
}

/// A file without a name is described by its media type.
#[test]
fn view_of_file_escapes_its_type() {
    let meta = meta(|m| m.content_type = format!("application/x-{EVIL}"));
    // And the link preview's description (type and size), twice.
    assert_escaped(&view(&meta, b"\0\x01", Account::Hidden), 2 + 2);
}

/// The burn interstitial names the paste before it is revealed.
#[test]
fn burn_interstitial_escapes_name_and_tenant() {
    let meta = meta(|m| {
        m.name = Some(EVIL.into());
        m.burn = true;
    });
    assert_escaped(
        &burn_interstitial(&meta, Account::SignedIn(EVIL), "snip", Lang::En),
        3 + 1,
    );
}

/// An error's message may quote what the client sent.
#[test]
fn error_page_escapes_the_message() {
    let error = ApiError::new(
        StatusCode::BAD_REQUEST,
        crate::core::ErrorCode::BadRequest,
        EVIL,
    );
    assert_escaped(&error_page(&error, "snip", Lang::En, "/"), 1);
}

/// `next` comes from the sign-in link's query.
#[test]
fn signin_escapes_next() {
    let both = SigninWays {
        provider: true,
        token: true,
    };
    assert_escaped(&signin(None, EVIL, both, "snip", Lang::En), 1);
}

/// "My pastes": the tenant's, each paste's name and author, and a search's
/// words; the search and the cursor are URL-encoded into the link.
#[test]
fn my_pastes_escapes_tenant_and_names_and_encodes_the_cursor() {
    let pastes = [meta(|m| {
        m.name = Some(EVIL.into());
        m.author = Some(Person {
            subject: EVIL.into(),
            name: EVIL.into(),
        });
    })];
    let page = my_pastes(
        Account::SignedIn(EVIL),
        "snip",
        Lang::En,
        &pastes,
        None,
        Some(EVIL),
        Scope::Team,
    );
    assert_escaped(&page, 3);
    assert!(
        page.contains("href=\"/my?cursor=%3Cscript%3Ealert%28%27x%27%29%3C%2Fscript%3E%22%26\""),
        "{page}"
    );
    let searched = my_pastes(
        Account::SignedIn(EVIL),
        "snip",
        Lang::En,
        &pastes,
        Some(EVIL),
        Some("r50"),
        Scope::Team,
    );
    // The tenant, the name, the author, the search field's value and the
    // results' heading.
    assert_escaped(&searched, 5);
    assert!(
        searched.contains(
            "href=\"/my?q=%3Cscript%3Ealert%28%27x%27%29%3C%2Fscript%3E%22%26&#38;cursor=r50\""
        ),
        "{searched}"
    );
    assert_escaped(&my_local(Account::SignedIn(EVIL), "snip", Lang::En), 1);
}

/// The form's header names the signed-in tenant.
#[test]
fn new_paste_escapes_the_tenant() {
    let page = new_paste(&NewPasteOptions {
        ttl_choices: &[],
        default_ttl: "never",
        max_paste_bytes: 1024,
        account: Account::SignedIn(EVIL),
        site: "snip",
        may_create: true,
        lang: Lang::En,
    });
    assert_escaped(&page, 1);
}

/// The header names the person and the tenant a provider's sign-in gave.
#[test]
fn header_escapes_the_person() {
    let teams = [EVIL.to_owned()];
    let account = Account::Person {
        name: EVIL,
        tenant: EVIL,
        teams: &teams,
    };
    assert_escaped(&my_local(account, "snip", Lang::En), 3);
    assert_escaped(&my_local(Account::Teamless(EVIL), "snip", Lang::En), 1);
}
