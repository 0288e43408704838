//! The HTTP edge of every server function: the instance's state, the request's session and client address,
//! and [`run`], the one preamble that hands them over and turns any error into the answer's status.

use std::net::SocketAddr;

use axum::extract::ConnectInfo;
use axum::http::request::Parts;
use leptos::prelude::{use_context, with_context};
use tower_sessions::Session;

use crate::platform::backend::{Backed, Outage};
use crate::platform::breaker;
use crate::shared::error::AppError;
use crate::web::state::AppState;

/// What a server function works with: the instance's state and the request around it.
pub struct Cx {
    /// The instance's shared state.
    pub state: AppState,
}

/// A server function's failure on its way out: the answer the user gets and, when a backing service let
/// the request down, which one — [`run`] feeds that to the service's circuit breaker. Every capability
/// error converts into it with `?` (as does an [`AppError`]), and so do the flows that span capabilities.
#[derive(Debug)]
pub struct Failure {
    answer: AppError,
    outage: Option<Outage>,
}

impl<E: Backed + Into<AppError>> From<E> for Failure {
    fn from(e: E) -> Self {
        let outage = e.outage();
        Self { answer: e.into(), outage }
    }
}

impl Failure {
    /// What the user is told.
    pub fn answer(&self) -> &AppError {
        &self.answer
    }
}

impl From<AppError> for Failure {
    fn from(answer: AppError) -> Self {
        Self { answer, outage: None }
    }
}

impl From<Failure> for AppError {
    fn from(f: Failure) -> Self {
        f.answer
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.answer.fmt(f)
    }
}

/// Runs a server function's body with its [`Cx`]; an error also sets the HTTP status and `Retry-After` of
/// the answer. The services the body used feed their circuit breakers: a failure for one that let it down,
/// a success for each other one it used.
pub async fn run<T, F, Fut>(body: F) -> Result<T, AppError>
where
    F: FnOnce(Cx) -> Fut,
    Fut: Future<Output = Result<T, Failure>>,
{
    let Some(state) = use_context::<AppState>() else {
        return Err(AppError::internal("AppState missing from context").respond());
    };
    run_outside(state, body).await.map_err(|Refusal { error, retry_after_secs }| {
        // `respond` sets the status and the wait a refusal carries itself; an outage's wait comes from
        // its breaker, which only the refusal knows.
        if let (AppError::Unavailable(_), Some(secs)) = (&error, retry_after_secs) {
            crate::shared::error::set_retry_after(secs);
        }
        error.respond()
    })
}

/// A request's failure as the edge answers it: the error (its status is [`AppError::status_code`]) and,
/// for a refusal the user waits out, when to try again.
#[derive(Debug)]
pub struct Refusal {
    /// What the user is told.
    pub error: AppError,
    /// The answer's `Retry-After`: the error's own wait, or for an outage the one its breaker suggests.
    pub retry_after_secs: Option<u64>,
}

/// [`run`] for a route of its own, outside any reactive owner (the grab's, `server/src/grab.rs`): the
/// state is given, and the status and `Retry-After` come back with the error for the route to answer.
pub async fn run_outside<T, F, Fut>(state: AppState, body: F) -> Result<T, Refusal>
where
    F: FnOnce(Cx) -> Fut,
    Fut: Future<Output = Result<T, Failure>>,
{
    let breakers = state.breakers.clone();
    let (result, mut seen) = breaker::observe(body(Cx { state })).await;
    if let Err(Failure { outage: Some(outage), .. }) = &result {
        match outage {
            Outage::Failed(service) => seen.failed(*service),
            Outage::Refused(open) => seen.refused(open),
        }
    }
    breakers.record(&seen);
    result.map_err(|Failure { answer, .. }| {
        let retry_after_secs = match &answer {
            AppError::TooManyRequests { retry_after_secs, .. } | AppError::Busy { retry_after_secs } => {
                Some(*retry_after_secs)
            }
            AppError::Unavailable(_) => {
                Some(seen.retry_after().unwrap_or(std::time::Duration::from_secs(1)).as_secs().max(1))
            }
            _ => None,
        };
        Refusal { error: answer, retry_after_secs }
    })
}

/// The budget key of a request that came through no socket (all such requests share one budget).
const UNKNOWN_NETWORK: &str = "unknown";

/// The client's address as per-address budgets count it (an IPv6 client's whole /64): the socket peer,
/// or — when the peer is one of `TRUSTED_PROXIES` — the right-most `X-Forwarded-For` hop that is not a
/// proxy of ours; "unknown" for a request that came through no socket.
pub fn client_network(state: &AppState, head: &Parts) -> String {
    let Some(ConnectInfo(peer)) = head.extensions.get::<ConnectInfo<SocketAddr>>() else {
        return UNKNOWN_NETWORK.to_string();
    };
    let forwarded = head.headers.get_all("x-forwarded-for").iter().filter_map(|v| v.to_str().ok());
    let client = state.config.trusted_proxies.client(peer.ip(), forwarded);
    crate::platform::client_addr::budget_network(client)
}

/// Reads from the request's head in context, borrowing it: `leptos_axum::extract` copies the whole head
/// (every header and extension) on each call, which a grab paid four times over.
fn from_head<T>(read: impl FnOnce(&Parts) -> Option<T>) -> Option<T> {
    with_context::<Parts, _>(read).flatten()
}

impl Cx {
    /// The request's session (the session layer must wrap the router).
    pub async fn session(&self) -> Result<Session, AppError> {
        from_head(|head| head.extensions.get::<Session>().cloned())
            .ok_or_else(|| AppError::internal("session layer missing"))
    }

    /// The logged-in user's id straight from the session, without loading the account (the grab's hot
    /// path; an order of an account that no longer exists is refused by the order writer).
    pub async fn user_id(&self) -> Result<Option<i64>, AppError> {
        let policy = crate::web::session::SessionPolicy::from_config(&self.state.config);
        crate::web::session::user_id(&self.session().await?, &policy).await.map_err(AppError::from)
    }

    /// The logged-in user's id, or 401.
    pub async fn require_user_id(&self) -> Result<i64, AppError> {
        self.user_id().await?.ok_or(AppError::LoginRequired)
    }

    /// Whether the logged-in user is an operator, as their session says (no account read).
    pub async fn is_staff(&self) -> Result<bool, AppError> {
        crate::web::session::is_staff(&self.session().await?).await.map_err(AppError::from)
    }

    /// Takes one token of `action` from `who`'s budget (`ip:…` or `u:…`), or answers 429 with the wait.
    pub fn spend(&self, action: crate::web::abuse::Action, who: &str) -> Result<(), AppError> {
        self.state.abuse.check(action, who).map_err(|wait| crate::web::abuse::too_many(action, wait))
    }

    /// [`Cx::spend`] for the client's address.
    pub async fn spend_per_address(&self, action: crate::web::abuse::Action) -> Result<(), AppError> {
        self.spend(action, &self.address_key().await)
    }

    /// The client's address as a budget key (`ip:…`), beside the accounts' `u:…`.
    pub async fn address_key(&self) -> String {
        format!("ip:{}", self.client_network().await)
    }

    /// The client's address as per-address budgets count it ([`client_network`]).
    pub async fn client_network(&self) -> String {
        from_head(|head| Some(client_network(&self.state, head))).unwrap_or_else(|| UNKNOWN_NETWORK.to_string())
    }

    /// The browser's own description of itself (`User-Agent`), or "" without one.
    pub async fn user_agent(&self) -> String {
        from_head(|head| head.headers.get(axum::http::header::USER_AGENT)?.to_str().ok().map(str::to_owned))
            .unwrap_or_default()
    }

    /// A stable id for unique-visitor counting: `u:{id}` when logged in, else the `hd_vid` cookie (set now
    /// if the browser has none).
    pub async fn visitor_id(&self, user_id: Option<i64>) -> String {
        if let Some(id) = user_id {
            return format!("u:{id}");
        }
        let id = match self.hex_cookie(VISITOR_COOKIE, 32).await {
            Some(id) => id,
            None => {
                let id = format!("{:032x}", rand::random::<u128>());
                self.set_cookie(VISITOR_COOKIE, &id, "/");
                id
            }
        };
        format!("a:{id}")
    }

    /// The request's cookie `name`, if it holds exactly `len` hex digits (anything else is not ours).
    pub async fn hex_cookie(&self, name: &str, len: usize) -> Option<String> {
        from_head(|head| {
            head.headers.get_all(axum::http::header::COOKIE).iter().filter_map(|v| v.to_str().ok()).find_map(|v| {
                v.split(';').filter_map(|kv| kv.trim().split_once('=')).find_map(|(k, v)| {
                    (k == name && v.len() == len && v.bytes().all(|b| b.is_ascii_hexdigit())).then(|| v.to_string())
                })
            })
        })
    }

    /// Sets a year-long cookie the page's scripts cannot read, sent back to `path` only (and only over
    /// HTTPS with `COOKIE_SECURE`, like the session's).
    pub fn set_cookie(&self, name: &str, value: &str, path: &str) {
        if let Some(opts) = use_context::<leptos_axum::ResponseOptions>() {
            let secure = if self.state.config.cookie_secure { "; Secure" } else { "" };
            let cookie = format!("{name}={value}; Path={path}; Max-Age=31536000; HttpOnly; SameSite=Lax{secure}");
            if let Ok(v) = axum::http::HeaderValue::from_str(&cookie) {
                opts.append_header(axum::http::header::SET_COOKIE, v);
            }
        }
    }
}

/// Sets the page's Content-Security-Policy: scripts only from us or inline with this response's nonce
/// (Leptos puts it on its hydration script), WebAssembly compiled, no plugins, no framing, forms and
/// requests to us only; images from us or https.
pub fn content_security_policy() {
    let (Some(nonce), Some(opts)) = (leptos::nonce::use_nonce(), use_context::<leptos_axum::ResponseOptions>()) else {
        return;
    };
    let policy = format!(
        "default-src 'self'; script-src 'self' 'nonce-{nonce}' 'wasm-unsafe-eval'; style-src 'self'; \
         img-src 'self' data: https:; connect-src 'self'; font-src 'self'; object-src 'none'; \
         base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    );
    if let Ok(v) = axum::http::HeaderValue::from_str(&policy) {
        opts.insert_header(axum::http::header::CONTENT_SECURITY_POLICY, v);
    }
}

/// Anonymous-visitor cookie used to count unique visitors without a login.
pub const VISITOR_COOKIE: &str = "hd_vid";
