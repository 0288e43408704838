//! Account rules: validation, argon2id hashing off the async threads, login throttling.

use std::sync::OnceLock;
use std::time::Duration;

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString, rand_core::OsRng};
use argon2::{Algorithm, Argon2, Params, Version};

use super::model::{Account, CurrentUser, Nickname, Password, Role};
use super::store;
use crate::platform::backend::BackendError;
use crate::shared::error::AppError;
use crate::shared::i18n::{Locale, locale, td_string};
use crate::web::abuse::{Action, too_many};
use crate::web::state::AppState;

/// What can go wrong in the auth service; converted to [`AppError`] at the server-function edge.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// Input failed validation.
    #[error("invalid input: {0}")]
    Invalid(AppError),
    /// Unknown account or wrong password (deliberately indistinguishable).
    #[error("wrong credentials, {attempts_left} attempts left")]
    WrongCredentials { attempts_left: u32 },
    /// Many attempts on this account lately (from anywhere): this one must wait.
    #[error("account slowed down for {retry_after_secs} s")]
    Slowed { retry_after_secs: u64 },
    /// Too many failures for this account or address.
    #[error("locked for {retry_after_secs} s")]
    Locked { retry_after_secs: u64 },
    /// A backing service failed.
    #[error(transparent)]
    Backend(#[from] BackendError),
    /// The phone must wait before another code, or has had its codes for today.
    #[error("code refused for {retry_after_secs} s")]
    CodeTooSoon { retry_after_secs: u64, daily: bool },
    /// The code did not match; `attempts_left` more may be tried.
    #[error("wrong code, {attempts_left} attempts left")]
    WrongCode { attempts_left: u32 },
    /// No live code (never sent, expired after 5 minutes, or burned by wrong attempts).
    #[error("no live code")]
    NoCode,
    /// The text message could not be sent.
    #[error(transparent)]
    Sms(#[from] crate::platform::sms::SmsError),
    /// This client has created its share of accounts for now.
    #[error("throttled: {0}")]
    Throttled(AppError),
    /// Every password-hashing slot stayed busy (a flood of log-ins or registrations).
    #[error("password hashing busy")]
    Busy,
    /// Hashing failed.
    #[error("password hashing: {0}")]
    Hash(argon2::password_hash::Error),
    /// The current password typed into `field` is wrong; `attempts_left` more may be tried from here.
    #[error("wrong current password, {attempts_left} attempts left")]
    WrongPassword { field: &'static str, attempts_left: u32 },
    /// The account was closed meanwhile.
    #[error("account closed")]
    Closed,
    /// The hashing thread panicked or was cancelled.
    #[error("password hashing thread: {0}")]
    HashThread(#[from] tokio::task::JoinError),
}

crate::backend_errors!(AuthError);

impl From<AuthError> for AppError {
    fn from(e: AuthError) -> Self {
        let locale = locale();
        match e {
            AuthError::Invalid(app) => app,
            AuthError::WrongCredentials { attempts_left } => AppError::Unauthenticated(match attempts_left {
                0 => td_string!(locale, auth.err_wrong_credentials).to_string(),
                1 => td_string!(locale, auth.err_wrong_credentials_last).to_string(),
                n => td_string!(locale, auth.err_wrong_credentials_left, n = n),
            }),
            AuthError::Locked { retry_after_secs } => AppError::TooManyRequests {
                message: td_string!(locale, auth.err_locked, wait = human_wait(locale, retry_after_secs)),
                retry_after_secs,
            },
            AuthError::Slowed { retry_after_secs } => AppError::TooManyRequests {
                message: td_string!(locale, auth.err_slowed, wait = human_wait(locale, retry_after_secs)),
                retry_after_secs,
            },
            AuthError::Throttled(app) => app,
            AuthError::WrongPassword { field, attempts_left } => AppError::Validation {
                field: field.into(),
                message: match attempts_left {
                    0 => td_string!(locale, auth.err_wrong_password).into(),
                    1 => td_string!(locale, auth.err_wrong_password_last).into(),
                    n => td_string!(locale, auth.err_wrong_password_left, n = n),
                },
            },
            AuthError::Closed => AppError::LoginRequired,
            AuthError::CodeTooSoon { retry_after_secs, daily } => AppError::TooManyRequests {
                message: if daily {
                    td_string!(locale, auth.err_codes_used_up_today).into()
                } else {
                    td_string!(locale, auth.err_code_too_soon, wait = human_wait(locale, retry_after_secs))
                },
                retry_after_secs,
            },
            AuthError::WrongCode { attempts_left } => AppError::Validation {
                field: "code".into(),
                message: match attempts_left {
                    0 => td_string!(locale, auth.err_wrong_code_last).into(),
                    n => td_string!(locale, auth.err_wrong_code_left, n = n),
                },
            },
            AuthError::NoCode => {
                AppError::Validation { field: "code".into(), message: td_string!(locale, auth.err_code_expired).into() }
            }
            e @ AuthError::Sms(_) => {
                tracing::warn!(error = %e, "log-in code not sent");
                AppError::Unavailable(td_string!(locale, auth.err_sms_unavailable).into())
            }
            AuthError::Busy => AppError::Unavailable(td_string!(locale, auth.err_login_busy).into()),
            AuthError::Backend(e) => e.into(),
            other @ (AuthError::Hash(_) | AuthError::HashThread(_)) => AppError::internal(other),
        }
    }
}

/// A wait as a refusal words it in `locale`: "45 seconds", "1 minute", "15 minutes" (rounded up).
pub fn human_wait(locale: Locale, secs: u64) -> String {
    match secs {
        0..=59 => td_string!(locale, auth.wait_seconds, n = secs),
        60..=119 => td_string!(locale, auth.wait_one_minute).to_string(),
        _ => td_string!(locale, auth.wait_minutes, n = secs.div_ceil(60)),
    }
}

/// argon2id with the OWASP-recommended minimum: 19 MiB memory, 2 passes, 1 lane, 32-byte output.
fn argon2() -> Argon2<'static> {
    let params = Params::new(19 * 1024, 2, 1, Some(32)).expect("constant argon2 parameters are valid");
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// Hashes on the blocking pool: argon2 takes tens of milliseconds of CPU and must not stall the executor.
pub async fn hash_password(password: Password) -> Result<String, AuthError> {
    tokio::task::spawn_blocking(move || {
        let salt = SaltString::generate(&mut OsRng);
        argon2().hash_password(password.expose().as_bytes(), &salt).map(|h| h.to_string()).map_err(AuthError::Hash)
    })
    .await?
}

/// Verifies on the blocking pool; a malformed stored hash counts as a mismatch. `None` (unknown account)
/// verifies against the dummy hash — also on the blocking pool, where it is built the first time.
async fn verify_password(password: String, hash: Option<String>) -> Result<bool, AuthError> {
    tokio::task::spawn_blocking(move || {
        let hash = hash.as_deref().unwrap_or_else(|| dummy_hash());
        PasswordHash::new(hash).is_ok_and(|parsed| argon2().verify_password(password.as_bytes(), &parsed).is_ok())
    })
    .await
    .map_err(AuthError::from)
}

/// How long a hash waits for a slot before the request is turned away (503) rather than queued for ever.
const ARGON2_QUEUE_PATIENCE: Duration = Duration::from_secs(5);

/// One of the `ARGON2_MAX_CONCURRENT` hashing slots: a flood queues briefly, then is shed, instead of
/// allocating 19 MiB per request until memory runs out.
async fn argon2_slot(state: &AppState) -> Result<tokio::sync::OwnedSemaphorePermit, AuthError> {
    match tokio::time::timeout(ARGON2_QUEUE_PATIENCE, state.argon2_slots.clone().acquire_owned()).await {
        Ok(Ok(permit)) => Ok(permit),
        _ => Err(AuthError::Busy),
    }
}

/// A real hash of a random secret: unknown accounts are verified against it so they cost the same time
/// as known ones, and response timing does not reveal which phone numbers are registered.
fn dummy_hash() -> &'static str {
    static DUMMY: OnceLock<String> = OnceLock::new();
    DUMMY.get_or_init(|| {
        let salt = SaltString::generate(&mut OsRng);
        argon2().hash_password(salt.as_str().as_bytes(), &salt).map(|h| h.to_string()).unwrap_or_default()
    })
}

/// Registration form input, unparsed.
#[derive(Debug)]
pub struct Registration<'a> {
    /// Phone or e-mail.
    pub account: &'a str,
    /// Display name.
    pub nickname: &'a str,
    /// Password.
    pub password: &'a str,
    /// Password typed again.
    pub password_confirm: &'a str,
    /// Who asks (`ip:…`): a valid registration spends from this client's budget.
    pub client: &'a str,
}

/// A sign-up waiting for the code texted to its phone. It is kept in the session of the browser that
/// filled in the form — never under the phone number alone — so nobody can plant a password on someone
/// else's number: only that browser, given the code from that phone, turns it into an account.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct PendingSignUp {
    /// The phone the code went to.
    pub phone: String,
    /// Display name.
    pub nickname: String,
    /// PHC-format argon2id hash of the chosen password.
    pub password_hash: String,
}

/// Which text message a code goes out in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeText {
    /// A new number's sign-up code.
    SignUp,
    /// A log-in code asked for on the log-in page.
    LogIn,
    /// A sign-up for a number that has an account: a log-in code, and word of the account.
    Taken,
}

/// The words of a code's text message, in the language of the page that asked for it.
pub fn code_text(locale: Locale, kind: CodeText, code: &str) -> String {
    match kind {
        CodeText::SignUp => td_string!(locale, sms.sign_up_code, code = code),
        CodeText::LogIn => td_string!(locale, sms.log_in_code, code = code),
        CodeText::Taken => td_string!(locale, sms.taken_code, code = code),
    }
}

/// Starts a shopper account, which the code texted to its phone finishes ([`sign_in_with_code`]). A form
/// with a typo is refused as such and costs nothing; a valid one spends a token of the client's budget
/// before anything depends on whether the number has an account, and from then on the steps, the answer
/// and so the time taken are the same either way (a code issued, the password hashed, one text message):
/// only the phone learns the difference — a new number gets its sign-up code, a registered one a log-in
/// code and word that it already has an account.
pub async fn register(state: &AppState, form: Registration<'_>) -> Result<PendingSignUp, AuthError> {
    let phone = sign_up_phone(form.account)?;
    let nickname = Nickname::parse(form.nickname).map_err(AuthError::Invalid)?;
    let password = Password::parse(form.password).map_err(AuthError::Invalid)?;
    if form.password != form.password_confirm {
        return Err(AuthError::Invalid(AppError::invalid(
            "password_confirm",
            td_string!(locale(), auth.err_passwords_differ),
        )));
    }
    state
        .abuse
        .check(Action::Register, form.client)
        .map_err(|w| AuthError::Throttled(too_many(Action::Register, w)))?;
    let code = issue_code(state, &phone, None).await?;
    let slot = argon2_slot(state).await?;
    let password_hash = hash_password(password).await?;
    drop(slot);
    let registered = store::find_by_account(state.postgres()?, &Account::Phone(phone.clone())).await?.is_some();
    let text = code_text(locale(), if registered { CodeText::Taken } else { CodeText::SignUp }, &code);
    state.sms.send(&phone, &text).await?;
    Ok(PendingSignUp { phone, nickname: nickname.as_str().to_string(), password_hash })
}

/// The phone a sign-up goes to: accounts are confirmed by a texted code, and an e-mail address cannot
/// receive one.
fn sign_up_phone(input: &str) -> Result<String, AuthError> {
    match Account::parse(input).map_err(AuthError::Invalid)? {
        Account::Phone(p) => Ok(p),
        Account::Email(_) => Err(AuthError::Invalid(AppError::invalid(
            Account::FIELD,
            td_string!(locale(), auth.err_sign_up_with_phone),
        ))),
    }
}

/// The log-in gate's limits from the settings.
fn gate_limits(config: &crate::platform::config::Config) -> store::GateLimits {
    let per_pair = config.login_max_failures.max(1);
    store::GateLimits {
        per_pair,
        // An address may try several accounts (a shared office NAT), but not endlessly.
        per_address: per_pair.saturating_mul(4),
        window: config.login_lockout,
        free: per_pair,
        first_wait: Duration::from_secs(1),
        longest_wait: config.login_slowdown_max,
    }
}

/// Checks credentials behind the log-in gate: each attempt is checked and counted in one atomic step,
/// so parallel guesses cannot exceed the limits. Failures lock *this address* out of the account (and,
/// many accounts later, out of logging in); elsewhere the account is only slowed down, by a wait that
/// doubles per attempt up to `LOGIN_SLOWDOWN_MAX_SECS` — a stranger cannot lock its owner out.
pub async fn login(state: &AppState, account: &str, password: &str, client_ip: &str) -> Result<CurrentUser, AuthError> {
    let account = Account::parse(account).map_err(AuthError::Invalid)?;
    if password.is_empty() {
        return Err(AuthError::Invalid(AppError::invalid(
            Password::FIELD,
            td_string!(locale(), auth.err_password_empty),
        )));
    }
    let gate = Gate::pass(state, account.as_str(), client_ip).await?;
    let row = store::find_by_account(state.postgres()?, &account).await?;
    let hash = row.as_ref().map(|r| r.password_hash.clone());
    let slot = argon2_slot(state).await?;
    let matches = verify_password(password.to_string(), hash).await? && row.is_some();
    drop(slot);
    gate.settle(state, matches).await?;
    row.map(|r| r.to_current()).ok_or(AuthError::WrongCredentials { attempts_left: 0 })
}

/// One password attempt let through the log-in gate, waiting to be settled by its outcome.
struct Gate<'a> {
    account: &'a str,
    client_ip: &'a str,
    limits: store::GateLimits,
    on_account: u32,
    from_address: u32,
}

impl<'a> Gate<'a> {
    /// Lets one attempt on `account` from `client_ip` through, or says how long to wait.
    async fn pass(state: &AppState, account: &'a str, client_ip: &'a str) -> Result<Self, AuthError> {
        let limits = gate_limits(&state.config);
        match store::pass_gate(&state.redis, &state.keys, account, client_ip, &limits).await? {
            store::Gate::Open { on_account, from_address } => {
                Ok(Self { account, client_ip, limits, on_account, from_address })
            }
            store::Gate::LockedOut(wait) => Err(AuthError::Locked { retry_after_secs: secs(wait) }),
            store::Gate::Slowed(wait) => Err(AuthError::Slowed { retry_after_secs: secs(wait) }),
        }
    }

    /// A right password starts the account's counters over; a wrong one answers how many tries are left,
    /// or that this address is now locked out.
    async fn settle(self, state: &AppState, matched: bool) -> Result<(), AuthError> {
        let l = &self.limits;
        if matched {
            store::gate_success(&state.redis, &state.keys, self.account, self.client_ip, l).await?;
            Ok(())
        } else if self.on_account >= l.per_pair || self.from_address >= l.per_address {
            Err(AuthError::Locked { retry_after_secs: l.window.as_secs() })
        } else {
            Err(AuthError::WrongCredentials { attempts_left: l.per_pair - self.on_account })
        }
    }
}

/// What the settings page needs to know of an account besides its public face.
#[derive(Debug)]
pub struct Identity {
    /// The account as pages see it.
    pub user: CurrentUser,
    /// The picture it chose.
    pub avatar: Option<String>,
    /// Whether a password logs it in (else only a texted code does).
    pub has_password: bool,
    /// Its mobile number, if it has one (what a code-only account types to confirm closing).
    pub phone: Option<String>,
}

/// `user_id`'s account, or `None` once closed.
pub async fn identity(state: &AppState, user_id: i64) -> Result<Option<Identity>, AuthError> {
    let db = state.postgres()?;
    let Some(row) = store::find_by_id(db, user_id).await? else { return Ok(None) };
    let avatar = store::avatar(db, user_id).await?;
    Ok(Some(Identity { user: row.to_current(), avatar, has_password: row.has_password(), phone: row.phone }))
}

/// Sets the name and picture others see (the picture already checked to be the person's own upload).
pub async fn set_profile(
    state: &AppState,
    user_id: i64,
    nickname: &Nickname,
    avatar: Option<&str>,
) -> Result<CurrentUser, AuthError> {
    store::set_profile(state.postgres()?, user_id, nickname.as_str(), avatar)
        .await?
        .map(|row| row.to_current())
        .ok_or(AuthError::Closed)
}

/// Checks that `password` is `user_id`'s current one, through the same gate as a log-in (a borrowed
/// session guesses no faster than a stranger at the log-in page). A wrong one is an error on `field`.
pub async fn confirm_password(
    state: &AppState,
    user_id: i64,
    password: &str,
    client_ip: &str,
    field: &'static str,
) -> Result<(), AuthError> {
    if password.is_empty() {
        return Err(AuthError::Invalid(AppError::invalid(
            field,
            td_string!(locale(), auth.err_current_password_empty),
        )));
    }
    let row = store::find_by_id(state.postgres()?, user_id).await?.ok_or(AuthError::Closed)?;
    let account = row.account();
    let gate = Gate::pass(state, account.as_str(), client_ip).await?;
    let slot = argon2_slot(state).await?;
    let matches = verify_password(password.to_string(), Some(row.password_hash)).await?;
    drop(slot);
    gate.settle(state, matches).await.map_err(|e| match e {
        AuthError::WrongCredentials { attempts_left } => AuthError::WrongPassword { field, attempts_left },
        other => other,
    })
}

/// Gives `user_id` a new password (hashed off the async threads).
pub async fn set_password(state: &AppState, user_id: i64, password: Password) -> Result<(), AuthError> {
    let slot = argon2_slot(state).await?;
    let hash = hash_password(password).await?;
    drop(slot);
    if store::set_password(state.postgres()?, user_id, &hash).await? { Ok(()) } else { Err(AuthError::Closed) }
}

/// The name a closed account's notes and reviews go on showing.
pub const CLOSED_NAME: &str = "已注销用户";

/// Closes `user_id`'s account: its phone, e-mail, password and picture are gone and its name becomes
/// [`CLOSED_NAME`]; it can no longer log in, and its number may start a new account.
pub async fn close(state: &AppState, user_id: i64) -> Result<(), AuthError> {
    Ok(store::close(state.postgres()?, user_id, CLOSED_NAME).await?)
}

/// Whole seconds, at least one (what a person and `Retry-After` read).
fn secs(d: Duration) -> u64 {
    d.as_millis().div_ceil(1000).max(1) as u64
}

/// Loads the user a session points at; `None` if the account was deleted meanwhile.
pub async fn user_by_id(state: &AppState, id: i64) -> Result<Option<CurrentUser>, AuthError> {
    Ok(store::find_by_id(state.postgres()?, id).await?.map(|r| r.to_current()))
}

/// Accounts made on each business day from `since_ms` on (days without any absent), for the operators.
pub async fn accounts_per_day(state: &AppState, since_ms: i64) -> Result<Vec<(String, i64)>, AuthError> {
    Ok(store::accounts_per_day(state.postgres()?, since_ms).await?)
}

/// How long a log-in code works.
const CODE_VALID: Duration = Duration::from_secs(5 * 60);
/// Codes one phone may receive a day.
const CODES_PER_DAY: u32 = 10;
/// Wrong tries that burn a code.
const CODE_ATTEMPTS: u32 = 5;

/// The phone a code goes to (an e-mail address cannot receive one).
fn phone_of(input: &str) -> Result<String, AuthError> {
    match Account::parse(input).map_err(AuthError::Invalid)? {
        Account::Phone(p) => Ok(p),
        Account::Email(_) => {
            Err(AuthError::Invalid(AppError::invalid(Account::FIELD, td_string!(locale(), auth.err_code_needs_phone))))
        }
    }
}

/// Devices remembered per account (the newest; an older one falls back to the phone's shared allowance).
const DEVICES_KEPT: i64 = 10;

/// A browser's known-device token as the database keeps it (a hash: a leaked table logs nobody in and
/// spends nobody's allowance).
fn device_hash(token: &str) -> Vec<u8> {
    use sha2::Digest;
    sha2::Sha256::digest(token.as_bytes()).to_vec()
}

/// Remembers the browser that just logged in to `user_id`: answers the token its cookie carries from now
/// on, unless `token` (what it carries now) already names this account.
pub async fn remember_device(state: &AppState, user_id: i64, token: Option<&str>) -> Result<Option<String>, AuthError> {
    let db = state.postgres()?;
    if let Some(token) = token
        && store::device_of(db, &device_hash(token), user_id).await?
    {
        return Ok(None);
    }
    let token = hex::encode(rand::random::<[u8; 32]>());
    store::remember_device(db, user_id, &device_hash(&token), DEVICES_KEPT).await?;
    Ok(Some(token))
}

/// Texts a 6-digit log-in code to `phone` (valid 5 minutes; one per `LOGIN_CODE_COOLDOWN_SECS`, 10 a
/// day per phone, each request from `client`'s budget). Asked for from a browser that has logged in to
/// this phone's account before (`device`, its known-device token), the day's 10 are that browser's own:
/// a stranger who spends the phone's allowance does not lock its owner out.
pub async fn send_code(state: &AppState, phone: &str, client: &str, device: Option<&str>) -> Result<(), AuthError> {
    let phone = phone_of(phone)?;
    state.abuse.check(Action::Code, client).map_err(|w| AuthError::Throttled(too_many(Action::Code, w)))?;
    let own_allowance = match device {
        Some(token) => {
            let hash = device_hash(token);
            (store::device_phone(state.postgres()?, &hash).await?.as_deref() == Some(phone.as_str()))
                .then(|| hex::encode(&hash[..8]))
        }
        None => None,
    };
    let code = issue_code(state, &phone, own_allowance.as_deref()).await?;
    state.sms.send(&phone, &code_text(locale(), CodeText::LogIn, &code)).await?;
    Ok(())
}

/// A fresh 6-digit code for `phone`, stored (replacing any earlier one) if the phone may have one now,
/// counted against the day's allowance of `device` (a known device's) or else the phone's.
async fn issue_code(state: &AppState, phone: &str, device: Option<&str>) -> Result<String, AuthError> {
    let code = format!("{:06}", rand::random::<u32>() % 1_000_000);
    let issued = store::issue_code(
        &state.redis,
        &state.keys.code_send_script(phone, device),
        &code,
        CODE_VALID,
        state.config.login_code_cooldown,
        CODES_PER_DAY,
    )
    .await?;
    match issued {
        store::CodeIssue::Issued => Ok(code),
        store::CodeIssue::TooSoon(wait) => Err(AuthError::CodeTooSoon { retry_after_secs: secs(wait), daily: false }),
        store::CodeIssue::DailyLimit(wait) => Err(AuthError::CodeTooSoon { retry_after_secs: secs(wait), daily: true }),
    }
}

/// Logs in with the code texted to `phone`: 5 wrong tries burn it, a right one is used up; a phone
/// with no account yet gets one (a shopper; it can set no password, so it logs in by code).
pub async fn login_with_code(state: &AppState, phone: &str, code: &str) -> Result<CurrentUser, AuthError> {
    sign_in_with_code(state, phone, code, None).await
}

/// [`login_with_code`], finishing this browser's `sign_up` if it was for this phone: a new account takes
/// its name and password. An account the phone already has is logged in unchanged.
pub async fn sign_in_with_code(
    state: &AppState,
    phone: &str,
    code: &str,
    sign_up: Option<&PendingSignUp>,
) -> Result<CurrentUser, AuthError> {
    let phone = phone_of(phone)?;
    let code = code.trim();
    if code.len() != 6 || !code.bytes().all(|b| b.is_ascii_digit()) {
        return Err(AuthError::Invalid(AppError::invalid("code", td_string!(locale(), auth.err_code_format))));
    }
    let Some((expected, used)) = store::take_code_attempt(&state.redis, &state.keys, &phone, CODE_ATTEMPTS).await?
    else {
        return Err(AuthError::NoCode);
    };
    if !constant_time_eq(expected.as_bytes(), code.as_bytes()) {
        if used >= CODE_ATTEMPTS {
            store::burn_code(&state.redis, &state.keys, &phone).await?;
        }
        return Err(AuthError::WrongCode { attempts_left: CODE_ATTEMPTS.saturating_sub(used) });
    }
    store::burn_code(&state.redis, &state.keys, &phone).await?;
    let account = Account::Phone(phone.clone());
    if let Some(row) = store::find_by_account(state.postgres()?, &account).await? {
        return Ok(row.to_current());
    }
    let (nickname, hash) = match sign_up.filter(|s| s.phone == phone) {
        Some(s) => (s.nickname.clone(), s.password_hash.clone()),
        // "!" is no argon2 hash: no password matches it, so this account logs in by code until it sets one.
        None => (format!("用户{}", &phone[phone.len() - 4..]), "!".to_string()),
    };
    match store::insert_user(state.postgres()?, &account, &nickname, &hash, Role::Shopper).await? {
        Some(row) => Ok(row.to_current()),
        // Created by a parallel first login a moment ago.
        None => store::find_by_account(state.postgres()?, &account)
            .await?
            .map(|row| row.to_current())
            .ok_or(AuthError::NoCode),
    }
}

/// Compares without an early exit, so the time taken says nothing about how much of a guess was right.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The local outbox, when `DEV_OUTBOX` is on; `None` otherwise (the page then does not exist).
pub async fn dev_outbox(state: &AppState) -> Result<Option<Vec<crate::auth::model::SentSms>>, AuthError> {
    if !state.config.dev_outbox {
        return Ok(None);
    }
    let sent = crate::platform::sms::outbox(&state.redis, &state.keys).await?;
    Ok(Some(
        sent.into_iter()
            .map(|m| crate::auth::model::SentSms { phone: m.phone, text: m.text, at_ms: m.at_ms })
            .collect(),
    ))
}
