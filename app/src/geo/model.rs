//! Points, radii and nearby results, shared by browser and server; inputs parse into checked newtypes.

use serde::{Deserialize, Serialize};

use crate::catalog::model::ShopSummary;
use crate::shared::error::AppError;
use crate::shared::i18n::{locale, td_string};
pub use crate::shared::point::GeoPoint;

/// Default search radius.
pub const DEFAULT_RADIUS_M: f64 = 5_000.0;
/// Results per page.
pub const PAGE_SIZE: usize = 20;

/// Parses a radius in km (empty = the default 5 km), 0.1 to 50 km; answers metres.
pub fn parse_radius_km(raw: &str) -> Result<f64, AppError> {
    if raw.trim().is_empty() {
        return Ok(DEFAULT_RADIUS_M);
    }
    raw.trim()
        .parse::<f64>()
        .ok()
        .filter(|km| km.is_finite() && (0.1..=50.0).contains(km))
        .map(|km| km * 1000.0)
        .ok_or_else(|| AppError::invalid("radius", td_string!(locale(), geo.err_radius)))
}

/// One shop near the point, with its distance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NearbyShop {
    /// The shop.
    pub shop: ShopSummary,
    /// Metres from the point.
    pub distance_m: f64,
    /// Where the shop is (for the map).
    pub position: GeoPoint,
}

/// How far the home page's "Best rated near you" looks.
pub const BEST_NEAR_RADIUS_M: f64 = 3_000.0;
/// How many shops it shows.
pub const BEST_NEAR_SHOWN: i64 = 6;

/// How far the shop page's "Similar shops nearby" looks.
pub const SIMILAR_RADIUS_M: f64 = 3_000.0;
/// How many it shows.
pub const SIMILAR_SHOWN: usize = 5;

/// The home page's "Best rated near you": rated shops of any type around a place, best first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BestNear {
    /// The business area looked around (an index into [`AREAS`]), or `None` for the browser's location.
    pub area: Option<usize>,
    /// The shops, best first, each with its distance.
    pub shops: Vec<NearbyShop>,
}

/// Where "Best rated near you" looks: the browser's location when it gave one (`lon`, `lat`), else
/// business area `area` (an index into [`AREAS`]; empty: the first).
pub fn near_place(area: &str, lon: &str, lat: &str) -> Result<(Option<usize>, GeoPoint), AppError> {
    if !lon.trim().is_empty() || !lat.trim().is_empty() {
        return Ok((None, GeoPoint::parse(lon, lat)?));
    }
    let i = if area.trim().is_empty() { Ok(0) } else { area.trim().parse::<usize>() };
    match i.ok().and_then(|i| AREAS.get(i).map(|(_, lon, lat)| (i, GeoPoint { lon: *lon, lat: *lat }))) {
        Some((i, at)) => Ok((Some(i), at)),
        None => Err(AppError::invalid("area", td_string!(locale(), geo.err_area_pick))),
    }
}

/// Places to search from when the browser does not share its location: Hangzhou's business areas.
pub const AREAS: [(&str, f64, f64); 10] = [
    ("湖滨 Hubin", 120.1645, 30.2565),
    ("武林 Wulin", 120.1625, 30.2785),
    ("黄龙 Huanglong", 120.1335, 30.2745),
    ("钱江新城 Qianjiang New Town", 120.2125, 30.2445),
    ("滨江 Binjiang", 120.2105, 30.2085),
    ("西溪 Xixi", 120.0835, 30.2885),
    ("未来科技城 Future Sci-Tech City", 120.0105, 30.2855),
    ("萧山 Xiaoshan", 120.2645, 30.1845),
    ("城东 Chengdong", 120.1955, 30.2985),
    ("临平 Linping", 120.2995, 30.4195),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radii_are_checked() {
        assert_eq!(parse_radius_km(""), Ok(5_000.0));
        assert_eq!(parse_radius_km("2.5"), Ok(2_500.0));
        assert!(parse_radius_km("0").is_err() && parse_radius_km("51").is_err() && parse_radius_km("x").is_err());
    }

    #[test]
    fn best_near_looks_around_the_browser_or_else_an_area() {
        assert_eq!(near_place("", "", ""), Ok((Some(0), GeoPoint { lon: AREAS[0].1, lat: AREAS[0].2 })));
        assert_eq!(near_place("3", "", ""), Ok((Some(3), GeoPoint { lon: AREAS[3].1, lat: AREAS[3].2 })));
        assert_eq!(near_place("3", "120.1", "30.2"), Ok((None, GeoPoint { lon: 120.1, lat: 30.2 })));
        assert!(near_place("10", "", "").unwrap_err().field_message("area").is_some());
        assert!(near_place("x", "", "").unwrap_err().field_message("area").is_some());
        assert!(near_place("", "120.1", "").unwrap_err().field_message("lat").is_some());
    }
}
