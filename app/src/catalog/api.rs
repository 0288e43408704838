//! Catalog server functions: thin — the edge's preamble, one service call.

use leptos::prelude::*;

use super::model::{Favourite, Favourites, Listing, Shop, ShopFilter, ShopSummary, ShopType, Suggestion};
use crate::shared::error::AppError;

/// Shop types for the home page.
#[server(endpoint = "catalog/types")]
pub async fn list_shop_types() -> Result<Vec<ShopType>, AppError> {
    crate::web::edge::run(|cx| async move { Ok(super::service::shop_types(&cx.state).await?) }).await
}

/// One page of a category, sorted (`score`, `price_asc`, `price_desc`, `popular`) and narrowed by `filter`
/// (left out: nothing narrowed, as before filters existed).
#[server(endpoint = "catalog/shops")]
pub async fn list_shops(
    type_id: i64,
    sort: String,
    #[server(default)] filter: ShopFilter,
    page: u32,
) -> Result<(ShopType, Listing), AppError> {
    crate::web::edge::run(|cx| async move {
        let sort = super::model::ShopSort::from_query(Some(&sort));
        Ok(super::service::category(&cx.state, type_id, sort, &filter, page).await?)
    })
    .await
}

/// Shops whose name contains `q`, sorted and narrowed like a category.
#[server(endpoint = "catalog/search")]
pub async fn search_shops(
    q: String,
    #[server(default)] sort: String,
    #[server(default)] filter: ShopFilter,
    page: u32,
) -> Result<Listing, AppError> {
    crate::web::edge::run(|cx| async move {
        cx.spend_per_address(crate::web::abuse::Action::Search).await?;
        // A search's own parse: relevance unless another is asked for (a category's drops it).
        let sort = super::model::ShopSort::for_search(Some(&sort));
        Ok(super::service::search(&cx.state, &q, sort, &filter, page).await?)
    })
    .await
}

/// The shops the search box offers while someone types `q` (a GET, as reads are).
#[server(endpoint = "catalog/suggest", input = leptos::server_fn::codec::GetUrl)]
pub async fn suggest_shops(q: String) -> Result<std::sync::Arc<Vec<Suggestion>>, AppError> {
    crate::web::edge::run(|cx| async move { Ok(super::service::suggest(&cx.state, &q).await?) }).await
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

/// Saves (`on`) or un-saves a shop among the user's favourites (收藏); answers the shop's count and state.
#[server(endpoint = "catalog/favourite")]
pub async fn set_favourite(shop_id: i64, on: bool) -> Result<Favourite, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::require_shopper_id(&cx).await?;
        cx.spend(crate::web::abuse::Action::Favourite, &format!("u:{user}"))?;
        Ok(super::service::set_favourite(&cx.state, user, shop_id, on).await?)
    })
    .await
}

/// Which of `shop_ids` the viewer saved (none when logged out), for the hearts on a list of shops.
#[server(endpoint = "catalog/saved-among")]
pub async fn saved_among(shop_ids: Vec<i64>) -> Result<Vec<i64>, AppError> {
    crate::web::edge::run(|cx| async move {
        if shop_ids.len() > super::model::PAGE_SIZE as usize {
            return Err(AppError::invalid(
                "shop_ids",
                crate::shared::i18n::td_string!(crate::shared::i18n::locale(), catalog.err_too_many_shop_ids),
            )
            .into());
        }
        let viewer = cx.user_id().await?;
        Ok(super::service::saved_among(&cx.state, viewer, &shop_ids).await?)
    })
    .await
}

/// One page of the user's favourites, the latest saved first.
#[server(endpoint = "catalog/favourites")]
pub async fn my_favourites(page: u32) -> Result<Favourites, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = cx.require_user_id().await?;
        Ok(super::service::favourites(&cx.state, user, page).await?)
    })
    .await
}

/// The shops the viewer opened lately, the latest first (none when logged out): the home page's
/// "Recently viewed".
#[server(endpoint = "catalog/recently-viewed", input = leptos::server_fn::codec::GetUrl)]
pub async fn get_recently_viewed() -> Result<Vec<ShopSummary>, AppError> {
    crate::web::edge::run(|cx| async move {
        match cx.user_id().await? {
            Some(user) => Ok(super::service::recently_viewed(&cx.state, user, super::model::RECENT_SHOWN).await?),
            None => Ok(Vec::new()),
        }
    })
    .await
}

/// Forgets which shops the user opened ("Clear" under "Recently viewed").
#[server(endpoint = "catalog/forget-viewed")]
pub async fn forget_viewed() -> Result<(), AppError> {
    crate::web::edge::run(|cx| async move {
        let user = cx.require_user_id().await?;
        Ok(super::service::forget_views(&cx.state, user).await?)
    })
    .await
}
