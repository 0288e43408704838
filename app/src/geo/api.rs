//! Nearby-search server functions: shops of a type nearest first, and the home page's best rated near you.

use leptos::prelude::*;

use super::model::{BestNear, NearbyShop};
use crate::catalog::model::Page;
use crate::shared::error::AppError;

/// Shops of a type near a point (`radius_km` empty = 5 km), 20 a page, nearest first; narrowed, as a
/// category is, by the filter's price band, lowest score and open now (its area and place are the
/// category's and play no part here), a value the lists do not offer narrowing nothing.
#[server(endpoint = "geo/nearby", input = leptos::server_fn::codec::GetUrl)]
pub async fn nearby_shops(
    type_id: i64,
    lon: String,
    lat: String,
    radius_km: String,
    #[server(default)] filter: crate::catalog::model::ShopFilter,
    page: u32,
) -> Result<Page<NearbyShop>, AppError> {
    crate::web::edge::run(|cx| async move {
        let at = super::model::GeoPoint::parse(&lon, &lat)?;
        let radius = super::model::parse_radius_km(&radius_km)?;
        let filter = crate::catalog::model::ShopFilter {
            price: filter.price,
            rating: filter.rating,
            open: filter.open,
            ..Default::default()
        };
        cx.spend_per_address(crate::web::abuse::Action::Nearby).await?;
        Ok(super::service::nearby_narrowed(&cx.state, type_id, at, radius, &filter, page).await?)
    })
    .await
}

/// The best-rated shops within 3 km of the browser's location (`lon`, `lat`), or else of business area
/// `area` (an index into the list of areas; empty: the first).
#[server(endpoint = "geo/best-near", input = leptos::server_fn::codec::GetUrl)]
pub async fn get_best_near(area: String, lon: String, lat: String) -> Result<BestNear, AppError> {
    crate::web::edge::run(|cx| async move {
        use super::model::{BEST_NEAR_RADIUS_M, BEST_NEAR_SHOWN};
        let (area, at) = super::model::near_place(&area, &lon, &lat)?;
        let shops = super::service::best_rated_near(&cx.state, at, BEST_NEAR_RADIUS_M, BEST_NEAR_SHOWN).await?;
        Ok(BestNear { area, shops })
    })
    .await
}
