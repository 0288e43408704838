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
    if state.config.trust_forwarded_for {
        if let Ok(headers) = leptos_axum::extract::<HeaderMap>().await {
            if let Some(first) = headers
                .get("x-forwarded-for")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.split(',').next())
            {
                return first.trim().to_string();
            }
        }
    }
    match leptos_axum::extract::<ConnectInfo<SocketAddr>>().await {
        Ok(ConnectInfo(addr)) => addr.ip().to_string(),
        Err(_) => "unknown".to_string(),
    }
}

/// The logged-in user, if any; a dangling session (deleted user) counts as logged out.
pub async fn current_user() -> Result<Option<CurrentUser>, AppError> {
    let state = state()?;
    let session = session().await?;
    let Some(id) = crate::auth::session::user_id(&session).await.map_err(|e| AppError::internal(e).respond())?
    else {
        return Ok(None);
    };
    crate::auth::service::user_by_id(&state, id).await.map_err(|e| AppError::from(e).respond())
}

/// The logged-in user, or a 401 `LoginRequired`.
pub async fn require_user() -> Result<CurrentUser, AppError> {
    current_user().await?.ok_or_else(|| AppError::LoginRequired.respond())
}
