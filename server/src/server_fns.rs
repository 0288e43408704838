//! Server functions, each on its own route with a leaner per-request setup than leptos_axum's generic
//! handler, which looked the function up by a freshly allocated path and boxed it anew for each call, and
//! copied the whole request head (headers and every extension) into context: here each route holds its
//! function, the head is moved into context, and the function's codecs get only what they read. What the
//! functions see is the same: `Parts`, `ResponseOptions` and the state in context, and a plain form post
//! sent back to its page.

use std::sync::{Arc, Mutex, PoisonError};

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodFilter, on};
use leptos::prelude::{Owner, provide_context};
use leptos::reactive::computed::ScopedFuture;
use leptos::server_fn::middleware::BoxedService;
use leptos_axum::ResponseOptions;

use app::shared::error::AppError;
use app::web::state::AppState;

/// Every registered server function's path, to keep leptos_axum from routing them itself.
pub fn paths() -> Vec<String> {
    leptos::server_fn::axum::server_fn_paths().map(|(path, _)| path.to_string()).collect()
}

/// `router` with a route for each registered server function whose path `take` picks.
pub fn routes(mut router: Router<AppState>, take: impl Fn(&str) -> bool) -> Router<AppState> {
    for (path, method) in leptos::server_fn::axum::server_fn_paths().filter(|(path, _)| take(path)) {
        let Ok(filter) = MethodFilter::try_from(method.clone()) else {
            tracing::error!(%path, %method, "server function with a method axum cannot route: not served");
            continue;
        };
        let Some(service) = leptos::server_fn::axum::get_server_fn_service(path, method) else { continue };
        // Built once here: server_fn's own lookup allocates the path, hashes it and boxes the function anew
        // on every call. `run` only starts the call (the future it returns owns the request), so the lock is
        // held for nanoseconds.
        let service = Arc::new(Mutex::new(service));
        let gated = GATED.contains(&path);
        router = router.route(
            path,
            on(filter, move |State(state): State<AppState>, req: Request| dispatch(state, service.clone(), gated, req)),
        );
    }
    router
}

/// One server function's service, shared by the requests to its route.
type Shared = Arc<Mutex<BoxedService<Request, Response>>>;

/// The functions a flash sale's burst calls (the grab and the puzzle's answer), which pass the instance's
/// grab gate (`GRAB_ADMIT_PER_SEC`) before anything else: a shed call costs the check and a small answer —
/// its body is not read, its arguments not decoded, no reactive owner is made for it.
const GATED: [&str; 2] = [
    <app::seckill::api::GrabCoupon as leptos::server_fn::ServerFn>::PATH,
    <app::seckill::api::SolvePuzzle as leptos::server_fn::ServerFn>::PATH,
];

/// Marks a gated call the grab gate has already let through (the grab's own route, which read its session
/// before handing it on), so that it is not counted against the gate twice.
#[derive(Debug, Clone, Copy)]
pub struct Admitted;

/// Runs `service` on `req` inside a fresh reactive owner holding the request's context; a `gated` call past
/// the grab gate's rate is answered 429 with `Retry-After` instead.
async fn dispatch(state: AppState, service: Shared, gated: bool, req: Request) -> Response {
    // Shed with the status the function's own refusal had (a 429 is not turned into a redirect).
    if gated
        && req.extensions().get::<Admitted>().is_none()
        && let Err(wait) = state.grab_gate.admit()
    {
        return shed(wait);
    }
    let (parts, body) = req.into_parts();
    // A form posted without JavaScript goes back to the page it came from, as leptos_axum does.
    let back_to = accepts_html(&parts.headers).then(|| parts.headers.get(header::REFERER).cloned()).flatten();
    let inner = match codec_request(&parts, body).await {
        Ok(inner) => inner,
        Err(refusal) => return refusal,
    };
    let owner = Owner::new();
    let options = ResponseOptions::default();
    owner.with(|| {
        provide_context(parts);
        provide_context(options.clone());
        provide_context(state);
    });
    let call = service.lock().unwrap_or_else(PoisonError::into_inner).run(inner);
    let mut res = ScopedFuture { owner, observer: None, fut: call }.await;
    if let Some(referer) = back_to
        && !res.headers().contains_key(header::LOCATION)
    {
        *res.status_mut() = StatusCode::FOUND;
        res.headers_mut().insert(header::LOCATION, referer);
    }
    let set = std::mem::take(&mut *options.0.write().unwrap_or_else(PoisonError::into_inner));
    if let Some(status) = set.status {
        *res.status_mut() = status;
    }
    res.headers_mut().extend(set.headers);
    res
}

/// The answer to a call the grab gate turned away: 429 with `Retry-After`, in the app's error shape.
pub fn shed(wait: std::time::Duration) -> Response {
    let retry_after_secs = wait.as_secs().max(1);
    let mut res = AppError::Busy { retry_after_secs }.into_response();
    res.headers_mut().insert(header::RETRY_AFTER, retry_after_secs.into());
    res
}

/// The most a server function's arguments may take (axum's default body limit, which applied before):
/// the largest form, a note, is a few kB; pictures go to `/api/v1/uploads`.
pub const FORM_LIMIT: usize = 2 * 1024 * 1024;

/// The request the function's codecs decode: method, URI (a GET's arguments), the headers they read and
/// the body, read here under [`FORM_LIMIT`] — past it the answer is 413 with the reason, where the codec,
/// reading it itself, would report a garbled request (502). The full request head goes to context for
/// `leptos_axum::extract`, moved rather than copied. No extensions: no server function is a websocket
/// (which would need the upgrade extension).
async fn codec_request(parts: &axum::http::request::Parts, body: Body) -> Result<Request, Response> {
    let bytes = read_form(&parts.headers, body).await?;
    let mut req = Request::new(Body::from(bytes));
    *req.method_mut() = parts.method.clone();
    *req.uri_mut() = parts.uri.clone();
    for name in [header::CONTENT_TYPE, header::ACCEPT, header::REFERER] {
        if let Some(value) = parts.headers.get(&name) {
            req.headers_mut().insert(name, value.clone());
        }
    }
    Ok(req)
}

/// A server function's body, read under [`FORM_LIMIT`]; past it the answer is 413 with the reason, in the
/// language of the request's `headers`.
pub async fn read_form(headers: &HeaderMap, body: Body) -> Result<axum::body::Bytes, Response> {
    match axum::body::to_bytes(body, FORM_LIMIT).await {
        Ok(bytes) => Ok(bytes),
        Err(e) if over_limit(&e) => {
            let limit = FORM_LIMIT / (1024 * 1024);
            let locale = app::shared::i18n::from_headers(headers);
            Err(AppError::form_too_large(locale, limit).into_response())
        }
        // The client stopped sending half-way: it will not read an answer either.
        Err(e) => Err(AppError::Transport(e.to_string()).into_response()),
    }
}

/// Whether reading a body failed on the size limit (anywhere in the error's chain of causes).
fn over_limit(e: &(dyn std::error::Error + 'static)) -> bool {
    std::iter::successors(Some(e), |e| e.source()).any(|e| e.is::<http_body_util::LengthLimitError>())
}

/// Whether the request is a form posted without JavaScript (the browser asks for a page back).
pub fn accepts_html(headers: &HeaderMap) -> bool {
    headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()).is_some_and(|v| v.contains("text/html"))
}
