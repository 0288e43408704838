//! Catalog server functions: thin — session, call the service, map errors.
// A server function takes one argument per form field, and the macro also emits the client-side twin of
// each, which an attribute on the function does not reach.
#![allow(clippy::too_many_arguments)]

use leptos::prelude::*;

use super::model::{Page, Shop, ShopPage, ShopSummary, ShopType};
use crate::error::AppError;

/// Shop types for the home page.
#[server(endpoint = "catalog/types")]
pub async fn list_shop_types() -> Result<Vec<ShopType>, AppError> {
    let state = crate::edge::state()?;
    super::store::shop_types(&state.db).await.map_err(|e| AppError::internal(e).respond())
}

/// One page of a category, sorted (`score`, `price_asc`, `price_desc`, `popular`).
#[server(endpoint = "catalog/shops")]
pub async fn list_shops(type_id: i64, sort: String, page: u32) -> Result<(ShopType, Page<ShopSummary>), AppError> {
    let state = crate::edge::state()?;
    let sort = super::model::ShopSort::from_query(Some(&sort));
    let page = page.clamp(1, 10_000);
    super::service::category(&state, type_id, sort, page).await.map_err(|e| AppError::from(e).respond())
}

/// Shops whose name contains `q`.
#[server(endpoint = "catalog/search")]
pub async fn search_shops(q: String, page: u32) -> Result<Page<ShopSummary>, AppError> {
    let state = crate::edge::state()?;
    super::service::search(&state, &q, page.clamp(1, 10_000)).await.map_err(|e| AppError::from(e).respond())
}

/// One shop through the cache, nothing else (a GET, so HTTP caches and load generators can use it).
#[server(endpoint = "catalog/shop-cached", input = leptos::server_fn::codec::GetUrl)]
pub async fn get_shop(id: i64) -> Result<Shop, AppError> {
    let state = crate::edge::state()?;
    super::service::shop(&state, id).await.map(|s| (*s).clone()).map_err(|e| AppError::from(e).respond())
}

/// The shop page (records the visit).
#[server(endpoint = "catalog/shop")]
pub async fn get_shop_page(id: i64) -> Result<ShopPage, AppError> {
    let state = crate::edge::state()?;
    let user = crate::edge::current_user().await?;
    let visitor = crate::edge::visitor_id(user.as_ref()).await;
    super::service::shop_page(&state, id, user.as_ref(), &visitor).await.map_err(|e| AppError::from(e).respond())
}

/// The shop as its owner edits it (401/403/404 for anyone else).
#[server(endpoint = "catalog/shop-for-edit")]
pub async fn shop_for_edit(id: i64) -> Result<Shop, AppError> {
    let state = crate::edge::state()?;
    let user = crate::edge::current_user().await?;
    let run = async {
        super::service::authorize_owner(&state, user.as_ref(), id).await?;
        super::service::shop(&state, id).await.map(|s| (*s).clone())
    };
    run.await.map_err(|e| AppError::from(e).respond())
}

/// Saves the owner's edit.
#[server(endpoint = "catalog/update-shop")]
pub async fn update_shop(
    id: i64,
    name: String,
    address: String,
    longitude: String,
    latitude: String,
    avg_price: String,
    open_hours: String,
    images: String,
) -> Result<Shop, AppError> {
    let state = crate::edge::state()?;
    let user = crate::edge::current_user().await?;
    let run = async {
        // Authorise before validating, so a stranger learns nothing about the form's rules.
        super::service::authorize_owner(&state, user.as_ref(), id).await?;
        let edit =
            super::model::ShopEdit::parse(&name, &address, &longitude, &latitude, &avg_price, &open_hours, &images)
                .map_err(super::service::CatalogError::Invalid)?;
        super::service::edit_shop(&state, user.as_ref(), id, edit).await
    };
    run.await.map_err(|e| AppError::from(e).respond())
}

/// A merchant opens a new shop of type `type_id`; answers its id.
#[server(endpoint = "catalog/open-shop")]
pub async fn open_shop(
    type_id: i64,
    name: String,
    address: String,
    longitude: String,
    latitude: String,
    avg_price: String,
    open_hours: String,
    images: String,
) -> Result<i64, AppError> {
    let state = crate::edge::state()?;
    let user = crate::edge::current_user().await?;
    let run = async {
        let edit =
            super::model::ShopEdit::parse(&name, &address, &longitude, &latitude, &avg_price, &open_hours, &images)
                .map_err(super::service::CatalogError::Invalid)?;
        super::service::open_shop(&state, user.as_ref(), type_id, edit).await
    };
    run.await.map_err(|e| AppError::from(e).respond())
}

/// The owner removes a shop that has no orders or notes.
#[server(endpoint = "catalog/remove-shop")]
pub async fn remove_shop(id: i64) -> Result<(), AppError> {
    let state = crate::edge::state()?;
    let user = crate::edge::current_user().await?;
    super::service::remove_shop(&state, user.as_ref(), id).await.map_err(|e| AppError::from(e).respond())
}
