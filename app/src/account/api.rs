//! Account-settings server functions: thin — the edge's preamble, one service call.

use leptos::prelude::*;

use super::model::AccountSettings;
use crate::auth::model::CurrentUser;
use crate::shared::error::AppError;

/// The logged-in person's settings: name, picture, whether they have a password, their devices.
#[server(endpoint = "account/settings")]
pub async fn my_account() -> Result<AccountSettings, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = cx.require_user_id().await?;
        let current = cx.session().await?.id();
        Ok(super::service::settings(&cx.state, user, current).await?)
    })
    .await
}

/// Sets the name and picture others see (`avatar`: an address from `/api/v1/uploads`, or empty for none).
#[server(endpoint = "account/profile")]
pub async fn update_profile(nickname: String, avatar: String) -> Result<CurrentUser, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = cx.require_user_id().await?;
        Ok(super::service::update_profile(&cx.state, user, &nickname, &avatar).await?)
    })
    .await
}

/// Changes the password (or sets one on an account made with a texted code); every other browser is
/// logged out. Answers how many were.
#[server(endpoint = "account/password")]
pub async fn change_password(
    current_password: String,
    password: String,
    password_confirm: String,
) -> Result<usize, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = cx.require_user_id().await?;
        let client_ip = cx.client_network().await;
        let keep = cx.session().await?.id();
        let form = super::service::PasswordChange {
            current: &current_password,
            password: &password,
            password_confirm: &password_confirm,
            client_ip: &client_ip,
        };
        Ok(super::service::change_password(&cx.state, user, form, keep).await?)
    })
    .await
}

/// Logs out every other browser of the account; answers how many.
#[server(endpoint = "account/log-out-others")]
pub async fn log_out_others() -> Result<usize, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = cx.require_user_id().await?;
        let keep = cx.session().await?.id();
        Ok(super::service::log_out_others(&cx.state, user, keep).await?)
    })
    .await
}

/// Closes the account, confirmed by its password (or its full mobile number, without one); this browser
/// is logged out with the rest.
#[server(endpoint = "account/close")]
pub async fn close_account(confirm: String) -> Result<(), AppError> {
    crate::web::edge::run(|cx| async move {
        let user = cx.require_user_id().await?;
        let client_ip = cx.client_network().await;
        super::service::close(&cx.state, user, &confirm, &client_ip).await?;
        crate::web::session::sign_out(&cx.session().await?).await.map_err(AppError::from)?;
        Ok(())
    })
    .await
}
