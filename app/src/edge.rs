//! Helpers every server function uses at the HTTP edge: state, session, client address, current user.

use std::net::SocketAddr;

use axum::extract::ConnectInfo;
use axum::http::HeaderMap;
use leptos::prelude::use_context;
use tower_sessions::Session;

use crate::auth::model::CurrentUser;
use crate::error::AppError;
use crate::state::AppState;

/// The instance's shared state (provided by the router).
pub fn state() -> Result<AppState, AppError> {
    use_context::<AppState>().ok_or_else(|| AppError::internal("AppState missing from context").respond())
}

/// The request's session (the session layer must wrap the router).
pub async fn session() -> Result<Session, AppError> {
    leptos_axum::extract::<Session>()
        .await
        .map_err(|e| AppError::internal(format!("session layer missing: {e}")).respond())
}

/// The client's address: the socket peer, or the first X-Forwarded-For hop when configured to trust it.
pub async fn client_ip(state: &AppState) -> String {
    if state.config.trust_forwarded_for
        && let Ok(headers) = leptos_axum::extract::<HeaderMap>().await
        && let Some(first) =
            headers.get("x-forwarded-for").and_then(|v| v.to_str().ok()).and_then(|v| v.split(',').next())
    {
        return first.trim().to_string();
    }
    match leptos_axum::extract::<ConnectInfo<SocketAddr>>().await {
        Ok(ConnectInfo(addr)) => addr.ip().to_string(),
        Err(_) => "unknown".to_string(),
    }
}

/// The logged-in user, if any; a dangling session (deleted user) counts as logged out.
pub async fn current_user() -> Result<Option<CurrentUser>, AppError> {
    let state = state()?;
    let Some(id) = session_user_id().await? else {
        return Ok(None);
    };
    crate::auth::service::user_by_id(&state, id).await.map_err(|e| AppError::from(e).respond())
}

/// The logged-in user's id straight from the session, without loading the account (the grab's hot path;
/// an order of an account that no longer exists is refused by the order writer).
pub async fn session_user_id() -> Result<Option<i64>, AppError> {
    let session = session().await?;
    crate::auth::session::user_id(&session).await.map_err(|e| AppError::internal(e).respond())
}

/// Anonymous-visitor cookie used to count unique visitors without a login.
pub const VISITOR_COOKIE: &str = "hd_vid";

/// A stable id for unique-visitor counting: `u:{id}` when logged in, else the `hd_vid` cookie (set now
/// if the browser has none).
pub async fn visitor_id(user: Option<&CurrentUser>) -> String {
    if let Some(u) = user {
        return format!("u:{}", u.id);
    }
    let existing = leptos_axum::extract::<HeaderMap>().await.ok().and_then(|h| {
        h.get_all(axum::http::header::COOKIE).iter().filter_map(|v| v.to_str().ok()).find_map(|v| {
            v.split(';').filter_map(|kv| kv.trim().split_once('=')).find_map(|(k, v)| {
                (k == VISITOR_COOKIE && v.len() == 32 && v.bytes().all(|b| b.is_ascii_hexdigit()))
                    .then(|| v.to_string())
            })
        })
    });
    let id = existing.unwrap_or_else(|| {
        let id = format!("{:032x}", rand::random::<u128>());
        if let Some(opts) = use_context::<leptos_axum::ResponseOptions>() {
            let cookie = format!("{VISITOR_COOKIE}={id}; Path=/; Max-Age=31536000; HttpOnly; SameSite=Lax");
            if let Ok(v) = axum::http::HeaderValue::from_str(&cookie) {
                opts.append_header(axum::http::header::SET_COOKIE, v);
            }
        }
        id
    });
    format!("a:{id}")
}
