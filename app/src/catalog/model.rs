//! Catalog DTOs shared by browser and server, and the parsers for what merchants and URLs send.

use serde::{Deserialize, Serialize};

use crate::error::AppError;

/// A shop category tile on the home page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(sqlx::FromRow))]
pub struct ShopType {
    /// Primary key.
    pub id: i64,
    /// Display name ("火锅 Hotpot").
    pub name: String,
    /// An emoji shown on the tile.
    pub icon: String,
    /// How many shops it has.
    pub shop_count: i64,
}

/// Everything the shop page shows; this is what the shop cache stores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(sqlx::FromRow))]
pub struct Shop {
    /// Primary key.
    pub id: i64,
    /// Name.
    pub name: String,
    /// Category.
    pub type_id: i64,
    /// Category name.
    pub type_name: String,
    /// Owning merchant, if any.
    pub owner_id: Option<i64>,
    /// Image URLs.
    pub images: Vec<String>,
    /// Business area ("湖滨").
    pub area: String,
    /// Street address.
    pub address: String,
    /// WGS-84 longitude.
    pub longitude: f64,
    /// WGS-84 latitude.
    pub latitude: f64,
    /// Average spend per person, fen.
    pub avg_price_cents: i64,
    /// Score in tenths (45 = 4.5).
    pub score: i16,
    /// Coupons sold.
    pub sold: i32,
    /// Reviews.
    pub comments: i32,
    /// Opening hours text.
    pub open_hours: String,
}

/// One row of a shop list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(sqlx::FromRow))]
pub struct ShopSummary {
    /// Primary key.
    pub id: i64,
    /// Name.
    pub name: String,
    /// Area.
    pub area: String,
    /// First image.
    pub image: Option<String>,
    /// Average spend, fen.
    pub avg_price_cents: i64,
    /// Score in tenths.
    pub score: i16,
    /// Coupons sold (popularity).
    pub sold: i32,
}

/// One page of results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Page<T> {
    /// The rows.
    pub items: Vec<T>,
    /// 1-based page number.
    pub page: u32,
    /// Whether a next page exists.
    pub has_next: bool,
}

/// Rows per list page.
pub const PAGE_SIZE: u32 = 20;

/// How a category list is ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum ShopSort {
    /// Best score first.
    #[default]
    Score,
    /// Cheapest first.
    PriceAsc,
    /// Most expensive first.
    PriceDesc,
    /// Most coupons sold first.
    Popular,
}

impl ShopSort {
    /// Every option with its URL value and label, for the sort links.
    pub const ALL: [(ShopSort, &'static str, &'static str); 4] = [
        (ShopSort::Score, "score", "Best rated"),
        (ShopSort::PriceAsc, "price_asc", "Price ↑"),
        (ShopSort::PriceDesc, "price_desc", "Price ↓"),
        (ShopSort::Popular, "popular", "Most popular"),
    ];

    /// Parses the `sort` query value; unknown values fall back to the default rather than erroring,
    /// because a stale bookmark should still show the category.
    pub fn from_query(s: Option<&str>) -> Self {
        Self::ALL.iter().find(|(_, v, _)| Some(*v) == s).map(|(k, _, _)| *k).unwrap_or_default()
    }

    /// The URL value.
    pub fn as_query(self) -> &'static str {
        Self::ALL.iter().find(|(k, _, _)| *k == self).map(|(_, v, _)| *v).unwrap_or("score")
    }
}

/// Parses a 1-based page number from a URL; garbage or 0 means page 1, huge values are capped.
pub fn page_from_query(s: Option<&str>) -> u32 {
    s.and_then(|p| p.parse::<u32>().ok()).filter(|p| *p >= 1).unwrap_or(1).min(10_000)
}

/// A voucher as the shop page lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(sqlx::FromRow))]
pub struct VoucherView {
    /// Primary key.
    pub id: i64,
    /// Title.
    pub title: String,
    /// Subtitle.
    pub sub_title: String,
    /// Usage rules.
    pub rules: String,
    /// Price, fen.
    pub pay_value_cents: i64,
    /// Face value, fen.
    pub actual_value_cents: i64,
    /// `normal` or `flash`.
    pub kind: String,
    /// Remaining stock (flash sales).
    pub stock: Option<i32>,
    /// Sale start, unix ms (flash sales).
    pub begin_ms: Option<i64>,
    /// Sale end, unix ms (flash sales).
    pub end_ms: Option<i64>,
}

/// The shop page's payload: the (cached) shop, its coupons and today's visitors.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShopPage {
    /// The shop.
    pub shop: Shop,
    /// Its coupons.
    pub vouchers: Vec<VoucherView>,
    /// Distinct visitors today (HyperLogLog estimate).
    pub visitors_today: u64,
    /// Whether the viewer owns the shop (shows the edit link and the 7-day figures).
    pub is_owner: bool,
    /// For the owner: (yyyy-mm-dd, visitors) for the last 7 days, oldest first.
    pub visitors_week: Vec<(String, u64)>,
    /// The sale clock (Redis' time, which `lua/seckill.lua` judges by) when the page was built, unix ms:
    /// countdowns run on this, not on the browser's clock.
    pub server_now_ms: i64,
}

/// A merchant's edit of a shop, parsed and checked.
#[derive(Debug, Clone, PartialEq)]
pub struct ShopEdit {
    /// Name, 1–64 characters.
    pub name: String,
    /// Address, 4–128 characters.
    pub address: String,
    /// Longitude in [-180, 180].
    pub longitude: f64,
    /// Latitude in the Web-Mercator range Redis GEO accepts.
    pub latitude: f64,
    /// Average price, fen.
    pub avg_price_cents: i64,
    /// Hours text, up to 64 characters.
    pub open_hours: String,
    /// Image URLs (one per line in the form), up to 9.
    pub images: Vec<String>,
}

impl ShopEdit {
    /// Parses the edit form's raw strings; each problem names its field.
    pub fn parse(
        name: &str,
        address: &str,
        longitude: &str,
        latitude: &str,
        avg_price_yuan: &str,
        open_hours: &str,
        images: &str,
    ) -> Result<Self, AppError> {
        let name = name.trim();
        if name.is_empty() || name.chars().count() > 64 {
            return Err(AppError::invalid("name", "Give the shop a name of 1 to 64 characters."));
        }
        let address = address.trim();
        let n = address.chars().count();
        if !(4..=128).contains(&n) {
            return Err(AppError::invalid("address", "Enter an address of 4 to 128 characters."));
        }
        let longitude: f64 = longitude
            .trim()
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite() && (-180.0..=180.0).contains(v))
            .ok_or_else(|| AppError::invalid("longitude", "Longitude is a number from -180 to 180."))?;
        let latitude: f64 = latitude
            .trim()
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite() && (-85.05112878..=85.05112878).contains(v))
            .ok_or_else(|| AppError::invalid("latitude", "Latitude is a number from -85.05 to 85.05."))?;
        let price: f64 = avg_price_yuan
            .trim()
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite() && (0.0..=100_000.0).contains(v))
            .ok_or_else(|| AppError::invalid("avg_price", "Average price is an amount in yuan, 0 to 100000."))?;
        let open_hours = open_hours.trim();
        if open_hours.chars().count() > 64 {
            return Err(AppError::invalid("open_hours", "Keep opening hours under 64 characters."));
        }
        let images: Vec<String> = images.lines().map(str::trim).filter(|l| !l.is_empty()).map(String::from).collect();
        if images.len() > 9 {
            return Err(AppError::invalid("images", "At most 9 images."));
        }
        if let Some(bad) = images.iter().find(|u| !(u.starts_with('/') || u.starts_with("https://")) || u.len() > 512) {
            return Err(AppError::invalid("images", format!("Not an image address we can show: {bad}")));
        }
        Ok(Self {
            name: name.to_string(),
            address: address.to_string(),
            longitude,
            latitude,
            avg_price_cents: (price * 100.0).round() as i64,
            open_hours: open_hours.to_string(),
            images,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sort_and_page_parse_leniently() {
        assert_eq!(ShopSort::from_query(Some("price_desc")), ShopSort::PriceDesc);
        assert_eq!(ShopSort::from_query(Some("bogus")), ShopSort::Score);
        assert_eq!(page_from_query(Some("3")), 3);
        assert_eq!(page_from_query(Some("0")), 1);
        assert_eq!(page_from_query(Some("-2")), 1);
        assert_eq!(page_from_query(None), 1);
    }

    #[test]
    fn edits_are_validated_field_by_field() {
        let ok =
            ShopEdit::parse("新名字", "杭州市延安路1号", "120.16", "30.25", "88.5", "10:00-22:00", "/a.svg\n\n/b.svg")
                .expect("valid");
        assert_eq!(ok.avg_price_cents, 8850);
        assert_eq!(ok.images.len(), 2);
        let field = |r: Result<ShopEdit, AppError>| match r.expect_err("invalid") {
            AppError::Validation { field, .. } => field,
            other => panic!("{other:?}"),
        };
        assert_eq!(field(ShopEdit::parse("", "杭州市延安路1号", "120", "30", "1", "", "")), "name");
        assert_eq!(field(ShopEdit::parse("x", "杭州市延安路1号", "200", "30", "1", "", "")), "longitude");
        assert_eq!(field(ShopEdit::parse("x", "杭州市延安路1号", "120", "89", "1", "", "")), "latitude");
        assert_eq!(field(ShopEdit::parse("x", "杭州市延安路1号", "120", "30", "-1", "", "")), "avg_price");
        assert_eq!(field(ShopEdit::parse("x", "杭州市延安路1号", "120", "30", "1", "", "javascript:x")), "images");
    }
}
