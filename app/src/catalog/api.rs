//! Catalog server functions: thin — the edge's preamble, one service call.

use leptos::prelude::*;

use super::model::{Page, Shop, ShopSummary, ShopType};
use crate::shared::error::AppError;

/// Shop types for the home page.
#[server(endpoint = "catalog/types")]
pub async fn list_shop_types() -> Result<Vec<ShopType>, AppError> {
    crate::web::edge::run(|cx| async move { Ok(super::service::shop_types(&cx.state).await?) }).await
}

/// One page of a category, sorted (`score`, `price_asc`, `price_desc`, `popular`).
#[server(endpoint = "catalog/shops")]
pub async fn list_shops(type_id: i64, sort: String, page: u32) -> Result<(ShopType, Page<ShopSummary>), AppError> {
    crate::web::edge::run(|cx| async move {
        let sort = super::model::ShopSort::from_query(Some(&sort));
        Ok(super::service::category(&cx.state, type_id, sort, page).await?)
    })
    .await
}

/// Shops whose name contains `q`.
#[server(endpoint = "catalog/search")]
pub async fn search_shops(q: String, page: u32) -> Result<Page<ShopSummary>, AppError> {
    crate::web::edge::run(|cx| async move {
        cx.spend_per_address(crate::web::abuse::Action::Search).await?;
        Ok(super::service::search(&cx.state, &q, page).await?)
    })
    .await
}

/// One shop through the cache, nothing else (a GET, so HTTP caches and load generators can use it). The
/// cached entry itself is encoded (an `Arc`), not a copy of it.
#[server(endpoint = "catalog/shop-cached", input = leptos::server_fn::codec::GetUrl)]
pub async fn get_shop(id: i64) -> Result<std::sync::Arc<Shop>, AppError> {
    crate::web::edge::run(|cx| async move { Ok(super::service::shop(&cx.state, id).await?) }).await
}

/// The shop as its owner edits it (401/403/404 for anyone else).
#[server(endpoint = "catalog/shop-for-edit")]
pub async fn shop_for_edit(id: i64) -> Result<Shop, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::current_user(&cx).await?;
        Ok((*super::service::shop_for_owner(&cx.state, user.as_ref(), id).await?).clone())
    })
    .await
}
