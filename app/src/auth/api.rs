//! Auth server functions: thin wrappers that bind the session and map errors to HTTP statuses; and the
//! current-user lookup every other capability's server functions use.

use leptos::prelude::*;

use super::model::CurrentUser;
use crate::shared::error::AppError;

/// The logged-in user, if any; a dangling session (deleted user) counts as logged out.
#[cfg(feature = "ssr")]
pub async fn current_user(cx: &crate::web::edge::Cx) -> Result<Option<CurrentUser>, crate::web::edge::Failure> {
    match cx.user_id().await? {
        Some(id) => Ok(super::service::user_by_id(&cx.state, id).await?),
        None => Ok(None),
    }
}

/// The logged-in user, or 401.
#[cfg(feature = "ssr")]
pub async fn require_user(cx: &crate::web::edge::Cx) -> Result<CurrentUser, crate::web::edge::Failure> {
    Ok(current_user(cx).await?.ok_or(AppError::LoginRequired)?)
}

/// Creates an account and logs it in.
#[server(endpoint = "auth/register")]
pub async fn register(
    account: String,
    nickname: String,
    password: String,
    password_confirm: String,
) -> Result<CurrentUser, AppError> {
    crate::web::edge::run(|cx| async move {
        let client = cx.address_key().await;
        let form = super::service::Registration {
            account: &account,
            nickname: &nickname,
            password: &password,
            password_confirm: &password_confirm,
            client: &client,
        };
        let user = super::service::register(&cx.state, form).await?;
        crate::web::session::sign_in(&cx.session().await?, user.id).await.map_err(AppError::from)?;
        Ok(user)
    })
    .await
}

/// Logs in with phone or e-mail and password.
#[server(endpoint = "auth/login")]
pub async fn login(account: String, password: String) -> Result<CurrentUser, AppError> {
    crate::web::edge::run(|cx| async move {
        let ip = cx.client_ip().await;
        let user = super::service::login(&cx.state, &account, &password, &ip).await?;
        crate::web::session::sign_in(&cx.session().await?, user.id).await.map_err(AppError::from)?;
        Ok(user)
    })
    .await
}

/// Logs out (idempotent).
#[server(endpoint = "auth/logout")]
pub async fn logout() -> Result<(), AppError> {
    crate::web::edge::run(|cx| async move {
        Ok(crate::web::session::sign_out(&cx.session().await?).await.map_err(AppError::from)?)
    })
    .await
}

/// The logged-in user, or `None`.
#[server(endpoint = "auth/me")]
pub async fn me() -> Result<Option<CurrentUser>, AppError> {
    crate::web::edge::run(|cx| async move { current_user(&cx).await }).await
}

/// Texts a log-in code to a phone.
#[server(endpoint = "auth/send-code")]
pub async fn send_login_code(phone: String) -> Result<(), AppError> {
    crate::web::edge::run(|cx| async move {
        let client = cx.address_key().await;
        Ok(super::service::send_code(&cx.state, &phone, &client).await?)
    })
    .await
}

/// Logs in with a texted code (creating the account on a phone's first log-in).
#[server(endpoint = "auth/login-code")]
pub async fn login_with_code(phone: String, code: String) -> Result<CurrentUser, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = super::service::login_with_code(&cx.state, &phone, &code).await?;
        crate::web::session::sign_in(&cx.session().await?, user.id).await.map_err(AppError::from)?;
        Ok(user)
    })
    .await
}

/// The local text-message outbox (only with `DEV_OUTBOX=true`; 404 otherwise).
#[server(endpoint = "dev/outbox")]
pub async fn dev_outbox() -> Result<Vec<super::model::SentSms>, AppError> {
    crate::web::edge::run(|cx| async move {
        Ok(super::service::dev_outbox(&cx.state).await?.ok_or_else(|| AppError::NotFound("Page".into()))?)
    })
    .await
}
