//! Nearby-search server function.

use leptos::prelude::*;

use super::model::NearbyShop;
use crate::catalog::model::Page;
use crate::shared::error::AppError;

/// Shops of a type near a point (`radius_km` empty = 5 km), 20 a page, nearest first.
#[server(endpoint = "geo/nearby", input = leptos::server_fn::codec::GetUrl)]
pub async fn nearby_shops(
    type_id: i64,
    lon: String,
    lat: String,
    radius_km: String,
    page: u32,
) -> Result<Page<NearbyShop>, AppError> {
    crate::web::edge::run(|cx| async move {
        let at = super::model::GeoPoint::parse(&lon, &lat)?;
        let radius = super::model::parse_radius_km(&radius_km)?;
        cx.spend_per_address(crate::web::abuse::Action::Nearby).await?;
        Ok(super::service::nearby(&cx.state, type_id, at, radius, page).await?)
    })
    .await
}
