//! Catalog server functions.

use leptos::prelude::*;

use super::model::ShopType;
use crate::error::AppError;

/// Shop types for the home page.
#[server(endpoint = "catalog/types")]
pub async fn list_shop_types() -> Result<Vec<ShopType>, AppError> {
    let state = crate::edge::state()?;
    super::store::shop_types(&state.db).await.map_err(|e| AppError::internal(e).respond())
}
