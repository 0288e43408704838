//! `GET /orders/{id}/code.svg`: a paid order's redemption code as a QR code, for its buyer alone. "My
//! orders" shows it as an image, so the list's answer carries no drawings and a phone fetches only the
//! codes it scrolls to; the code never changes, so the browser keeps it.

use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use tower_sessions::Session;

use crate::shared::error::AppError;
use crate::web::session::{SessionPolicy, user_id};
use crate::web::state::AppState;

/// The handler: 401 without a login, 404 for an order that is not the caller's or has no code to honour.
pub async fn code_svg(State(state): State<AppState>, session: Session, Path(order_id): Path<i64>) -> Response {
    let policy = SessionPolicy::from_config(&state.config);
    let drawn = match user_id(&session, &policy).await {
        Ok(Some(user)) => super::service::code_qr(&state, user, order_id).await.map_err(AppError::from),
        Ok(None) => Err(AppError::LoginRequired),
        Err(e) => Err(AppError::from(e)),
    };
    match drawn {
        Ok(svg) => (
            [
                (header::CONTENT_TYPE, "image/svg+xml"),
                // The buyer's own, and it never changes while it can be shown.
                (header::CACHE_CONTROL, "private, max-age=86400"),
            ],
            svg,
        )
            .into_response(),
        Err(e) => e.into_response(),
    }
}
