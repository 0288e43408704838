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

/// The logged-in user if they may act as a shopper (buy, grab, review, post, like, follow, check in,
/// save): operators run the platform and stay out of it, so nothing they moderate is theirs. 401 for
/// nobody, 403 for an operator.
#[cfg(feature = "ssr")]
pub async fn require_shopper(cx: &crate::web::edge::Cx) -> Result<CurrentUser, crate::web::edge::Failure> {
    let user = require_user(cx).await?;
    if user.role == super::model::Role::Operator {
        return Err(AppError::Forbidden.into());
    }
    Ok(user)
}

/// [`require_shopper`] for the hot paths that read no account (the grab): the session's operator mark.
#[cfg(feature = "ssr")]
pub async fn require_shopper_id(cx: &crate::web::edge::Cx) -> Result<i64, crate::web::edge::Failure> {
    let id = cx.require_user_id().await?;
    if cx.is_staff().await? {
        return Err(AppError::Forbidden.into());
    }
    Ok(id)
}

/// The cookie that marks a browser as one that has logged in to the account (its token; see
/// `service::remember_device`), sent only to the log-in functions.
#[cfg(feature = "ssr")]
const DEVICE_COOKIE: &str = "hd_dev";

/// Marks this browser as a known device of `user_id` (once per account): its log-in codes then have a
/// daily allowance of their own. The log-in has succeeded already; failing to remember only costs that.
#[cfg(feature = "ssr")]
async fn remember_device(cx: &crate::web::edge::Cx, user_id: i64) {
    let current = cx.hex_cookie(DEVICE_COOKIE, 64).await;
    match super::service::remember_device(&cx.state, user_id, current.as_deref()).await {
        Ok(Some(token)) => cx.set_cookie(DEVICE_COOKIE, &token, "/api/auth"),
        Ok(None) => {}
        Err(e) => tracing::warn!(user_id, "known device not remembered: {e}"),
    }
}

/// Where this browser's sign-up waits for its code (see `service::PendingSignUp`).
#[cfg(feature = "ssr")]
const PENDING_SIGN_UP: &str = "sign_up";

/// Starts an account: texts a code to the phone, which [`login_with_code`] takes to finish it. Answers
/// where the code went (masked), the same whether or not the number has an account.
#[server(endpoint = "auth/register")]
pub async fn register(
    account: String,
    nickname: String,
    password: String,
    password_confirm: String,
) -> Result<String, AppError> {
    crate::web::edge::run(|cx| async move {
        let client = cx.address_key().await;
        let form = super::service::Registration {
            account: &account,
            nickname: &nickname,
            password: &password,
            password_confirm: &password_confirm,
            client: &client,
        };
        let pending = super::service::register(&cx.state, form).await?;
        let masked = super::model::Account::Phone(pending.phone.clone()).masked();
        cx.session().await?.insert(PENDING_SIGN_UP, pending).await.map_err(session_error)?;
        Ok(masked)
    })
    .await
}

/// Logs in with phone or e-mail and password.
#[server(endpoint = "auth/login")]
pub async fn login(account: String, password: String) -> Result<CurrentUser, AppError> {
    crate::web::edge::run(|cx| async move {
        let ip = cx.client_network().await;
        let user = super::service::login(&cx.state, &account, &password, &ip).await?;
        let device = cx.user_agent().await;
        let staff = user.role == super::model::Role::Operator;
        crate::web::session::sign_in(&cx.session().await?, user.id, &device, staff).await.map_err(AppError::from)?;
        remember_device(&cx, user.id).await;
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
        let device = cx.hex_cookie(DEVICE_COOKIE, 64).await;
        Ok(super::service::send_code(&cx.state, &phone, &client, device.as_deref()).await?)
    })
    .await
}

/// Logs in with a texted code (creating the account on a phone's first log-in, with the name and
/// password of this browser's sign-up for that phone, if one waits).
#[server(endpoint = "auth/login-code")]
pub async fn login_with_code(phone: String, code: String) -> Result<CurrentUser, AppError> {
    crate::web::edge::run(|cx| async move {
        let session = cx.session().await?;
        let pending = session.get::<super::service::PendingSignUp>(PENDING_SIGN_UP).await.map_err(session_error)?;
        let user = super::service::sign_in_with_code(&cx.state, &phone, &code, pending.as_ref()).await?;
        let device = cx.user_agent().await;
        let staff = user.role == super::model::Role::Operator;
        crate::web::session::sign_in(&session, user.id, &device, staff).await.map_err(AppError::from)?;
        remember_device(&cx, user.id).await;
        session.remove::<super::service::PendingSignUp>(PENDING_SIGN_UP).await.map_err(session_error)?;
        Ok(user)
    })
    .await
}

/// A session store failure, as the session module reports it.
#[cfg(feature = "ssr")]
fn session_error(e: tower_sessions::session::Error) -> AppError {
    crate::web::session::SessionError::from(e).into()
}

/// The local text-message outbox (only with `DEV_OUTBOX=true`; 404 otherwise).
#[server(endpoint = "dev/outbox")]
pub async fn dev_outbox() -> Result<Vec<super::model::SentSms>, AppError> {
    crate::web::edge::run(|cx| async move {
        Ok(super::service::dev_outbox(&cx.state).await?.ok_or(AppError::NotFound(crate::shared::error::Thing::Page))?)
    })
    .await
}
