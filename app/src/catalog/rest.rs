//! Plain JSON routes for outside clients (mobile apps, load generators): no Leptos machinery per call.

use axum::Json;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};

use crate::shared::error::AppError;
use crate::web::state::AppState;

/// `GET /api/v1/shops/{id}`: the shop through the three-level cache; 404 with an `AppError` body if missing.
pub async fn get_shop(State(state): State<AppState>, Path(id): Path<i64>) -> Response {
    match super::service::shop(&state, id).await {
        Ok(shop) => Json(&*shop).into_response(),
        Err(e) => AppError::from(e).into_response(),
    }
}
