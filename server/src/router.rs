//! The HTTP surface: Leptos pages and server functions, `/healthz`, `/metrics`, static files, sessions.

use axum::Router;
use axum::routing::get;
use leptos_axum::{LeptosRoutes, generate_route_list};
use tower_http::trace::TraceLayer;
use tower_sessions::cookie::SameSite;
use tower_sessions::{Expiry, SessionManagerLayer};

use app::session::RedisSessionStore;
use app::state::AppState;
use app::{App, shell};

/// Cookie that carries the session id.
pub const SESSION_COOKIE: &str = "haodian.sid";

/// Builds the full application router around `state`.
pub fn build(state: AppState) -> Router {
    let routes = generate_route_list(App);
    let sessions = session_layer(&state);
    Router::new()
        .route("/livez", get(|| async { "ok" }))
        .route("/healthz", get(crate::health::healthz))
        .route("/metrics", get(crate::metrics::metrics))
        .route("/api/v1/shops/{id}", get(app::catalog::rest::get_shop))
        .leptos_routes(&state, routes, {
            let options = state.leptos_options.clone();
            move || shell(options.clone())
        })
        .fallback(leptos_axum::file_and_error_handler::<AppState, _>(shell))
        .layer(sessions)
        .layer(TraceLayer::new_for_http())
        .with_state(state)
}

/// Redis-backed sessions: HttpOnly, SameSite=Lax, Secure when configured, sliding expiry.
pub fn session_layer(state: &AppState) -> SessionManagerLayer<RedisSessionStore> {
    let ttl = i64::try_from(state.config.session_ttl.as_secs()).unwrap_or(i64::MAX);
    SessionManagerLayer::new(RedisSessionStore::new(state.redis.clone(), state.keys.clone()))
        .with_name(SESSION_COOKIE)
        .with_http_only(true)
        .with_same_site(SameSite::Lax)
        .with_secure(state.config.cookie_secure)
        .with_expiry(Expiry::OnInactivity(time::Duration::seconds(ttl)))
}
