//! Catalog rules: shops through the cache, category and search lists, visitors, who owns a shop, and
//! the Postgres side of opening, editing and removing shops.

use std::sync::Arc;

use time::Duration as TimeDuration;

use super::model::{
    Coupon, Favourite, Favourites, Listing, MAX_FAVOURITES, MAX_PAGES, NewCoupon, Page, RECENT_KEPT, SUGGEST_MAX_CHARS,
    SUGGESTIONS, Shop, ShopEdit, ShopFilter, ShopSort, ShopSummary, ShopType, Suggestion, VoucherView,
};
use super::store;
use crate::auth::model::{CurrentUser, Role};
use crate::platform::backend::BackendError;
use crate::platform::breaker::Breakers;
use crate::platform::cache::{CacheKeys, CacheTtls, TieredCache};
use crate::platform::config::Config;
use crate::platform::keys::Keys;
use crate::platform::redis_conn::Redis;
use crate::shared::clock;
use crate::shared::error::{AppError, Thing};
use crate::shared::i18n::{locale, td_string};
use crate::shared::point::GeoPoint;
use crate::web::state::AppState;
use sqlx::PgPool;

/// What can go wrong in the catalog; converted to [`AppError`] at the server-function edge.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    /// No such shop.
    #[error("shop {0} not found")]
    ShopNotFound(i64),
    /// The shop has no such normal coupon.
    #[error("coupon not found")]
    CouponNotFound,
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
    /// The account keeps [`MAX_FAVOURITES`] shops already.
    #[error("favourites full")]
    FavouritesFull,
    /// A backing service failed.
    #[error(transparent)]
    Backend(#[from] BackendError),
    /// The state was built without the shop cache (a wiring fault, not the user's).
    #[error("the instance's state has no shop cache")]
    NoShopCache,
    /// The cache's backing services failed (shared by every caller waiting on the same load).
    #[error(transparent)]
    Cache(#[from] Arc<BackendError>),
}

crate::backend_errors!(CatalogError, Cache);

/// This instance's shop cache: L1 (moka) over the shared L2 (Redis), loading from Postgres. The
/// composition root (`crate::start`) builds it and keeps it in the state's parts.
#[derive(Clone)]
pub struct ShopCache(Arc<TieredCache<Shop>>);

/// Where the shop cache keeps its entries: `shop:{id}`, `lock:shop:{id}`, `shop:{id}:epoch`,
/// `chan:shop:invalidate`.
const SHOP_KEYS: CacheKeys = CacheKeys {
    name: "shop",
    entry: Keys::shop,
    lock: Keys::shop_lock,
    epoch: Keys::shop_epoch,
    channel: Keys::shop_invalidation_channel,
};

impl ShopCache {
    /// An empty cache over these handles, listening for other instances' invalidations.
    pub fn new(config: &Config, db: &PgPool, redis: &Redis, breakers: &Breakers, keys: &Keys) -> Self {
        let ttls =
            CacheTtls { l1: config.shop_cache_l1_ttl, l2: config.shop_cache_l2_ttl, null: config.shop_cache_null_ttl };
        let cache = Arc::new(TieredCache::new(
            db.clone(),
            redis.clone(),
            breakers.redis.clone(),
            keys.clone(),
            SHOP_KEYS,
            ttls,
        ));
        cache.spawn_invalidation_listener(config.redis_url.clone());
        Self(cache)
    }

    /// The instance's shop cache.
    pub fn of(state: &AppState) -> Result<&Self, CatalogError> {
        state.parts.get::<Self>().ok_or(CatalogError::NoShopCache)
    }

    /// Registers the cache's counters with the instance's metrics.
    pub fn register_metrics(&self, registry: &mut prometheus_client::registry::Registry) {
        self.0.metrics.register(registry);
    }
}

impl std::ops::Deref for ShopCache {
    type Target = Arc<TieredCache<Shop>>;

    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl From<CatalogError> for AppError {
    fn from(e: CatalogError) -> Self {
        match e {
            CatalogError::ShopNotFound(_) => AppError::NotFound(Thing::Shop),
            CatalogError::CouponNotFound => AppError::NotFound(Thing::Coupon),
            CatalogError::TypeNotFound(_) => AppError::NotFound(Thing::Category),
            CatalogError::Invalid(app) => app,
            CatalogError::LoginRequired => AppError::LoginRequired,
            CatalogError::Forbidden(_) => AppError::Forbidden,
            CatalogError::FavouritesFull => {
                AppError::invalid("shop", td_string!(locale(), catalog.err_favourites_full, max = MAX_FAVOURITES))
            }
            CatalogError::Backend(e) => e.into(),
            CatalogError::Cache(e) => AppError::internal(e),
            CatalogError::NoShopCache => AppError::internal(CatalogError::NoShopCache),
        }
    }
}

/// A shop through the three-level cache.
pub async fn shop(state: &AppState, id: i64) -> Result<Arc<Shop>, CatalogError> {
    ShopCache::of(state)?.get(id, store::load_shop).await?.ok_or(CatalogError::ShopNotFound(id))
}

/// Every shop type, in display order.
pub async fn shop_types(state: &AppState) -> Result<Vec<ShopType>, CatalogError> {
    Ok(store::shop_types(state.postgres()?).await?)
}

/// One shop type, or `TypeNotFound`.
pub async fn shop_type(state: &AppState, type_id: i64) -> Result<ShopType, CatalogError> {
    store::shop_type(state.postgres()?, type_id).await?.ok_or(CatalogError::TypeNotFound(type_id))
}

/// The coupons a shop has on sale (flash-sale stock as Postgres has it).
pub async fn vouchers(state: &AppState, shop_id: i64) -> Result<Vec<VoucherView>, CatalogError> {
    Ok(store::vouchers_of_shop(state.postgres()?, shop_id).await?)
}

/// Adds `visitor` to today's unique visitors of the shop and the site; returns the shop's count today.
pub async fn record_visit(state: &AppState, shop_id: i64, visitor: &str) -> Result<u64, CatalogError> {
    record_visit_at(state, shop_id, visitor, clock::now_ms()).await
}

/// Adds `visitor` to the unique visitors of the business day that contains `at_ms` (unix ms); returns the
/// shop's count for that day.
pub async fn record_visit_at(state: &AppState, shop_id: i64, visitor: &str, at_ms: i64) -> Result<u64, CatalogError> {
    let day = clock::day_key(clock::date_of(at_ms));
    Ok(store::record_visit(&state.redis, &state.keys, shop_id, &day, visitor).await?)
}

/// Unique visitors of a shop on each of the last 7 days, oldest first.
pub async fn visitors_last_week(state: &AppState, shop_id: i64) -> Result<Vec<(String, u64)>, CatalogError> {
    visitors_per_day(state, shop_id, 7).await
}

/// Unique visitors of a shop (its HyperLogLog per business day) on each of the last `days` days, oldest
/// first, as `(YYYY-MM-DD, count)`.
pub async fn visitors_per_day(state: &AppState, shop_id: i64, days: i64) -> Result<Vec<(String, u64)>, CatalogError> {
    visitors_of(state, &format!("shop:{shop_id}"), days).await
}

/// Unique visitors of the whole site (anyone who opened a shop page) on each of the last `days` days,
/// oldest first, as `(YYYY-MM-DD, count)`.
pub async fn site_visitors_per_day(state: &AppState, days: i64) -> Result<Vec<(String, u64)>, CatalogError> {
    visitors_of(state, "site", days).await
}

/// The daily HyperLogLogs of `scope` (`site`, `shop:{id}`) over the last `days` days.
async fn visitors_of(state: &AppState, scope: &str, days: i64) -> Result<Vec<(String, u64)>, CatalogError> {
    let today = clock::today();
    let days: Vec<time::Date> = (0..days).rev().map(|d| today - TimeDuration::days(d)).collect();
    let keys: Vec<String> = days.iter().map(|d| state.keys.uv(scope, &clock::day_key(*d))).collect();
    let counts = store::visitor_counts(&state.redis, &keys).await?;
    Ok(days.iter().map(|d| clock::iso_day(*d)).zip(counts).collect())
}

/// One page of a category narrowed by `filter`, with the areas its shops are in.
pub async fn category(
    state: &AppState,
    type_id: i64,
    sort: ShopSort,
    filter: &ShopFilter,
    page: u32,
) -> Result<(ShopType, Listing), CatalogError> {
    check_page(page)?;
    let ty = shop_type(state, type_id).await?;
    let db = state.postgres_read()?;
    let ((items, has_next), areas) = tokio::try_join!(
        store::shops(db, Some(type_id), None, sort, filter, open_at(filter), page, None),
        store::areas(db, Some(type_id))
    )?;
    Ok((ty, Listing { page: Page { items, page, has_next: has_next && page < MAX_PAGES }, areas }))
}

/// One page of the shops of `type_id` within `radius_m` of `at`, narrowed by `filter`'s price band, lowest
/// score and open now (not by its area or place: the point is the place), nearest first, each with its
/// distance: nearby search once one of those is chosen, which Redis' GEO sets cannot answer (they know where
/// a shop is, not what it costs or when it opens). A page past [`MAX_PAGES`] is read as the last one: a
/// deeper `OFFSET` would cost what a category's does.
pub async fn shops_within(
    state: &AppState,
    type_id: i64,
    at: GeoPoint,
    radius_m: f64,
    filter: &ShopFilter,
    page: u32,
) -> Result<Page<ShopSummary>, CatalogError> {
    let page = page.clamp(1, MAX_PAGES);
    let around = ShopFilter { area: String::new(), near: Some(at), ..filter.clone() };
    let db = state.postgres_read()?;
    let (items, has_next) =
        store::shops(db, Some(type_id), None, ShopSort::Distance, &around, open_at(&around), page, Some(radius_m))
            .await?;
    Ok(Page { items, page, has_next: has_next && page < MAX_PAGES })
}

/// This instance's recent answers to the search box, by what was typed: the same first characters are
/// typed by many people, and a name changes rarely enough that a minute-old list is as good.
#[derive(Clone)]
pub struct Suggestions(moka::future::Cache<String, Arc<Vec<Suggestion>>>);

impl Default for Suggestions {
    fn default() -> Self {
        Self(
            moka::future::Cache::builder()
                .max_capacity(20_000)
                .time_to_live(std::time::Duration::from_secs(60))
                .build(),
        )
    }
}

/// The shops the search box offers for `q` (trimmed; nothing for nothing, at most [`SUGGESTIONS`]):
/// from this instance's cache when it has asked Postgres in the last minute.
pub async fn suggest(state: &AppState, q: &str) -> Result<Arc<Vec<Suggestion>>, CatalogError> {
    // Control characters are in no shop's name (and a NUL is not text to Postgres): they are left out.
    let q: String =
        q.trim().chars().filter(|c| !c.is_control()).take(SUGGEST_MAX_CHARS).collect::<String>().to_lowercase();
    if q.is_empty() {
        return Ok(Arc::default());
    }
    let load = async {
        let found = store::suggestions(state.postgres_read()?, &q, SUGGESTIONS).await.map_err(BackendError::from)?;
        Ok::<_, BackendError>(Arc::new(found))
    };
    match state.parts.get::<Suggestions>() {
        // Everyone typing the same characters in the same moment waits on one query.
        Some(cache) => Ok(cache.0.try_get_with(q.clone(), load).await?),
        None => Ok(load.await?),
    }
}

/// The minute of the week "open now" means, when the filter asks for it.
fn open_at(filter: &ShopFilter) -> Option<i32> {
    filter.open.then(|| super::hours::minute_of_week(clock::now_ms()) as i32)
}

/// The business areas with shops of `type_id` (every type's when none), in order.
pub async fn areas(state: &AppState, type_id: Option<i64>) -> Result<Vec<String>, CatalogError> {
    Ok(store::areas(state.postgres_read()?, type_id).await?)
}

/// Pages 1 to [`MAX_PAGES`].
fn check_page(page: u32) -> Result<(), CatalogError> {
    if (1..=MAX_PAGES).contains(&page) {
        return Ok(());
    }
    let message = td_string!(locale(), catalog.err_page_range, max = MAX_PAGES);
    Err(CatalogError::Invalid(AppError::invalid("page", message)))
}

/// Name search narrowed by `filter`, with the areas of every shop.
pub async fn search(
    state: &AppState,
    q: &str,
    sort: ShopSort,
    filter: &ShopFilter,
    page: u32,
) -> Result<Listing, CatalogError> {
    let rule = crate::shared::text::TextRule { min: 1, max: 50, multiline: false };
    let length = td_string!(locale(), catalog.err_query_len, min = rule.min, max = rule.max);
    let q = crate::shared::text::FreeText::parse("q", q, rule, &length).map_err(CatalogError::Invalid)?;
    let q = q.as_str();
    check_page(page)?;
    let db = state.postgres_read()?;
    let ((items, has_next), areas) = tokio::try_join!(
        store::shops(db, None, Some(q), sort, filter, open_at(filter), page, None),
        store::areas(db, None)
    )?;
    Ok(Listing { page: Page { items, page, has_next: has_next && page < MAX_PAGES }, areas })
}

/// The user if logged in as a merchant (401 for nobody, 403 for a shopper).
pub fn require_merchant(user: Option<&CurrentUser>) -> Result<&CurrentUser, CatalogError> {
    merchant(user, 0)
}

/// The user if logged in as a merchant; `shop` names what was asked for, for the error.
fn merchant(user: Option<&CurrentUser>, shop: i64) -> Result<&CurrentUser, CatalogError> {
    let user = user.ok_or(CatalogError::LoginRequired)?;
    if user.role != Role::Merchant {
        return Err(CatalogError::Forbidden(shop));
    }
    Ok(user)
}

/// Checks that `user` may edit shop `id`: logged in, a merchant, and its owner.
pub async fn authorize_owner(state: &AppState, user: Option<&CurrentUser>, id: i64) -> Result<(), CatalogError> {
    let user = user.ok_or(CatalogError::LoginRequired)?;
    let owner = store::shop_owner(state.postgres()?, id).await?.ok_or(CatalogError::ShopNotFound(id))?;
    if owner != Some(user.id) {
        return Err(CatalogError::Forbidden(id));
    }
    merchant(Some(user), id).map(|_| ())
}

/// The owner's shop as the edit form shows it.
pub async fn shop_for_owner(state: &AppState, user: Option<&CurrentUser>, id: i64) -> Result<Arc<Shop>, CatalogError> {
    authorize_owner(state, user, id).await?;
    shop(state, id).await
}

/// Saves an owner's edit: Postgres first, then the cache is invalidated on every instance, so the next
/// read anywhere loads the new data (if Redis does not answer, the invalidation is retried in the
/// background; the edit stands). Answers the shop as saved.
pub async fn edit_shop(
    state: &AppState,
    user: Option<&CurrentUser>,
    id: i64,
    edit: &ShopEdit,
) -> Result<Arc<Shop>, CatalogError> {
    authorize_owner(state, user, id).await?;
    if !store::update_shop(state.postgres()?, id, edit).await? {
        return Err(CatalogError::ShopNotFound(id));
    }
    ShopCache::of(state)?.invalidate(id).await;
    shop(state, id).await
}

/// A merchant opens a new shop of `type_id`; answers its id.
pub async fn open_shop(
    state: &AppState,
    user: Option<&CurrentUser>,
    type_id: i64,
    edit: &ShopEdit,
) -> Result<i64, CatalogError> {
    let user = merchant(user, 0)?;
    store::insert_shop(state.postgres()?, user.id, type_id, edit).await?.ok_or(CatalogError::TypeNotFound(type_id))
}

/// The owner removes a shop without history (orders, notes and reviews must be kept, so such a shop stays): out of
/// Postgres and out of every instance's cache. Answers the shop's type.
pub async fn remove_shop(state: &AppState, user: Option<&CurrentUser>, id: i64) -> Result<i64, CatalogError> {
    authorize_owner(state, user, id).await?;
    let type_id = store::delete_shop_without_history(state.postgres()?, id).await?.ok_or_else(|| {
        CatalogError::Invalid(AppError::invalid("shop", td_string!(locale(), catalog.err_shop_has_history)))
    })?;
    ShopCache::of(state)?.invalidate(id).await;
    Ok(type_id)
}

/// The shops a merchant runs.
pub async fn shops_of_owner(state: &AppState, owner: i64) -> Result<Vec<ShopSummary>, CatalogError> {
    Ok(store::shops_of_owner(state.postgres()?, owner).await?)
}

/// The owner's normal coupons of shop `shop_id`, paused ones included.
pub async fn coupons(state: &AppState, user: Option<&CurrentUser>, shop_id: i64) -> Result<Vec<Coupon>, CatalogError> {
    authorize_owner(state, user, shop_id).await?;
    coupons_of_shop(state, shop_id).await
}

/// [`coupons`] for a caller that has already checked the owner (the console, once per page).
pub async fn coupons_of_shop(state: &AppState, shop_id: i64) -> Result<Vec<Coupon>, CatalogError> {
    Ok(store::coupons_of_shop(state.postgres()?, shop_id).await?)
}

/// The ids and titles of a shop's normal coupons, newest first: what the orders console filters by. Without
/// [`coupons_of_shop`]'s sold counts, which read every order of a coupon (a million at a busy shop).
pub async fn coupon_titles(state: &AppState, shop_id: i64) -> Result<Vec<(i64, String)>, CatalogError> {
    Ok(store::coupon_titles(state.postgres()?, shop_id).await?)
}

/// The owner adds a normal coupon (`id` None) or changes one; answers its id.
pub async fn save_coupon(
    state: &AppState,
    user: Option<&CurrentUser>,
    shop_id: i64,
    id: Option<i64>,
    coupon: &NewCoupon,
) -> Result<i64, CatalogError> {
    authorize_owner(state, user, shop_id).await?;
    let db = state.postgres()?;
    match id {
        None => Ok(store::insert_coupon(db, shop_id, coupon).await?),
        Some(id) if store::update_coupon(db, shop_id, id, coupon).await? => Ok(id),
        Some(_) => Err(CatalogError::CouponNotFound),
    }
}

/// The owner pauses a normal coupon (no new purchases; bought ones stay valid) or puts it back on sale.
pub async fn set_coupon_on_sale(
    state: &AppState,
    user: Option<&CurrentUser>,
    shop_id: i64,
    id: i64,
    on: bool,
) -> Result<(), CatalogError> {
    authorize_owner(state, user, shop_id).await?;
    if store::set_coupon_on_sale(state.postgres()?, shop_id, id, on).await? {
        Ok(())
    } else {
        Err(CatalogError::CouponNotFound)
    }
}

/// Drops shop `id` from every instance's cache (its figures changed), so the next read anywhere loads them.
pub async fn forget_shop(state: &AppState, id: i64) -> Result<(), CatalogError> {
    ShopCache::of(state)?.invalidate(id).await;
    Ok(())
}

/// Summaries of the shops `ids`, in that order (unknown ids left out).
pub async fn summaries(state: &AppState, ids: &[i64]) -> Result<Vec<ShopSummary>, CatalogError> {
    let mut found = store::summaries(state.postgres_read()?, ids).await?;
    Ok(ids.iter().filter_map(|id| found.iter().position(|s| s.id == *id).map(|i| found.swap_remove(i))).collect())
}

/// Saves (`on`) or un-saves shop `shop_id` among `user_id`'s favourites; answers the shop's count and
/// state afterwards. Saving twice or removing what is not there changes nothing.
pub async fn set_favourite(state: &AppState, user_id: i64, shop_id: i64, on: bool) -> Result<Favourite, CatalogError> {
    let db = state.postgres()?;
    if on {
        match store::save_favourite(db, user_id, shop_id, MAX_FAVOURITES).await? {
            store::Saved::Added | store::Saved::Already => {}
            store::Saved::Full => return Err(CatalogError::FavouritesFull),
            store::Saved::NoShop => return Err(CatalogError::ShopNotFound(shop_id)),
        }
    } else {
        store::remove_favourite(db, user_id, shop_id).await?;
    }
    favourite(state, shop_id, Some(user_id)).await
}

/// Empties `user_id`'s favourites: their account is closing (the shops' counts drop with it).
pub async fn forget_favourites(state: &AppState, user_id: i64) -> Result<(), CatalogError> {
    store::forget_favourites(state.postgres()?, user_id).await?;
    Ok(())
}

/// Notes that `user_id` opened shop `shop_id`, for their "Recently viewed".
pub async fn record_view(state: &AppState, user_id: i64, shop_id: i64) -> Result<(), CatalogError> {
    Ok(store::record_view(state.postgres()?, user_id, shop_id, RECENT_KEPT).await?)
}

/// The shops `user_id` opened lately, the latest first, at most `limit`.
pub async fn recently_viewed(state: &AppState, user_id: i64, limit: i64) -> Result<Vec<ShopSummary>, CatalogError> {
    Ok(store::recently_viewed(state.postgres()?, user_id, limit.clamp(0, RECENT_KEPT)).await?)
}

/// Forgets which shops `user_id` opened (they cleared it, or their account is closing).
pub async fn forget_views(state: &AppState, user_id: i64) -> Result<(), CatalogError> {
    store::forget_views(state.postgres()?, user_id).await?;
    Ok(())
}

/// How many saved shop `shop_id`, and whether `viewer` did.
pub async fn favourite(state: &AppState, shop_id: i64, viewer: Option<i64>) -> Result<Favourite, CatalogError> {
    Ok(store::favourite(state.postgres()?, shop_id, viewer).await?)
}

/// Which of `shop_ids` the viewer saved (none when logged out): the hearts on a list of shop cards.
pub async fn saved_among(state: &AppState, viewer: Option<i64>, shop_ids: &[i64]) -> Result<Vec<i64>, CatalogError> {
    match viewer {
        Some(user_id) if !shop_ids.is_empty() => Ok(store::saved_among(state.postgres()?, user_id, shop_ids).await?),
        _ => Ok(Vec::new()),
    }
}

/// One page of `user_id`'s favourites, the latest saved first.
pub async fn favourites(state: &AppState, user_id: i64, page: u32) -> Result<Favourites, CatalogError> {
    check_page(page)?;
    let (items, has_next, total) = store::favourites(state.postgres()?, user_id, page).await?;
    Ok(Favourites { page: Page { items, page, has_next }, total })
}
