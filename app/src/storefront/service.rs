//! Flows that span capabilities: the shop page (cache + coupons + live sale stock + visitors + similar
//! shops nearby) and the merchant's shop changes, which Postgres, the cache and the nearby index must all
//! follow.

use super::model::ShopPage;
use crate::auth::model::CurrentUser;
use crate::catalog::model::{Shop, ShopEdit};
use crate::catalog::service::{self as catalog, CatalogError};
use crate::geo::model::{GeoPoint, SIMILAR_RADIUS_M, SIMILAR_SHOWN};
use crate::geo::service as geo;
use crate::sale::inventory;
use crate::seckill::service as seckill;
use crate::shared::clock;
use crate::web::edge::Failure;
use crate::web::state::AppState;

/// Everything the shop page shows; records the visit (and, for a logged-in viewer, remembers it).
pub async fn shop_page(
    state: &AppState,
    id: i64,
    viewer: Option<&CurrentUser>,
    visitor: &str,
) -> Result<ShopPage, Failure> {
    let shop = catalog::shop(state, id).await?;
    let remember = async {
        match viewer {
            Some(user) => catalog::record_view(state, user.id, id).await,
            None => Ok(()),
        }
    };
    let at = GeoPoint { lon: shop.longitude, lat: shop.latitude };
    let similar = geo::similar_near(state, shop.type_id, id, at, SIMILAR_RADIUS_M, SIMILAR_SHOWN);
    let (vouchers, visit, remembered, similar) =
        tokio::join!(catalog::vouchers(state, id), catalog::record_visit(state, id, visitor), remember, similar);
    // Comparing is a convenience too: without Redis the page shows the shop without its neighbours.
    let similar = similar.unwrap_or_else(|e| {
        tracing::warn!(shop = id, "similar shops not listed: {e}");
        Vec::new()
    });
    // "Recently viewed" is a convenience: the page does not fail for it.
    if let Err(e) = remembered {
        tracing::warn!(shop = id, "view not remembered: {e}");
    }
    // Without Postgres the shop still shows (the cache's copy, stale if need be); its coupons cannot.
    let (mut vouchers, coupons_unavailable) = match vouchers {
        Ok(v) => (v, false),
        Err(CatalogError::Backend(e)) if e.outage().is_some() => {
            tracing::warn!(shop = id, "coupons not listed: {e}");
            (Vec::new(), true)
        }
        Err(e) => return Err(e.into()),
    };
    // Visitors and live stock live in Redis; without it the page still shows the shop, its coupons and
    // Postgres' stock (a little behind while orders are in Kafka) rather than failing.
    let visitors_today = visit.unwrap_or_else(|e| {
        tracing::warn!(shop = id, "visit not counted: {e}");
        0
    });
    // Flash-sale stock comes from Redis, which is ahead of Postgres while orders are still in Kafka.
    let flash: Vec<i64> = vouchers.iter().filter(|v| v.kind == "flash").map(|v| v.id).collect();
    let (server_now_ms, stocks) = inventory::live_stocks(&state.redis, &state.keys, &flash).await.unwrap_or_else(|e| {
        tracing::warn!(shop = id, "live stock unavailable, showing Postgres' figures: {e}");
        (clock::now_ms(), Vec::new())
    });
    for v in vouchers.iter_mut().filter(|v| v.kind == "flash") {
        if let Some((_, Some(stock))) = stocks.iter().find(|(id, _)| *id == v.id) {
            v.stock = Some((*stock).max(0) as i32);
        }
    }
    let favourite = catalog::favourite(state, id, viewer.map(|u| u.id))
        .await
        .inspect_err(|e| tracing::warn!(shop = id, "favourites not counted: {e}"))
        .ok();
    let is_owner = viewer.is_some_and(|u| shop.owner_id == Some(u.id));
    let visitors_week = if is_owner {
        catalog::visitors_last_week(state, id).await.unwrap_or_else(|e| {
            tracing::warn!(shop = id, "visitor history unavailable: {e}");
            Vec::new()
        })
    } else {
        Vec::new()
    };
    Ok(ShopPage {
        shop: (*shop).clone(),
        vouchers,
        coupons_unavailable,
        favourite,
        visitors_today,
        is_owner,
        visitors_week,
        server_now_ms,
        similar,
    })
}

/// Saves the owner's edit; nearby search follows a moved shop at once.
pub async fn edit_shop(state: &AppState, user: Option<&CurrentUser>, id: i64, edit: ShopEdit) -> Result<Shop, Failure> {
    let saved = catalog::edit_shop(state, user, id, &edit).await?;
    geo::place(state, saved.type_id, id, edit.at).await?;
    Ok((*saved).clone())
}

/// A merchant opens a new shop: Postgres first, then its place in nearby search.
pub async fn open_shop(
    state: &AppState,
    user: Option<&CurrentUser>,
    type_id: i64,
    edit: ShopEdit,
) -> Result<i64, Failure> {
    let id = catalog::open_shop(state, user, type_id, &edit).await?;
    geo::place(state, type_id, id, edit.at).await?;
    Ok(id)
}

/// The owner removes a shop without history: out of Postgres, every cache and nearby search, and its
/// flash sales (none sold yet, or it would have history) out of Redis.
pub async fn remove_shop(state: &AppState, user: Option<&CurrentUser>, id: i64) -> Result<(), Failure> {
    let sales = seckill::sales_of_shop(state, id).await?;
    let type_id = catalog::remove_shop(state, user, id).await?;
    geo::remove(state, type_id, id).await?;
    seckill::forget_sales(state, &sales).await?;
    Ok(())
}
