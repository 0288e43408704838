//! Nearby search: Redis finds and orders, Postgres describes, the `geo` crate measures on our side.

use geo::{Distance, Haversine, Point};

use super::model::{GeoPoint, NearbyShop, PAGE_SIZE};
use super::store;
use crate::catalog::model::{Page, ShopFilter};
use crate::catalog::service::{self as catalog, CatalogError};
use crate::platform::backend::BackendError;
use crate::shared::error::AppError;
use crate::web::state::AppState;

/// What can go wrong; converted to [`AppError`] at the edge.
#[derive(Debug, thiserror::Error)]
pub enum GeoError {
    /// No such shop type (the catalog says).
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    /// A backing service failed.
    #[error(transparent)]
    Backend(#[from] BackendError),
}

crate::backend_errors!(GeoError, Catalog);

impl From<GeoError> for AppError {
    fn from(e: GeoError) -> Self {
        match e {
            GeoError::Catalog(e) => e.into(),
            GeoError::Backend(e) => e.into(),
        }
    }
}

/// Great-circle distance in metres (Haversine, mean Earth radius), for places Redis is not asked about.
pub fn distance_m(a: GeoPoint, b: GeoPoint) -> f64 {
    Haversine.distance(Point::new(a.lon, a.lat), Point::new(b.lon, b.lat))
}

/// Loads every shop's position into the per-type GEO sets (start-up and after seeding).
pub async fn load_all(state: &AppState) -> Result<usize, BackendError> {
    let positions = store::positions(state.postgres()?).await?;
    store::replace_all(&state.redis, &state.keys, &positions).await?;
    Ok(positions.len())
}

/// Places (or moves) one shop in its type's index.
pub async fn place(state: &AppState, type_id: i64, shop_id: i64, at: GeoPoint) -> Result<(), GeoError> {
    Ok(store::place(&state.redis, &state.keys, type_id, shop_id, at.lon, at.lat).await?)
}

/// Takes a removed shop out of its type's index.
pub async fn remove(state: &AppState, type_id: i64, shop_id: i64) -> Result<(), GeoError> {
    Ok(store::remove(&state.redis, &state.keys, type_id, shop_id).await?)
}

/// Page `page` (1-based) of shops of `type_id` within `radius_m` of `at`, nearest first. Each page asks
/// Redis for everything up to its end and orders ties by id, so pages neither skip nor repeat a shop.
pub async fn nearby(
    state: &AppState,
    type_id: i64,
    at: GeoPoint,
    radius_m: f64,
    page: u32,
) -> Result<Page<NearbyShop>, GeoError> {
    catalog::shop_type(state, type_id).await?;
    let page = page.clamp(1, 500);
    let end = page as usize * PAGE_SIZE;
    let mut found = nearest(state, type_id, at, radius_m, end + 1).await?;
    found.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    let has_next = found.len() > end;
    let window: Vec<(i64, f64, (f64, f64))> = found.into_iter().skip(end - PAGE_SIZE).take(PAGE_SIZE).collect();
    Ok(Page { items: describe(state, window).await?, page, has_next })
}

/// Page `page` (1-based) of shops of `type_id` within `radius_m` of `at`, nearest first, narrowed by
/// `filter`'s price band, lowest score and open now. With none of them chosen this is [`nearby`]: Redis
/// finds and orders. With one, Postgres does (the catalog's list, within the radius): Redis' GEO sets know
/// where a shop is, not what it costs or when it opens, and narrowing Redis' answer afterwards would leave
/// pages short. Either way the order is a total one (equal distances by id in Redis' answer, by score then
/// id in Postgres'), so pages neither skip nor repeat a shop.
pub async fn nearby_narrowed(
    state: &AppState,
    type_id: i64,
    at: GeoPoint,
    radius_m: f64,
    filter: &ShopFilter,
    page: u32,
) -> Result<Page<NearbyShop>, GeoError> {
    if !filter.narrows_shops() {
        return nearby(state, type_id, at, radius_m, page).await;
    }
    let (_, found) = tokio::try_join!(
        catalog::shop_type(state, type_id),
        catalog::shops_within(state, type_id, at, radius_m, filter, page)
    )?;
    let ids: Vec<i64> = found.items.iter().map(|s| s.id).collect();
    // The map pins each shop where it is, which a summary does not say.
    let positions = store::positions_of(state.postgres_read()?, &ids).await?;
    let items = found
        .items
        .into_iter()
        .filter_map(|shop| {
            let p = positions.iter().find(|p| p.id == shop.id)?;
            let position = GeoPoint { lon: p.longitude, lat: p.latitude };
            let metres = shop.distance_m.unwrap_or_else(|| distance_m(at, position));
            Some(NearbyShop { shop, distance_m: metres, position })
        })
        .collect();
    Ok(Page { items, page: found.page, has_next: found.has_next })
}

/// The shops of `type_id` nearest to shop `shop_id` (at `at`) within `radius_m`, itself left out, at most
/// `limit`: the shop page's "Similar shops nearby".
pub async fn similar_near(
    state: &AppState,
    type_id: i64,
    shop_id: i64,
    at: GeoPoint,
    radius_m: f64,
    limit: usize,
) -> Result<Vec<NearbyShop>, GeoError> {
    let mut found = nearest(state, type_id, at, radius_m, limit + 1).await?;
    found.retain(|(id, _, _)| *id != shop_id);
    found.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    found.truncate(limit);
    describe(state, found).await
}

/// The first circle [`nearest`] asks about; each next one is four times as wide.
const FIRST_CIRCLE_M: f64 = 250.0;

/// The `count` shops of `type_id` nearest to `at` within `radius_m`, nearest first, as (id, metres,
/// (lon, lat)). Redis sorts every shop inside the circle it is asked about, however few are wanted, so in a
/// dense city a 5 km circle would sort tens of thousands: the circles widen from 250 m instead and stop at
/// the first that holds `count` — the nearest `count` of the whole radius are all inside it.
async fn nearest(
    state: &AppState,
    type_id: i64,
    at: GeoPoint,
    radius_m: f64,
    count: usize,
) -> Result<Vec<(i64, f64, (f64, f64))>, BackendError> {
    let mut circle = FIRST_CIRCLE_M.min(radius_m);
    loop {
        let found = store::within(&state.redis, &state.keys, type_id, at.lon, at.lat, circle, count).await?;
        if found.len() >= count || circle >= radius_m {
            return Ok(found);
        }
        circle = (circle * 4.0).min(radius_m);
    }
}

/// Redis' answer — (id, metres, (lon, lat)) nearest first — with each shop's summary from Postgres.
async fn describe(state: &AppState, found: Vec<(i64, f64, (f64, f64))>) -> Result<Vec<NearbyShop>, GeoError> {
    let ids: Vec<i64> = found.iter().map(|(id, _, _)| *id).collect();
    let mut summaries = catalog::summaries(state, &ids).await?;
    Ok(found
        .into_iter()
        .filter_map(|(id, distance_m, (lon, lat))| {
            let at = summaries.iter().position(|s| s.id == id)?;
            Some(NearbyShop { shop: summaries.swap_remove(at), distance_m, position: GeoPoint { lon, lat } })
        })
        .collect())
}

/// The best-rated shops of any type (with at least one review) within `radius_m` of `at`, best first, at
/// most `limit`, each with its distance: the home page's "Best rated near you".
pub async fn best_rated_near(
    state: &AppState,
    at: GeoPoint,
    radius_m: f64,
    limit: i64,
) -> Result<Vec<NearbyShop>, GeoError> {
    let found = store::best_rated_within(state.postgres_read()?, at.lon, at.lat, radius_m, limit).await?;
    let ids: Vec<i64> = found.iter().map(|p| p.id).collect();
    let summaries = catalog::summaries(state, &ids).await?;
    Ok(summaries
        .into_iter()
        .filter_map(|shop| {
            let p = found.iter().find(|p| p.id == shop.id)?;
            let position = GeoPoint { lon: p.longitude, lat: p.latitude };
            Some(NearbyShop { shop, distance_m: distance_m(at, position), position })
        })
        .collect())
}
