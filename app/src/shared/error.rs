//! The one error type that crosses the wire: every server function returns it, every page shows it.

use leptos::server_fn::codec::JsonEncoding;
use leptos::server_fn::error::{FromServerFnError, ServerFnErrorErr};
use serde::{Deserialize, Serialize};

use crate::shared::i18n::{Locale, locale, td_string};

/// What went wrong, phrased for the person using the site. Internal details stay in the server log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum AppError {
    /// One form field is invalid; `field` names it so the form can show the message inline.
    Validation { field: String, message: String },
    /// Credentials did not match.
    Unauthenticated(String),
    /// The action needs a logged-in user.
    LoginRequired,
    /// Logged in, but not allowed to do this.
    Forbidden,
    /// The thing asked for does not exist.
    NotFound(Thing),
    /// Slowed down: too many attempts.
    TooManyRequests { message: String, retry_after_secs: u64 },
    /// The grab's gate is full this instant (more arrivals than the back end takes); nothing was tried, and
    /// a retry after a short random wait usually gets in.
    Busy { retry_after_secs: u64 },
    /// A backing service is down; nothing was changed, so trying again is safe.
    Unavailable(String),
    /// Our fault; details are in the server log.
    Internal,
    /// The request was larger than a form may be; nothing was read or changed.
    TooLarge(String),
    /// The request never reached us or the answer was garbled.
    Transport(String),
}

/// The message, in the language of the page showing it (the errors without words of their own are worded
/// where they are shown: by the server for a page, by the browser for an island).
impl std::fmt::Display for AppError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let locale = locale();
        match self {
            Self::Validation { message, .. } | Self::TooManyRequests { message, .. } => f.write_str(message),
            Self::Unauthenticated(message) | Self::Unavailable(message) | Self::TooLarge(message) => {
                f.write_str(message)
            }
            Self::LoginRequired => f.write_str(td_string!(locale, common.error_login_required)),
            Self::Forbidden => f.write_str(td_string!(locale, common.error_forbidden)),
            Self::NotFound(thing) => {
                f.write_str(&td_string!(locale, common.error_not_found, what = thing.name(locale)))
            }
            Self::Busy { .. } => f.write_str(td_string!(locale, common.error_busy)),
            Self::Internal => f.write_str(td_string!(locale, common.error_internal)),
            Self::Transport(cause) => f.write_str(&td_string!(locale, common.error_transport, cause = cause)),
        }
    }
}

impl std::error::Error for AppError {}

/// What a "not found" is about: a closed list, so the page names it in its own language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Thing {
    /// A shop.
    Shop,
    /// A shop category.
    Category,
    /// A coupon.
    Coupon,
    /// A flash sale.
    FlashSale,
    /// A note.
    Note,
    /// A notice in the inbox.
    Notice,
    /// An order.
    Order,
    /// A page of the site.
    Page,
    /// A review.
    Review,
    /// A person.
    User,
}

impl Thing {
    /// Its name in `locale`, as a sentence's subject: "Shop", "商户".
    pub fn name(self, locale: Locale) -> &'static str {
        match self {
            Self::Shop => td_string!(locale, common.thing_shop),
            Self::Category => td_string!(locale, common.thing_category),
            Self::Coupon => td_string!(locale, common.thing_coupon),
            Self::FlashSale => td_string!(locale, common.thing_flash_sale),
            Self::Note => td_string!(locale, common.thing_note),
            Self::Notice => td_string!(locale, common.thing_notice),
            Self::Order => td_string!(locale, common.thing_order),
            Self::Page => td_string!(locale, common.thing_page),
            Self::Review => td_string!(locale, common.thing_review),
            Self::User => td_string!(locale, common.thing_user),
        }
    }
}

impl AppError {
    /// Shorthand for a field-level validation error.
    pub fn invalid(field: &str, message: impl Into<String>) -> Self {
        Self::Validation { field: field.to_string(), message: message.into() }
    }

    /// The message for `field` if this error is about that field.
    pub fn field_message(&self, field: &str) -> Option<String> {
        match self {
            Self::Validation { field: f, message } if f == field => Some(message.clone()),
            _ => None,
        }
    }

    /// HTTP status the API answers with, so non-browser clients see a proper 4xx/5xx.
    pub fn status_code(&self) -> u16 {
        match self {
            Self::Validation { .. } => 400,
            Self::Unauthenticated(_) | Self::LoginRequired => 401,
            Self::Forbidden => 403,
            Self::NotFound(_) => 404,
            Self::TooManyRequests { .. } | Self::Busy { .. } => 429,
            Self::TooLarge(_) => 413,
            Self::Internal => 500,
            Self::Unavailable(_) => 503,
            Self::Transport(_) => 502,
        }
    }
}

impl FromServerFnError for AppError {
    type Encoder = JsonEncoding;

    fn from_server_fn_error(value: ServerFnErrorErr) -> Self {
        match value {
            ServerFnErrorErr::Args(msg) | ServerFnErrorErr::MissingArg(msg) => {
                Self::invalid("form", td_string!(locale(), common.err_form_incomplete, detail = msg))
            }
            ServerFnErrorErr::Request(msg) | ServerFnErrorErr::Response(msg) => Self::Transport(msg),
            // On the server, arguments that do not decode (bytes that are not UTF-8, say) are the request's
            // fault; in the browser, an answer that does not decode is the transport's.
            ServerFnErrorErr::Deserialization(msg) if cfg!(feature = "ssr") => {
                Self::invalid("form", td_string!(locale(), common.err_form_unreadable, detail = msg))
            }
            ServerFnErrorErr::Deserialization(msg) | ServerFnErrorErr::Serialization(msg) => Self::Transport(msg),
            _ => Self::Internal,
        }
    }
}

#[cfg(feature = "ssr")]
impl AppError {
    /// Logs an internal failure with its cause and returns the user-facing `Internal` error.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        tracing::error!(error = %cause, "internal error");
        Self::Internal
    }

    /// The answer to a request an instance shed (`timed_out` false: nothing was done) or cut off while
    /// answering it, in `locale` (the edge's own answer, outside the layer that sets the request's language).
    pub fn overloaded(locale: Locale, timed_out: bool) -> Self {
        Self::Unavailable(
            if timed_out {
                td_string!(locale, common.err_timed_out)
            } else {
                td_string!(locale, common.err_server_busy)
            }
            .into(),
        )
    }

    /// A form over `limit_mb` MB, in `locale`: nothing was read or changed.
    pub fn form_too_large(locale: Locale, limit_mb: usize) -> Self {
        Self::TooLarge(td_string!(locale, common.err_form_too_large, max = limit_mb))
    }

    /// Sets the HTTP status of the current server-function response to match this error.
    pub fn respond(self) -> Self {
        if let Some(opts) = leptos::prelude::use_context::<leptos_axum::ResponseOptions>()
            && let Ok(code) = axum::http::StatusCode::from_u16(self.status_code())
        {
            opts.set_status(code);
        }
        if let Self::TooManyRequests { retry_after_secs, .. } | Self::Busy { retry_after_secs } = &self {
            set_retry_after(*retry_after_secs);
        }
        self
    }
}

/// The answer of a plain axum route (not a server function) that failed: the error's status and its JSON.
#[cfg(feature = "ssr")]
impl axum::response::IntoResponse for AppError {
    fn into_response(self) -> axum::response::Response {
        let code = axum::http::StatusCode::from_u16(self.status_code())
            .unwrap_or(axum::http::StatusCode::INTERNAL_SERVER_ERROR);
        (code, axum::Json(self)).into_response()
    }
}

/// Tells the client, in the current server function's answer, when to try again.
#[cfg(feature = "ssr")]
pub fn set_retry_after(secs: u64) {
    if let Some(opts) = leptos::prelude::use_context::<leptos_axum::ResponseOptions>()
        && let Ok(v) = axum::http::HeaderValue::from_str(&secs.to_string())
    {
        opts.insert_header(axum::http::header::RETRY_AFTER, v);
    }
}
