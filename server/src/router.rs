//! The HTTP surfaces: the public one (Leptos pages and server functions, static files, sessions, `/livez`)
//! and the operators' one on `ADMIN_ADDR` (`/healthz`, `/metrics`), which binds to loopback by default.

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use axum::routing::get;
use leptos_axum::{LeptosRoutes, generate_route_list_with_exclusions};
use tower_http::trace::TraceLayer;
use tower_sessions::cookie::SameSite;
use tower_sessions::{Expiry, SessionManagerLayer};

use app::web::session::DurableSessionStore;
use app::web::state::AppState;
use app::{App, shell};

/// Cookie that carries the session id.
pub const SESSION_COOKIE: &str = "haodian.sid";

/// Builds the full application router around `state`.
pub fn build(state: AppState) -> Router {
    // Server functions are routed by `server_fns`, so leptos_axum is told to leave their paths alone.
    let routes = generate_route_list_with_exclusions(App, Some(crate::server_fns::paths()));
    // The grab's own route answers a settled shopper's grab ahead of the session layer (server/src/grab.rs)
    // and hands every other call on to the grab's server function behind it.
    let grab_whole_way =
        with_sessions(crate::server_fns::routes(Router::new(), |path| path == crate::grab::PATH), &state);
    let grab = crate::grab::GrabRoute::new(state.clone(), grab_whole_way.with_state(state.clone()));
    let site = crate::server_fns::routes(Router::new(), |path| path != crate::grab::PATH)
        .route("/livez", get(|| async { "ok" }))
        .route("/lang/{tag}", get(app::web::language::switch))
        .route("/api/v1/shops/{id}", get(app::catalog::rest::get_shop))
        .route("/merchant/shops/{id}/orders.csv", get(app::merchant::export::orders_csv))
        .route("/orders/{id}/code.svg", get(app::orders::qr::code_svg))
        .route("/api/v1/stock", get(app::seckill::live::stock_events))
        .route("/api/v1/inbox/events", get(app::inbox::live::unread_events))
        .route(
            "/api/v1/uploads",
            axum::routing::post(app::social::upload::upload).layer(axum::extract::DefaultBodyLimit::max(
                app::social::upload::MAX_FILES * app::social::upload::MAX_IMAGE_BYTES + 64 * 1024,
            )),
        )
        .nest_service(
            "/uploads",
            tower::ServiceBuilder::new()
                .layer(axum::middleware::from_fn(crate::guard::inert_uploads))
                .layer(static_compression())
                .service(tower_http::services::ServeDir::new(&state.config.upload_dir)),
        )
        .leptos_routes(&state, routes, {
            let options = state.leptos_options.clone();
            move || shell(options.clone())
        })
        // Static files (the wasm bundle, its JS, the CSS, pictures) go out compressed.
        .fallback(axum::handler::Handler::layer(
            leptos_axum::file_and_error_handler::<AppState, _>(shell),
            static_compression(),
        ));
    with_sessions(site, &state)
        // Added after the session layer, so it is the one route without it.
        .route(crate::grab::PATH, axum::routing::post(crate::grab::grab).with_state(grab))
        // Every edge layer in one: `Router::layer` boxes the routes anew at each call, and a request cloned
        // its route's whole stack of boxes at every `from_fn` layer it passed (75 allocations a request, a
        // `/livez` included). Outermost first.
        .layer(
            tower::ServiceBuilder::new()
                // Outermost, so a shed request's 503 is worded in its language too.
                .layer(axum::middleware::from_fn(app::web::language::speak_the_request_s_language))
                // Bounds what one instance takes on: at most `HTTP_MAX_IN_FLIGHT` requests at once (the rest
                // are answered 503 with `Retry-After` at once, not queued behind the others), each answered
                // within `HTTP_TIMEOUT_SECS` (503 past it). One bound for the whole site: the layer's
                // semaphore is shared by every copy of it.
                .layer(axum::error_handling::HandleErrorLayer::new(|e: tower::BoxError| async move { overloaded(&e) }))
                .layer(tower::load_shed::LoadShedLayer::new())
                .layer(tower::limit::GlobalConcurrencyLimitLayer::new(state.config.http_max_in_flight))
                .layer(tower::timeout::TimeoutLayer::new(state.config.http_timeout))
                .layer(TraceLayer::new_for_http())
                .layer(axum::middleware::from_fn_with_state(state.clone(), crate::metrics::time_requests))
                .layer(axum::middleware::from_fn(crate::guard::hardening_headers))
                .layer(axum::middleware::from_fn(crate::guard::refuse_cross_site)),
        )
        .with_state(state)
}

/// `router`'s routes (those it has so far) behind the session layer, and under it the status of an error
/// the framework raised.
fn with_sessions(router: Router<AppState>, state: &AppState) -> Router<AppState> {
    router.layer(
        tower::ServiceBuilder::new().layer(axum::middleware::from_fn(api_error_status)).layer(session_layer(state)),
    )
}

/// The answer to a request this instance shed (`HTTP_MAX_IN_FLIGHT` reached) or cut off
/// (`HTTP_TIMEOUT_SECS` passed): a 503 with `Retry-After` in the app's own error shape, which the pages
/// show and people act on, like every other "try again".
/// (No extractor: `HandleErrorLayer` runs its extractors on every request, shed or not.)
fn overloaded(e: &tower::BoxError) -> axum::response::Response {
    use axum::response::IntoResponse;
    let locale = app::shared::i18n::locale();
    let timed_out = e.is::<tower::timeout::error::Elapsed>();
    let body = axum::Json(app::shared::error::AppError::overloaded(locale, timed_out));
    (StatusCode::SERVICE_UNAVAILABLE, [(axum::http::header::RETRY_AFTER, "1")], body).into_response()
}

/// Brotli or gzip, as the browser accepts, for static files: the hydrate bundle shrinks about fourfold.
/// Quality 5 of either costs a few ms per MB, so a cold visitor is not kept waiting for the compressor.
/// Pages and server functions are left alone (a streamed page must not wait in a compressor's buffer).
fn static_compression() -> tower_http::compression::CompressionLayer {
    tower_http::compression::CompressionLayer::new()
        .br(true)
        .gzip(true)
        .quality(tower_http::compression::CompressionLevel::Precise(5))
}

/// The operators' surface: health with each dependency's error, and the metrics (a scrape runs a sale
/// audit): neither belongs on the public port.
pub fn admin(state: AppState) -> Router {
    Router::new()
        .route("/healthz", get(crate::health::healthz))
        .route("/metrics", get(crate::metrics::metrics))
        .with_state(state)
}

/// Sessions read from Redis with their record in Postgres: HttpOnly, SameSite=Lax, Secure when configured,
/// sliding expiry.
pub fn session_layer(state: &AppState) -> SessionManagerLayer<DurableSessionStore> {
    let ttl = i64::try_from(state.config.session_ttl.as_secs()).unwrap_or(i64::MAX);
    SessionManagerLayer::new(app::web::session::durable(state))
        .with_name(SESSION_COOKIE)
        .with_http_only(true)
        .with_same_site(SameSite::Lax)
        .with_secure(state.config.cookie_secure)
        .with_expiry(Expiry::OnInactivity(time::Duration::seconds(ttl)))
}

/// Gives a server-function error its own HTTP status. Errors raised inside a function set it themselves
/// (`AppError::respond`); this covers those the framework raises before the function runs (arguments
/// that do not parse), which it would otherwise answer with 500 although the client is at fault — and
/// gives a 429 from a plain handler (uploads) the `Retry-After` its JSON carries.
async fn api_error_status(req: Request, next: Next) -> Response {
    let api = req.uri().path().starts_with("/api/");
    let resp = next.run(req).await;
    let status = resp.status();
    let throttled = status == StatusCode::TOO_MANY_REQUESTS && !resp.headers().contains_key(header::RETRY_AFTER);
    if !api || (status != StatusCode::INTERNAL_SERVER_ERROR && !throttled) {
        return resp;
    }
    let (mut parts, body) = resp.into_parts();
    let bytes = match axum::body::to_bytes(body, 64 * 1024).await {
        Ok(b) => b,
        Err(_) => return Response::from_parts(parts, Body::empty()),
    };
    match serde_json::from_slice::<app::shared::error::AppError>(&bytes) {
        Ok(app::shared::error::AppError::TooManyRequests { retry_after_secs, .. }) => {
            parts.status = StatusCode::TOO_MANY_REQUESTS;
            parts.headers.insert(header::RETRY_AFTER, retry_after_secs.into());
        }
        Ok(err) if status == StatusCode::INTERNAL_SERVER_ERROR => {
            parts.status = StatusCode::from_u16(err.status_code()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        }
        _ => {}
    }
    Response::from_parts(parts, Body::from(bytes))
}
