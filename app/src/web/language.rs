//! The header's language switch: `GET /lang/{tag}` remembers the choice in a cookie for a year and sends the
//! browser back to the page it came from (its `Referer`, or `?back=`), so it works as a plain link, before
//! (or without) the wasm — and the link carries nothing of the page's address into the page.

use axum::extract::{Path, Query};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use crate::shared::error::AppError;
use crate::shared::i18n::{self, COOKIE, td_string};
use crate::shared::site_path::same_site_path;

/// A year: the choice outlives a session, like any site's language setting.
const REMEMBER_SECS: u32 = 365 * 24 * 60 * 60;

/// Where the switch was pressed.
#[derive(Debug, Deserialize)]
pub struct Back {
    /// The page to go back to; anything but a path on this site goes home.
    back: Option<String>,
}

/// Answers every request in the language it asks for ([`i18n::from_headers`]), so a message worded deep in a
/// service for a route outside Leptos (the JSON API, uploads) is in the asker's language too.
pub async fn speak_the_request_s_language(request: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let locale = i18n::from_headers(request.headers());
    i18n::speaking(locale, next.run(request)).await
}

/// Sets the language cookie and redirects back (303) — to `?back=`, else to the path of the page the link was
/// on (the `Referer`; only ever a path on this site, whoever sent it); a language we do not speak is a 400
/// that says which ones we do, and sets nothing.
pub async fn switch(Path(tag): Path<String>, Query(Back { back }): Query<Back>, headers: HeaderMap) -> Response {
    let Some(locale) = i18n::parse(&tag).filter(|l| i18n::tag(*l).eq_ignore_ascii_case(&tag)) else {
        return AppError::invalid("lang", td_string!(i18n::locale(), common.err_language_unknown)).into_response();
    };
    let referer = headers
        .get(header::REFERER)
        .and_then(|v| v.to_str().ok())
        .and_then(|r| url::Url::parse(r).ok())
        .map(|u| u[url::Position::BeforePath..].to_string());
    let to = back.or(referer).as_deref().and_then(same_site_path).unwrap_or_else(|| "/".to_string());
    let cookie = format!("{COOKIE}={}; Path=/; Max-Age={REMEMBER_SECS}; SameSite=Lax", i18n::tag(locale));
    let (Ok(cookie), Ok(to)) = (HeaderValue::from_str(&cookie), HeaderValue::from_str(&to)) else {
        return AppError::invalid("back", td_string!(i18n::locale(), common.err_back_address)).into_response();
    };
    (StatusCode::SEE_OTHER, [(header::SET_COOKIE, cookie), (header::LOCATION, to)]).into_response()
}
