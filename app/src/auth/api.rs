//! Auth server functions: thin wrappers that bind the session and map errors to HTTP statuses.

use leptos::prelude::*;

use super::model::CurrentUser;
use crate::error::AppError;

/// Creates an account and logs it in.
#[server(endpoint = "auth/register")]
pub async fn register(
    account: String,
    nickname: String,
    password: String,
    password_confirm: String,
) -> Result<CurrentUser, AppError> {
    use super::service::{self, Registration};
    let state = crate::edge::state()?;
    let form = Registration {
        account: &account,
        nickname: &nickname,
        password: &password,
        password_confirm: &password_confirm,
    };
    let user = service::register(&state, form).await.map_err(|e| AppError::from(e).respond())?;
    let session = crate::edge::session().await?;
    super::session::sign_in(&session, user.id).await.map_err(|e| AppError::internal(e).respond())?;
    Ok(user)
}

/// Logs in with phone or e-mail and password.
#[server(endpoint = "auth/login")]
pub async fn login(account: String, password: String) -> Result<CurrentUser, AppError> {
    let state = crate::edge::state()?;
    let ip = crate::edge::client_ip(&state).await;
    let user =
        super::service::login(&state, &account, &password, &ip).await.map_err(|e| AppError::from(e).respond())?;
    let session = crate::edge::session().await?;
    super::session::sign_in(&session, user.id).await.map_err(|e| AppError::internal(e).respond())?;
    Ok(user)
}

/// Logs out (idempotent).
#[server(endpoint = "auth/logout")]
pub async fn logout() -> Result<(), AppError> {
    let session = crate::edge::session().await?;
    super::session::sign_out(&session).await.map_err(|e| AppError::internal(e).respond())
}

/// The logged-in user, or `None`.
#[server(endpoint = "auth/me")]
pub async fn me() -> Result<Option<CurrentUser>, AppError> {
    crate::edge::current_user().await
}
