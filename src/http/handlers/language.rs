//! `POST /lang`: the language menu of every page. Remembers the language
//! chosen in the `lang` cookie (a year) and sends the browser back (`303`)
//! to `next`, a path on this server. Like sign-in, the form must come from
//! the server's own pages, so no other site can switch a reader's language.

use axum::Extension;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use super::session::{check_form_post, is_secure, local_path, query_field, read_form, see_other};
use crate::http::api_error::{ApiError, ErrorCode};
use crate::http::context::Origin;
use crate::http::render::i18n::{Lang, MENU};
use crate::http::render::language::set_lang_cookie;
use crate::http::state::SharedState;

/// The largest language form body: a tag and a path.
const MAX_FORM_BYTES: u64 = 4 * 1024;

/// `POST /lang` with `lang=TAG&next=PATH`.
pub async fn choose(
    State(state): State<SharedState>,
    Extension(origin): Extension<Origin>,
    request: Request,
) -> Result<Response, Response> {
    check_form_post(&state, &origin, request.method(), request.headers())
        .map_err(IntoResponse::into_response)?;
    let body = read_form(&state, &origin, request, MAX_FORM_BYTES, form_too_large).await?;
    let tag = query_field(&body, "lang").unwrap_or_default();
    let lang = Lang::from_tag(&tag)
        .filter(|lang| MENU.contains(lang))
        .ok_or_else(|| {
            ApiError::bad_request(format!(
                "unknown language {tag:?}: lang must be one of {}",
                MENU.map(Lang::tag).join(", ")
            ))
            .into_response()
        })?;
    let next = local_path(query_field(&body, "next").as_deref()).to_owned();
    let cookie = set_lang_cookie(lang, is_secure(&state, &origin));
    Ok(see_other(&next, &cookie))
}

/// `413`: a language form larger than [`MAX_FORM_BYTES`].
fn form_too_large() -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        ErrorCode::TooLarge,
        "the language form is too large",
    )
}
