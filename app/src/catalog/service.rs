//! Catalog rules: the shop page (cache + coupons + visitors), category and search lists, merchant edits.

use time::{Duration as TimeDuration, OffsetDateTime, UtcOffset};

use super::model::{Page, Shop, ShopEdit, ShopPage, ShopSort, ShopSummary, ShopType};
use super::store;
use crate::auth::model::{CurrentUser, Role};
use crate::error::AppError;
use crate::state::AppState;

/// What can go wrong in the catalog; converted to [`AppError`] at the server-function edge.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    /// No such shop.
    #[error("shop {0} not found")]
    ShopNotFound(i64),
    /// No such category.
    #[error("shop type {0} not found")]
    TypeNotFound(i64),
    /// Input failed validation.
    #[error("invalid input: {0}")]
    Invalid(AppError),
    /// Needs a login.
    #[error("login required")]
    LoginRequired,
    /// Not the owner.
    #[error("not the owner of shop {0}")]
    Forbidden(i64),
    /// Postgres.
    #[error("database: {0}")]
    Db(#[from] sqlx::Error),
    /// Redis.
    #[error("redis: {0}")]
    Redis(#[from] redis::RedisError),
    /// The cache's backing services.
    #[error("cache: {0}")]
    Cache(#[from] std::sync::Arc<super::cache::CacheError>),
}

impl From<CatalogError> for AppError {
    fn from(e: CatalogError) -> Self {
        match e {
            CatalogError::ShopNotFound(_) => AppError::NotFound("Shop".into()),
            CatalogError::TypeNotFound(_) => AppError::NotFound("Category".into()),
            CatalogError::Invalid(app) => app,
            CatalogError::LoginRequired => AppError::LoginRequired,
            CatalogError::Forbidden(_) => AppError::Forbidden,
            other => AppError::internal(other),
        }
    }
}

/// Days are counted in China Standard Time (UTC+8), where the shops are.
pub fn local_now() -> OffsetDateTime {
    let cst = UtcOffset::from_hms(8, 0, 0).unwrap_or(UtcOffset::UTC);
    OffsetDateTime::now_utc().to_offset(cst)
}

fn day_key(t: OffsetDateTime) -> String {
    format!("{:04}{:02}{:02}", t.year(), u8::from(t.month()), t.day())
}

/// A shop through the three-level cache.
pub async fn shop(state: &AppState, id: i64) -> Result<std::sync::Arc<Shop>, CatalogError> {
    state.shops.get(state, id).await?.ok_or(CatalogError::ShopNotFound(id))
}

/// Adds `visitor` to today's unique visitors of the shop and the site; returns the shop's count today.
pub async fn record_visit(state: &AppState, shop_id: i64, visitor: &str) -> Result<u64, CatalogError> {
    let day = day_key(local_now());
    Ok(store::record_visit(&state.redis, &state.keys.uv_shop(shop_id, &day), &state.keys.uv_site(&day), visitor)
        .await?)
}

/// Unique visitors of a shop on each of the last 7 days, oldest first.
pub async fn visitors_last_week(state: &AppState, shop_id: i64) -> Result<Vec<(String, u64)>, CatalogError> {
    let today = local_now();
    let days: Vec<OffsetDateTime> = (0..7).rev().map(|d| today - TimeDuration::days(d)).collect();
    let keys: Vec<String> = days.iter().map(|d| state.keys.uv_shop(shop_id, &day_key(*d))).collect();
    let counts = store::visitor_counts(&state.redis, &keys).await?;
    Ok(days
        .iter()
        .zip(counts)
        .map(|(d, c)| (format!("{:04}-{:02}-{:02}", d.year(), u8::from(d.month()), d.day()), c))
        .collect())
}

/// Everything the shop page shows; records the visit.
pub async fn shop_page(
    state: &AppState,
    id: i64,
    viewer: Option<&CurrentUser>,
    visitor: &str,
) -> Result<ShopPage, CatalogError> {
    let shop = shop(state, id).await?;
    let (mut vouchers, visitors_today) = tokio::try_join!(
        async { Ok(store::vouchers_of_shop(&state.db, id).await?) },
        record_visit(state, id, visitor)
    )?;
    // Flash-sale stock comes from Redis, which is ahead of Postgres while orders are still in Kafka.
    let flash: Vec<i64> = vouchers.iter().filter(|v| v.kind == "flash").map(|v| v.id).collect();
    let (server_now_ms, stocks) = crate::seckill::store::live_stocks(&state.redis, &state.keys, &flash).await?;
    for v in vouchers.iter_mut().filter(|v| v.kind == "flash") {
        if let Some((_, Some(stock))) = stocks.iter().find(|(id, _)| *id == v.id) {
            v.stock = Some((*stock).max(0) as i32);
        }
    }
    let is_owner = viewer.is_some_and(|u| shop.owner_id == Some(u.id));
    let visitors_week = if is_owner { visitors_last_week(state, id).await? } else { Vec::new() };
    Ok(ShopPage { shop: (*shop).clone(), vouchers, visitors_today, is_owner, visitors_week, server_now_ms })
}

/// One page of a category.
pub async fn category(
    state: &AppState,
    type_id: i64,
    sort: ShopSort,
    page: u32,
) -> Result<(ShopType, Page<ShopSummary>), CatalogError> {
    let ty = store::shop_type(&state.db, type_id).await?.ok_or(CatalogError::TypeNotFound(type_id))?;
    let (items, has_next) = store::shops_by_type(&state.db, type_id, sort, page).await?;
    Ok((ty, Page { items, page, has_next }))
}

/// Name search.
pub async fn search(state: &AppState, q: &str, page: u32) -> Result<Page<ShopSummary>, CatalogError> {
    let q = q.trim();
    if q.is_empty() || q.chars().count() > 50 {
        return Err(CatalogError::Invalid(AppError::invalid("q", "Search for 1 to 50 characters of a shop name.")));
    }
    let (items, has_next) = store::search_shops(&state.db, q, page).await?;
    Ok(Page { items, page, has_next })
}

/// Checks that `user` may edit shop `id`: logged in, a merchant, and its owner.
pub async fn authorize_owner(state: &AppState, user: Option<&CurrentUser>, id: i64) -> Result<(), CatalogError> {
    let user = user.ok_or(CatalogError::LoginRequired)?;
    let owner = store::shop_owner(&state.db, id).await?.ok_or(CatalogError::ShopNotFound(id))?;
    if user.role != Role::Merchant || owner != Some(user.id) {
        return Err(CatalogError::Forbidden(id));
    }
    Ok(())
}

/// Saves a merchant's edit: Postgres first, then the L2 entry is deleted and every instance told to
/// drop its L1 copy, so the next read anywhere loads the new data.
pub async fn edit_shop(
    state: &AppState,
    user: Option<&CurrentUser>,
    id: i64,
    edit: ShopEdit,
) -> Result<Shop, CatalogError> {
    authorize_owner(state, user, id).await?;
    if !store::update_shop(&state.db, id, &edit).await? {
        return Err(CatalogError::ShopNotFound(id));
    }
    store::l2_invalidate(&state.redis, &state.keys.shop(id), &state.keys.shop_invalidation_channel(), id).await?;
    state.shops.invalidate_local(id).await;
    let saved = (*shop(state, id).await?).clone();
    // Nearby search follows a moved shop at once.
    crate::geo::store::place(&state.redis, &state.keys, saved.type_id, id, saved.longitude, saved.latitude).await?;
    Ok(saved)
}

/// A merchant opens a new shop: Postgres first, then its place in nearby search.
pub async fn open_shop(
    state: &AppState,
    user: Option<&CurrentUser>,
    type_id: i64,
    edit: ShopEdit,
) -> Result<i64, CatalogError> {
    let user = user.ok_or(CatalogError::LoginRequired)?;
    if user.role != Role::Merchant {
        return Err(CatalogError::Forbidden(0));
    }
    let id =
        store::insert_shop(&state.db, user.id, type_id, &edit).await?.ok_or(CatalogError::TypeNotFound(type_id))?;
    crate::geo::store::place(&state.redis, &state.keys, type_id, id, edit.longitude, edit.latitude).await?;
    Ok(id)
}

/// The owner removes a shop without history (orders or notes must be kept, so such a shop stays): out of
/// Postgres, out of nearby search, out of every instance's cache.
pub async fn remove_shop(state: &AppState, user: Option<&CurrentUser>, id: i64) -> Result<(), CatalogError> {
    authorize_owner(state, user, id).await?;
    let type_id = store::delete_shop_without_history(&state.db, id).await?.ok_or_else(|| {
        CatalogError::Invalid(AppError::invalid("shop", "This shop has orders or notes, so it cannot be removed."))
    })?;
    crate::geo::store::remove(&state.redis, &state.keys, type_id, id).await?;
    store::l2_invalidate(&state.redis, &state.keys.shop(id), &state.keys.shop_invalidation_channel(), id).await?;
    state.shops.invalidate_local(id).await;
    Ok(())
}
