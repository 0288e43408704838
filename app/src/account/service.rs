//! Account settings: each change checked here, then made by the capability that keeps the record —
//! the account itself by auth, the sessions by the web edge, and on closing, the favourites, inbox and
//! follows by theirs.

use tower_sessions::session::Id;

use super::model::{AccountSettings, CONFIRM_FIELD, CURRENT_PASSWORD_FIELD, Device};
use crate::auth::model::{Account, CurrentUser, Nickname, Password, Role};
use crate::auth::service::AuthError;
use crate::catalog::service::CatalogError;
use crate::inbox::service::InboxError;
use crate::platform::backend::BackendError;
use crate::shared::error::AppError;
use crate::shared::i18n::{Locale, locale, td_string};
use crate::social::service::SocialError;
use crate::web::session::{DeviceKind, SessionError};
use crate::web::state::AppState;

/// What can go wrong in account settings; converted to [`AppError`] at the server-function edge.
#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    /// The picture is not an upload of this person's.
    #[error("not the person's own picture")]
    NotYourPicture,
    /// The confirmation of closing did not match.
    #[error("closing not confirmed")]
    NotConfirmed,
    /// A merchant's or operator's account is not closed from the settings page.
    #[error("account runs shops or the platform")]
    RunsSomething,
    /// The account (its record, its password check).
    #[error(transparent)]
    Auth(#[from] AuthError),
    /// The sessions' store.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// Follows or uploads.
    #[error(transparent)]
    Social(#[from] SocialError),
    /// Favourites.
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    /// Notices.
    #[error(transparent)]
    Inbox(#[from] InboxError),
    /// A backing service failed.
    #[error(transparent)]
    Backend(#[from] BackendError),
}

crate::backend_errors!(AccountError, Auth, Social, Catalog, Inbox);

impl From<AccountError> for AppError {
    fn from(e: AccountError) -> Self {
        match e {
            AccountError::NotYourPicture => {
                AppError::invalid("avatar", td_string!(locale(), account.err_not_your_picture))
            }
            AccountError::NotConfirmed => {
                AppError::invalid(CONFIRM_FIELD, td_string!(locale(), account.err_not_confirmed))
            }
            AccountError::RunsSomething => {
                AppError::invalid(CONFIRM_FIELD, td_string!(locale(), account.err_runs_something))
            }
            AccountError::Auth(e) => e.into(),
            AccountError::Session(e) => e.into(),
            AccountError::Social(e) => e.into(),
            AccountError::Catalog(e) => e.into(),
            AccountError::Inbox(e) => e.into(),
            AccountError::Backend(e) => e.into(),
        }
    }
}

/// `user_id`'s account, or "log in" once it is closed.
async fn identity(state: &AppState, user_id: i64) -> Result<crate::auth::service::Identity, AccountError> {
    crate::auth::service::identity(state, user_id).await?.ok_or(AccountError::Auth(AuthError::Closed))
}

/// A signed-in browser in the reader's words, from the `User-Agent` it logged in with ("Android 上的
/// Chrome"). A session from before the agent was kept holds its words already, or nothing.
fn device_words(locale: Locale, user_agent: Option<&str>) -> String {
    let Some(agent) = user_agent else { return td_string!(locale, account.device_earlier).to_string() };
    if !agent.is_empty() && !agent.contains('/') {
        return agent.to_string();
    }
    match crate::web::session::device_kind(agent) {
        DeviceKind { browser: Some(browser), system: Some(system) } => {
            td_string!(locale, account.device_on, browser, system)
        }
        DeviceKind { browser: Some(browser), system: None } => browser.to_string(),
        DeviceKind { browser: None, system: Some(system) } => {
            td_string!(locale, account.device_some_browser_on, system)
        }
        DeviceKind { browser: None, system: None } => td_string!(locale, account.device_unknown).to_string(),
    }
}

/// The settings page of `user_id`, looked at from session `current`.
pub async fn settings(state: &AppState, user_id: i64, current: Option<Id>) -> Result<AccountSettings, AccountError> {
    let me = identity(state, user_id).await?;
    let locale = locale();
    let devices = crate::web::session::sessions_of(state.postgres()?, user_id)
        .await?
        .into_iter()
        .map(|s| Device {
            label: device_words(locale, s.user_agent.as_deref()),
            signed_in_ms: s.login_at_ms,
            seen_ms: s.seen_ms,
            current: Some(s.id) == current,
        })
        .collect();
    Ok(AccountSettings {
        nickname: me.user.nickname,
        avatar: me.avatar,
        masked_account: me.user.masked_account,
        has_password: me.has_password,
        runs_something: me.user.role != Role::Shopper,
        devices,
    })
}

/// Sets the name and picture others see; `avatar` is empty for none, else the address of one of the
/// person's own uploads.
pub async fn update_profile(
    state: &AppState,
    user_id: i64,
    nickname: &str,
    avatar: &str,
) -> Result<CurrentUser, AccountError> {
    let nickname = Nickname::parse(nickname).map_err(AuthError::Invalid)?;
    let avatar = Some(avatar.trim()).filter(|a| !a.is_empty());
    if let Some(address) = avatar
        && !crate::social::service::uploaded_by(state, address, user_id).await?
    {
        return Err(AccountError::NotYourPicture);
    }
    Ok(crate::auth::service::set_profile(state, user_id, &nickname, avatar).await?)
}

/// A password form's new password, checked before anything is spent on the current one.
fn new_password(password: &str, confirm: &str) -> Result<Password, AccountError> {
    let password = Password::parse(password).map_err(AuthError::Invalid)?;
    if password.expose() != confirm {
        let differ = td_string!(locale(), auth.err_passwords_differ);
        return Err(AuthError::Invalid(AppError::invalid("password_confirm", differ)).into());
    }
    Ok(password)
}

/// Changes the password — asking for the current one, unless the account has none yet (made with a
/// texted code) — and logs out every other browser: whoever knew the old one is out. Answers how many.
pub async fn change_password(
    state: &AppState,
    user_id: i64,
    form: PasswordChange<'_>,
    keep: Option<Id>,
) -> Result<usize, AccountError> {
    let password = new_password(form.password, form.password_confirm)?;
    if identity(state, user_id).await?.has_password {
        crate::auth::service::confirm_password(state, user_id, form.current, form.client_ip, CURRENT_PASSWORD_FIELD)
            .await?;
    }
    crate::auth::service::set_password(state, user_id, password).await?;
    Ok(crate::web::session::end_sessions(state, user_id, keep).await?)
}

/// The password form, unparsed.
#[derive(Debug)]
pub struct PasswordChange<'a> {
    /// The current password (ignored when the account has none).
    pub current: &'a str,
    /// The new one.
    pub password: &'a str,
    /// The new one again.
    pub password_confirm: &'a str,
    /// Where the form came from (a wrong current password counts against it, as a failed log-in does).
    pub client_ip: &'a str,
}

/// Logs out every browser of `user_id` but `keep`; answers how many.
pub async fn log_out_others(state: &AppState, user_id: i64, keep: Option<Id>) -> Result<usize, AccountError> {
    Ok(crate::web::session::end_sessions(state, user_id, keep).await?)
}

/// Closes `user_id`'s account, confirmed by its password (or, for an account without one, its full
/// mobile number): favourites, the shops it viewed, notices and follows are deleted, the account keeps
/// nothing personal (its orders stay, anonymous, in the merchants' books; its notes and reviews under a
/// stand-in name), and every browser is logged out. Each step may run again, so a failure halfway is finished by a retry.
pub async fn close(state: &AppState, user_id: i64, confirm: &str, client_ip: &str) -> Result<(), AccountError> {
    let me = identity(state, user_id).await?;
    if me.user.role != Role::Shopper {
        return Err(AccountError::RunsSomething);
    }
    if me.has_password {
        crate::auth::service::confirm_password(state, user_id, confirm, client_ip, CONFIRM_FIELD).await?;
    } else {
        let typed = Account::parse(confirm).ok();
        match (typed, me.phone) {
            (Some(Account::Phone(typed)), Some(phone)) if typed == phone => {}
            _ => return Err(AccountError::NotConfirmed),
        }
    }
    crate::catalog::service::forget_favourites(state, user_id).await?;
    crate::catalog::service::forget_views(state, user_id).await?;
    crate::inbox::service::forget(state, user_id).await?;
    crate::social::service::forget_follows(state, user_id).await?;
    crate::auth::service::close(state, user_id).await?;
    crate::web::session::end_sessions(state, user_id, None).await?;
    Ok(())
}
