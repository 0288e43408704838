//! The nearby map: an SVG drawn from the search point and the shops found — distance rings, numbered pins
//! that match the list, "you are here" (or the shop a shop page's map is drawn around) — with no tile
//! server. Tapping a pin scrolls to its shop, or opens it.

use leptos::prelude::*;

use super::model::{GeoPoint, NearbyShop};
use crate::shared::i18n::{Locale, locale, td_string};

/// The drawing's size in SVG units; the page scales it to its width.
pub const WIDTH: f64 = 640.0;
/// See [`WIDTH`].
pub const HEIGHT: f64 = 400.0;
/// Room kept free at the sides and the bottom of the drawing, so no pin touches its edge.
const MARGIN: f64 = 28.0;
/// Room kept free at the top: a pin stands this tall above the point it marks.
const TOP: f64 = 44.0;
/// Ring spacings to choose from, metres: the smallest that needs at most four rings to cross the map.
const RING_STEPS: [f64; 10] = [100.0, 250.0, 500.0, 1_000.0, 2_000.0, 2_500.0, 5_000.0, 10_000.0, 20_000.0, 25_000.0];

/// One pin: its number in the list, the shop, and where it sits on the drawing.
#[derive(Debug, Clone, PartialEq)]
pub struct Pin {
    /// The number the list shows beside the shop.
    pub number: usize,
    /// Shop id (the pin links to `#shop-{id}`).
    pub shop_id: i64,
    /// Shop name (the pin's accessible name).
    pub name: String,
    /// Position on the drawing, SVG units.
    pub x: f64,
    /// See [`Pin::x`].
    pub y: f64,
}

/// A distance ring around the point.
#[derive(Debug, Clone, PartialEq)]
pub struct Ring {
    /// Radius on the drawing, SVG units.
    pub r: f64,
    /// "500 m", "2 km".
    pub label: String,
}

/// Everything the map draws.
#[derive(Debug, Clone, PartialEq)]
pub struct MapPlan {
    /// Rings, inside out.
    pub rings: Vec<Ring>,
    /// Pins, in list order.
    pub pins: Vec<Pin>,
}

/// Metres east and north of `center` (an equirectangular projection: exact enough across a city).
fn offset_m(center: GeoPoint, p: GeoPoint) -> (f64, f64) {
    const M_PER_DEG_LAT: f64 = 110_574.0;
    const M_PER_DEG_LON_EQUATOR: f64 = 111_320.0;
    let east = (p.lon - center.lon) * M_PER_DEG_LON_EQUATOR * center.lat.to_radians().cos();
    let north = (p.lat - center.lat) * M_PER_DEG_LAT;
    (east, north)
}

/// "500 m" or "2 km" ("500 米", "2 公里"): a ring's round figure, so no decimals as in a shop's distance.
fn ring_label(locale: Locale, m: f64) -> String {
    if m < 1_000.0 { td_string!(locale, geo.ring_m, m = m) } else { td_string!(locale, geo.ring_km, km = m / 1_000.0) }
}

/// Lays out the shops found (numbered from `first_number`) around `center`, at the scale that spreads them
/// over the whole drawing (the point stays in the middle), with rings out to its corners labelled in `locale`.
pub fn plan(locale: Locale, center: GeoPoint, shops: &[NearbyShop], first_number: usize) -> MapPlan {
    let offsets: Vec<(f64, f64)> = shops.iter().map(|s| offset_m(center, s.position)).collect();
    // The farthest shop in each direction, at least 50 m so a shop at the point itself still gets a scale.
    let reach = |pick: fn(&(f64, f64)) -> f64| offsets.iter().map(pick).fold(50.0_f64, f64::max);
    let (east_west, north, south) = (reach(|(e, _)| e.abs()), reach(|(_, n)| *n), reach(|(_, n)| -*n));
    let (cx, cy) = (WIDTH / 2.0, HEIGHT / 2.0);
    let scale = ((cx - MARGIN) / east_west).min((cy - TOP) / north).min((cy - MARGIN) / south);
    let step = RING_STEPS.iter().copied().find(|step| cy / scale / step <= 4.0).unwrap_or(50_000.0);
    let corner = cx.hypot(cy);
    let rings = (1..)
        .map(|i| i as f64 * step)
        .take_while(|m| m * scale <= corner)
        .map(|m| Ring { r: m * scale, label: ring_label(locale, m) })
        .collect();
    let pins = shops
        .iter()
        .zip(offsets)
        .enumerate()
        .map(|(i, (s, (e, n)))| Pin {
            number: first_number + i,
            shop_id: s.shop.id,
            name: s.shop.name.clone(),
            x: cx + e * scale,
            y: cy - n * scale,
        })
        .collect();
    MapPlan { rings, pins }
}

/// The map of a page of nearby shops, or (`around`, a shop's name) of a shop with similar shops nearby. The
/// pins are SVG links (placed by attributes: the content security policy allows no inline style), so they
/// work before the page hydrates; tapping one scrolls to its shop in the list, or opens it on a shop page.
#[component]
pub fn NearbyMap(
    center: GeoPoint,
    shops: Vec<NearbyShop>,
    first_number: usize,
    #[prop(optional)] around: Option<String>,
) -> impl IntoView {
    let locale = locale();
    let MapPlan { rings, pins } = plan(locale, center, &shops, first_number);
    let (cx, cy) = (WIDTH / 2.0, HEIGHT / 2.0);
    let on_shop_page = around.is_some();
    let (label, caption) = match &around {
        Some(name) => {
            (td_string!(locale, geo.map_around_label, name = name), td_string!(locale, geo.map_around_caption))
        }
        None => (td_string!(locale, geo.map_label).to_string(), td_string!(locale, geo.map_caption)),
    };
    let here = around.unwrap_or_else(|| td_string!(locale, geo.you_are_here).to_string());
    view! {
        <figure class="nearby-map">
            <svg viewBox=format!("0 0 {WIDTH} {HEIGHT}") role="group" aria-label=label>
                <g aria-hidden="true">
                    <rect class="land" width=WIDTH height=HEIGHT/>
                    {rings.into_iter().map(|ring| view! {
                        <circle class="ring" cx=cx cy=cy r=ring.r/>
                        <text class="ring-label" x={cx + ring.r * 0.707 + 4.0} y={cy - ring.r * 0.707 - 4.0}>{ring.label}</text>
                    }).collect_view()}
                    <text class="north" x={WIDTH - 24.0} y="30" text-anchor="middle">{td_string!(locale, geo.north)}</text>
                    <path class="north" d=format!("M{} 38 l-7 14 h14 z", WIDTH - 24.0)/>
                    <circle class="you-halo" cx=cx cy=cy r="16"/>
                    <circle class="you" cx=cx cy=cy r="7"/>
                    <text class="you-label" x=cx y={cy + 32.0} text-anchor="middle">{here}</text>
                </g>
                // Farthest first, so nearer pins lie on top where they overlap. The tip marks the shop.
                {pins.into_iter().rev().map(|pin| view! {
                    <a class="pin" href=if on_shop_page { format!("/shops/{}", pin.shop_id) } else { format!("#shop-{}", pin.shop_id) }
                        aria-label=format!("{}. {}", pin.number, pin.name)>
                        <path d=format!("M{:.1} {:.1} l-12 -19 a15 15 0 1 1 24 0 z", pin.x, pin.y)/>
                        <text x=pin.x y={pin.y - 23.0} text-anchor="middle">{pin.number}</text>
                    </a>
                }).collect_view()}
            </svg>
            <figcaption class="muted">{caption}</figcaption>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::model::ShopSummary;

    fn shop(id: i64, lon: f64, lat: f64) -> NearbyShop {
        let shop = ShopSummary {
            id,
            name: format!("shop {id}"),
            area: String::new(),
            image: None,
            avg_price_cents: 0,
            score: 0.0,
            reviews: 0,
            sold: 0,
            distance_m: None,
        };
        NearbyShop { shop, distance_m: 0.0, position: GeoPoint { lon, lat } }
    }

    #[test]
    fn pins_sit_where_the_shops_are_and_the_rings_reach_the_farthest() {
        let here = GeoPoint { lon: 120.1645, lat: 30.2565 };
        // ~1.1 km north, ~0.5 km east, ~2.8 km south-west (2.0 km west, 2.0 km south).
        let shops = [shop(1, 120.1645, 30.2665), shop(2, 120.1697, 30.2565), shop(3, 120.1435, 30.2385)];
        let plan = plan(Locale::en, here, &shops, 21);
        assert_eq!(plan.pins.iter().map(|p| p.number).collect::<Vec<_>>(), [21, 22, 23], "numbered as the list");
        let (north, east, south_west) = (&plan.pins[0], &plan.pins[1], &plan.pins[2]);
        assert!((north.x - WIDTH / 2.0).abs() < 1.0 && north.y < HEIGHT / 2.0, "north is up");
        assert!(east.x > WIDTH / 2.0 && (east.y - HEIGHT / 2.0).abs() < 1.0, "east is right");
        assert!(south_west.x < WIDTH / 2.0 && south_west.y > HEIGHT / 2.0);
        for pin in &plan.pins {
            assert!((MARGIN..=WIDTH - MARGIN).contains(&pin.x) && (TOP..=HEIGHT - MARGIN).contains(&pin.y), "{pin:?}");
        }
        let labels: Vec<&str> = plan.rings.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(labels, ["1 km", "2 km", "3 km", "4 km"], "1 km apart: 500 m would need more than four");
        let outer = plan.rings.last().map(|r| r.r).unwrap_or_default();
        let farthest = (south_west.x - WIDTH / 2.0).hypot(south_west.y - HEIGHT / 2.0);
        assert!(farthest <= outer, "the rings reach the farthest pin");
        assert!(
            (HEIGHT - MARGIN - south_west.y).abs() < 1.0,
            "the southernmost shop sets the scale: the map is filled"
        );
    }

    #[test]
    fn shops_at_the_point_itself_still_get_a_ring() {
        let here = GeoPoint { lon: 120.0, lat: 30.0 };
        let plan = plan(Locale::en, here, &[shop(1, 120.0, 30.0)], 1);
        assert_eq!(plan.rings.len(), 1);
        assert_eq!(plan.rings[0].label, "100 m");
    }

    #[test]
    fn rings_are_labelled_in_chinese_for_a_chinese_page() {
        let here = GeoPoint { lon: 120.1645, lat: 30.2565 };
        let near = plan(Locale::zh_CN, here, &[shop(1, 120.1645, 30.2565)], 1);
        assert_eq!(near.rings[0].label, "100 米");
        let shops = [shop(1, 120.1645, 30.2665), shop(2, 120.1697, 30.2565), shop(3, 120.1435, 30.2385)];
        let labels: Vec<String> = plan(Locale::zh_CN, here, &shops, 1).rings.into_iter().map(|r| r.label).collect();
        assert_eq!(labels, ["1 公里", "2 公里", "3 公里", "4 公里"]);
    }
}
