//! Catalog DTOs shared by browser and server, and the parsers for what merchants and URLs send.

use serde::{Deserialize, Serialize};

use super::hours::{DAY_FIELDS, WeeklyHours};
use crate::shared::error::AppError;
use crate::shared::i18n::{Locale, td_string};
use crate::shared::point::GeoPoint;
use crate::shared::text::{FreeText, TextRule};

/// A shop offered while someone types in the search box.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Suggestion {
    /// The shop's id.
    pub id: i64,
    /// Its name.
    pub name: String,
    /// Its business area.
    pub area: String,
}

/// How many shops the search box offers.
pub const SUGGESTIONS: i64 = 8;
/// The longest words the search box suggests for (a search takes 50).
pub const SUGGEST_MAX_CHARS: usize = 20;

/// A shop category tile on the home page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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
    /// The Bayesian average of its reviews' stars (the type's mean counts as five reviews).
    pub score: f64,
    /// Coupons paid for or used.
    pub sold: i32,
    /// Visible reviews.
    pub reviews: i32,
    /// Visible reviews with 1, 2, 3, 4 and 5 stars.
    pub star_hist: Vec<i32>,
    /// The three sub-scores added up over the visible reviews.
    pub aspect_sums: Vec<i32>,
    /// The type's three sub-score labels ("口味 Taste", …).
    pub aspects: Vec<String>,
    /// Opening hours, week by week (none given for a shop cached before they were structured).
    #[serde(default)]
    pub hours: WeeklyHours,
}

impl Shop {
    /// Each sub-score's label and average (`None` before the first review).
    pub fn aspect_averages(&self) -> Vec<(String, Option<f64>)> {
        self.aspects
            .iter()
            .zip(&self.aspect_sums)
            .map(|(label, sum)| (label.clone(), (self.reviews > 0).then(|| f64::from(*sum) / f64::from(self.reviews))))
            .collect()
    }
}

/// One row of a shop list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// Bayesian score (see [`Shop::score`]).
    pub score: f64,
    /// Visible reviews.
    pub reviews: i32,
    /// Coupons paid for or used (popularity).
    pub sold: i32,
    /// Metres from the place a list is sorted by distance from, when it has one.
    #[serde(default)]
    pub distance_m: Option<f64>,
}

/// Listings go this many pages deep and no deeper: a deep `OFFSET` makes Postgres read and drop every
/// row before it, so a crawler asking for page 10,000 would cost as much as 10,000 pages.
pub const MAX_PAGES: u32 = 50;

/// How many shops a shopper's "Recently viewed" remembers.
pub const RECENT_KEPT: i64 = 20;
/// How many of them the home page shows.
pub const RECENT_SHOWN: i64 = 8;

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

/// How many shops one account keeps in its favourites: a list a person scrolls, not a copy of the city.
pub const MAX_FAVOURITES: i64 = 500;

/// A shop's favourites (收藏) as one viewer sees them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Favourite {
    /// How many accounts saved the shop.
    pub count: i64,
    /// Whether the viewer did (false when logged out).
    pub saved: bool,
}

/// The viewer's saved shops, newest first, one page at a time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Favourites {
    /// This page's shops.
    pub page: Page<ShopSummary>,
    /// How many shops the viewer saved in all.
    pub total: i64,
}

/// How a category list is ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum ShopSort {
    /// Best score first.
    #[default]
    Score,
    /// Names with the words searched for earliest first, then the shortest (searches only).
    Relevance,
    /// Nearest first, from the shopper's location or the middle of the area chosen.
    Distance,
    /// Cheapest first.
    PriceAsc,
    /// Most expensive first.
    PriceDesc,
    /// Most coupons sold first.
    Popular,
}

impl ShopSort {
    /// Every option with its URL value, for the sort links.
    pub const ALL: [(ShopSort, &'static str); 6] = [
        (ShopSort::Relevance, "relevance"),
        (ShopSort::Score, "score"),
        (ShopSort::Distance, "distance"),
        (ShopSort::PriceAsc, "price_asc"),
        (ShopSort::PriceDesc, "price_desc"),
        (ShopSort::Popular, "popular"),
    ];

    /// Parses the `sort` query value of a category; unknown values (and relevance, which needs words)
    /// fall back to the default rather than erroring, because a stale bookmark should still show the
    /// category.
    pub fn from_query(s: Option<&str>) -> Self {
        Self::parse(s).filter(|s| *s != ShopSort::Relevance).unwrap_or_default()
    }

    /// Parses the `sort` query value of a search: relevance unless another is asked for.
    pub fn for_search(s: Option<&str>) -> Self {
        Self::parse(s).unwrap_or(ShopSort::Relevance)
    }

    /// The sort a URL value names.
    fn parse(s: Option<&str>) -> Option<Self> {
        Self::ALL.iter().find(|(_, v)| Some(*v) == s).map(|(k, _)| *k)
    }

    /// The `sort` query value.
    pub fn as_query(self) -> &'static str {
        Self::ALL.iter().find(|(k, _)| *k == self).map(|(_, v)| *v).unwrap_or("score")
    }

    /// The sort link's words in `locale`.
    pub fn label(self, locale: Locale) -> &'static str {
        match self {
            ShopSort::Score => td_string!(locale, catalog.sort_score),
            ShopSort::Relevance => td_string!(locale, catalog.sort_relevance),
            ShopSort::Distance => td_string!(locale, catalog.sort_distance),
            ShopSort::PriceAsc => td_string!(locale, catalog.sort_price_asc),
            ShopSort::PriceDesc => td_string!(locale, catalog.sort_price_desc),
            ShopSort::Popular => td_string!(locale, catalog.sort_popular),
        }
    }
}

/// The words of a filter choice in the page's language.
pub type Label = fn(Locale) -> &'static str;

/// Price-per-person bands a list narrows to: URL value, label, from and below (fen).
pub const PRICE_BANDS: [(&str, Label, i64, i64); 4] = [
    ("0-50", |l| td_string!(l, catalog.price_under_50), 0, 5_000),
    ("50-100", |l| td_string!(l, catalog.price_50_100), 5_000, 10_000),
    ("100-200", |l| td_string!(l, catalog.price_100_200), 10_000, 20_000),
    ("200-", |l| td_string!(l, catalog.price_200_up), 20_000, i64::MAX),
];

/// Lowest scores a list narrows to (rated shops only): URL value, label, score.
pub const MIN_SCORES: [(&str, Label, f64); 2] =
    [("4", |l| td_string!(l, catalog.rating_4_up), 4.0), ("4.5", |l| td_string!(l, catalog.rating_4_5_up), 4.5)];

/// What a category or a search is narrowed to, from the page's URL: a business area, a price band, a
/// lowest score, open now — and the shopper's place, which distances are measured from. A value the lists
/// do not offer narrows nothing, as an unknown sort sorts by score: a stale link still shows shops.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ShopFilter {
    /// A business area ("" = any).
    pub area: String,
    /// A [`PRICE_BANDS`] value ("" = any).
    pub price: String,
    /// A [`MIN_SCORES`] value ("" = any).
    pub rating: String,
    /// Only the shops open now.
    pub open: bool,
    /// Where the shopper is (the browser's location), when shared.
    pub near: Option<GeoPoint>,
}

impl ShopFilter {
    /// Reads `area`, `price`, `rating`, `open` and `lon`/`lat` through `get` (a page's query).
    pub fn from_query(get: impl Fn(&str) -> Option<String>) -> Self {
        let near = match (get("lon"), get("lat")) {
            (Some(lon), Some(lat)) => GeoPoint::parse(&lon, &lat).ok(),
            _ => None,
        };
        Self {
            area: get("area").unwrap_or_default(),
            price: get("price").unwrap_or_default(),
            rating: get("rating").unwrap_or_default(),
            open: get("open").is_some_and(|v| v == "1"),
            near,
        }
    }

    /// The business area, when one is chosen.
    pub fn area(&self) -> Option<&str> {
        Some(self.area.trim()).filter(|a| !a.is_empty())
    }

    /// The price band as (from, below) in fen, each bound `None` when open (every price when no band is
    /// chosen): an open bound is no condition at all for Postgres' planner.
    pub fn price_range(&self) -> (Option<i64>, Option<i64>) {
        PRICE_BANDS
            .iter()
            .find(|b| b.0 == self.price)
            .map_or((None, None), |b| (Some(b.2).filter(|f| *f > 0), Some(b.3).filter(|t| *t < i64::MAX)))
    }

    /// The lowest score, when one is chosen.
    pub fn min_score(&self) -> Option<f64> {
        MIN_SCORES.iter().find(|m| m.0 == self.rating).map(|m| m.2)
    }

    /// The shopper's place, when it is one (a client may send any numbers).
    pub fn place(&self) -> Option<GeoPoint> {
        self.near.and_then(GeoPoint::checked)
    }

    /// Whether distances can be measured: from the shopper's place or the middle of an area.
    pub fn has_place(&self) -> bool {
        self.place().is_some() || self.area().is_some()
    }

    /// Whether it narrows what the shops are like — a price band, a lowest score or open now, each one the
    /// lists offer — rather than only where they are (the area, the place).
    pub fn narrows_shops(&self) -> bool {
        self.price_range() != (None, None) || self.min_score().is_some() || self.open
    }

    /// The price band, lowest score and open now as form fields (name, value), the chosen ones only: what
    /// a form about something else (a place, a radius) sends along so as not to drop them.
    pub fn narrowing_fields(&self) -> Vec<(&'static str, String)> {
        let open = if self.open { "1" } else { "" };
        [("price", self.price.as_str()), ("rating", self.rating.as_str()), ("open", open)]
            .into_iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(k, v)| (k, v.to_string()))
            .collect()
    }

    /// The chosen parts as URL parameters ("&area=…&price=…"), for the links that keep them.
    pub fn as_query(&self) -> String {
        let near = self.place().map(|p| (format!("{:.6}", p.lon), format!("{:.6}", p.lat))).unwrap_or_default();
        let open = if self.open { "1" } else { "" };
        [
            ("area", self.area.as_str()),
            ("price", &self.price),
            ("rating", &self.rating),
            ("open", open),
            ("lon", &near.0),
            ("lat", &near.1),
        ]
        .into_iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| format!("&{k}={}", form_urlencoded::byte_serialize(v.as_bytes()).collect::<String>()))
        .collect()
    }
}

/// One page of a category or a search, with the business areas its shops are in (the filter's choices).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Listing {
    /// The page.
    pub page: Page<ShopSummary>,
    /// The areas to narrow to.
    pub areas: Vec<String>,
}

/// A shop's score as people read it ("4.5"), or that it has no review yet: a score before the first
/// review would be the type's mean, not the shop's.
pub fn score_text(locale: Locale, score: f64, reviews: i32) -> String {
    if reviews == 0 {
        td_string!(locale, catalog.no_reviews_yet).to_string()
    } else {
        td_string!(locale, catalog.score_reviews, score = format!("{score:.1}"), reviews = reviews)
    }
}

/// Parses a 1-based page number from a URL; garbage or 0 means page 1, huge values are capped.
pub fn page_from_query(s: Option<&str>) -> u32 {
    s.and_then(|p| p.parse::<u32>().ok()).filter(|p| *p >= 1).unwrap_or(1).min(MAX_PAGES)
}

/// A voucher as the shop page lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// Whether a buyer solves the slider puzzle before grabbing (flash sales).
    pub human_check: bool,
    /// Days a bought coupon can be used, from payment (unused after that, it is refunded).
    #[serde(default = "default_valid_days")]
    pub valid_days: i32,
}

/// What a voucher cached before validity existed is read as: the schema's default.
fn default_valid_days() -> i32 {
    crate::shared::money::DEFAULT_VALID_DAYS
}

/// The shop form as the browser sends it (inputs named `form[name]`, …): raw text, parsed into [`ShopEdit`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShopForm {
    /// Name.
    pub name: String,
    /// Street address.
    pub address: String,
    /// Longitude, degrees.
    pub longitude: String,
    /// Latitude, degrees.
    pub latitude: String,
    /// Average price per person, yuan.
    pub avg_price: String,
    /// Monday's opening hours ("10:00-14:00, 17:00-22:00"; empty when closed).
    pub hours_mon: String,
    /// Tuesday's.
    pub hours_tue: String,
    /// Wednesday's.
    pub hours_wed: String,
    /// Thursday's.
    pub hours_thu: String,
    /// Friday's.
    pub hours_fri: String,
    /// Saturday's.
    pub hours_sat: String,
    /// Sunday's.
    pub hours_sun: String,
    /// Image addresses, one per line.
    pub images: String,
}

impl ShopForm {
    /// The form's names, each reported against by [`ShopEdit::try_from`] (the page shows them inline).
    pub const FIELDS: [&'static str; 13] = [
        "name",
        "address",
        "longitude",
        "latitude",
        "avg_price",
        DAY_FIELDS[0],
        DAY_FIELDS[1],
        DAY_FIELDS[2],
        DAY_FIELDS[3],
        DAY_FIELDS[4],
        DAY_FIELDS[5],
        DAY_FIELDS[6],
        "images",
    ];

    /// The seven days' hours, Monday first.
    pub fn days(&self) -> [&str; 7] {
        [
            &self.hours_mon,
            &self.hours_tue,
            &self.hours_wed,
            &self.hours_thu,
            &self.hours_fri,
            &self.hours_sat,
            &self.hours_sun,
        ]
    }

    /// The form with the same hours every day (what a shop open daily would type seven times).
    pub fn every_day(mut self, hours: &str) -> Self {
        for day in [
            &mut self.hours_mon,
            &mut self.hours_tue,
            &mut self.hours_wed,
            &mut self.hours_thu,
            &mut self.hours_fri,
            &mut self.hours_sat,
            &mut self.hours_sun,
        ] {
            *day = hours.to_string();
        }
        self
    }
}

/// A merchant's edit of a shop, parsed and checked.
#[derive(Debug, Clone, PartialEq)]
pub struct ShopEdit {
    /// Name, 1–64 characters.
    pub name: String,
    /// Address, 4–128 characters.
    pub address: String,
    /// Where the shop is.
    pub at: GeoPoint,
    /// Average price, fen.
    pub avg_price_cents: i64,
    /// Opening hours, week by week.
    pub hours: WeeklyHours,
    /// Image URLs (one per line in the form), up to 9.
    pub images: Vec<String>,
}

impl TryFrom<ShopForm> for ShopEdit {
    type Error = AppError;

    /// Parses the form; each problem names its field.
    fn try_from(form: ShopForm) -> Result<Self, AppError> {
        let line = |min, max| TextRule { min, max, multiline: false };
        let locale = crate::shared::i18n::locale();
        let name_len = td_string!(locale, catalog.err_name_len, min = 1, max = 64);
        let name = FreeText::parse("name", &form.name, line(1, 64), &name_len)?;
        let address_len = td_string!(locale, catalog.err_address_len, min = 4, max = 128);
        let address = FreeText::parse("address", &form.address, line(4, 128), &address_len)?;
        let at = GeoPoint::parse_fields(("longitude", &form.longitude), ("latitude", &form.latitude))?;
        let price: f64 = form
            .avg_price
            .trim()
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite() && (0.0..=100_000.0).contains(v))
            .ok_or_else(|| AppError::invalid("avg_price", td_string!(locale, catalog.err_avg_price, max = 100_000)))?;
        let hours = WeeklyHours::parse(form.days())?;
        let images = crate::shared::text::image_list("images", &form.images)?;
        Ok(Self {
            name: name.into_string(),
            address: address.into_string(),
            at,
            avg_price_cents: (price * 100.0).round() as i64,
            hours,
            images,
        })
    }
}

/// A merchant's normal coupon form as the browser sends it (inputs named `form[title]`, …).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CouponForm {
    /// Title.
    pub title: String,
    /// Usage rules.
    pub rules: String,
    /// Price, yuan.
    pub pay: String,
    /// Face value, yuan.
    pub actual: String,
    /// Last day it can be bought, `YYYY-MM-DD` business time (empty: no end).
    pub until: String,
    /// Days a bought coupon can be used, one of `shared::money::VALIDITY_DAYS` (empty: 30).
    #[serde(default)]
    pub valid_days: String,
}

impl CouponForm {
    /// The form's names, each reported against by [`NewCoupon::try_from`].
    pub const FIELDS: [&'static str; 6] = ["title", "rules", "pay", "actual", "until", "valid_days"];
}

/// A normal coupon, parsed and checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewCoupon {
    /// Title, 1–64 characters.
    pub title: String,
    /// Rules, up to 200 characters.
    pub rules: String,
    /// Price, fen.
    pub pay_cents: i64,
    /// Face value, fen.
    pub actual_cents: i64,
    /// On sale until (exclusive), unix ms: the end of the last day.
    pub until_ms: Option<i64>,
    /// Days a bought coupon can be used.
    pub valid_days: i32,
}

impl TryFrom<CouponForm> for NewCoupon {
    type Error = AppError;

    fn try_from(form: CouponForm) -> Result<Self, AppError> {
        let terms = crate::shared::money::CouponTerms::parse(&form.title, &form.rules, &form.pay, &form.actual)?;
        let until_ms = match form.until.trim() {
            "" => None,
            raw => {
                let day = crate::shared::clock::parse_day(raw).ok_or_else(|| {
                    AppError::invalid("until", td_string!(crate::shared::i18n::locale(), catalog.err_until_date))
                })?;
                Some(day.next_day().map(crate::shared::clock::day_start_ms).unwrap_or(i64::MAX))
            }
        };
        let valid_days = crate::shared::money::parse_valid_days("valid_days", &form.valid_days)?;
        Ok(Self {
            title: terms.title,
            rules: terms.rules,
            pay_cents: terms.pay_cents,
            actual_cents: terms.actual_cents,
            until_ms,
            valid_days,
        })
    }
}

/// A normal coupon as its merchant manages it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Coupon {
    /// Primary key.
    pub id: i64,
    /// Title.
    pub title: String,
    /// Rules.
    pub rules: String,
    /// Price, fen.
    pub pay_value_cents: i64,
    /// Face value, fen.
    pub actual_value_cents: i64,
    /// On sale (false: paused).
    pub on_sale: bool,
    /// On sale until (exclusive), unix ms.
    pub until_ms: Option<i64>,
    /// Days a bought coupon can be used.
    pub valid_days: i32,
    /// Orders paid or used.
    pub sold: i64,
}

impl Coupon {
    /// The form filled with this coupon, for editing it.
    pub fn form(&self) -> CouponForm {
        CouponForm {
            title: self.title.clone(),
            rules: self.rules.clone(),
            pay: crate::shared::money::yuan_amount(self.pay_value_cents),
            actual: crate::shared::money::yuan_amount(self.actual_value_cents),
            // The stored end is the start of the day after the last one.
            until: self
                .until_ms
                .map(|ms| crate::shared::clock::iso_day(crate::shared::clock::date_of(ms - 1)))
                .unwrap_or_default(),
            valid_days: self.valid_days.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_read_from_the_url_and_ignore_what_the_lists_do_not_offer() {
        let q = |area: &str, price: &str, rating: &str| ShopFilter {
            area: area.into(),
            price: price.into(),
            rating: rating.into(),
            ..ShopFilter::default()
        };
        let f = q("湖滨", "50-100", "4.5");
        assert_eq!((f.area(), f.price_range(), f.min_score()), (Some("湖滨"), (Some(5_000), Some(10_000)), Some(4.5)));
        assert_eq!(f.as_query(), "&area=%E6%B9%96%E6%BB%A8&price=50-100&rating=4.5");
        let any = q(" ", "cheap", "5");
        assert_eq!((any.area(), any.price_range(), any.min_score()), (None, (None, None), None));
        assert_eq!(q("", "0-50", "").price_range(), (None, Some(5_000)));
        assert_eq!(ShopFilter::default().as_query(), "");
        let query = |pairs: &'static [(&'static str, &'static str)]| {
            ShopFilter::from_query(|k| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string()))
        };
        let here = query(&[("open", "1"), ("lon", "120.1645"), ("lat", "30.2565")]);
        assert!(here.open && here.has_place());
        assert_eq!(here.as_query(), "&open=1&lon=120.164500&lat=30.256500");
        // A place that is not one narrows and measures nothing, as a stale link should.
        let nowhere = query(&[("open", "yes"), ("lon", "500"), ("lat", "30")]);
        assert!(!nowhere.open && !nowhere.has_place());
        // Only what the lists offer narrows the shops; an area or a place says where, not what.
        assert!(f.narrows_shops() && here.narrows_shops() && q("", "0-50", "").narrows_shops());
        assert!(!any.narrows_shops() && !q("湖滨", "", "").narrows_shops() && !nowhere.narrows_shops());
        assert_eq!(f.narrowing_fields(), [("price", "50-100".to_string()), ("rating", "4.5".to_string())]);
        assert_eq!(here.narrowing_fields(), [("open", "1".to_string())]);
        assert!(ShopFilter::default().narrowing_fields().is_empty());
    }

    #[test]
    fn sort_and_page_parse_leniently() {
        assert_eq!(ShopSort::from_query(Some("price_desc")), ShopSort::PriceDesc);
        assert_eq!(ShopSort::from_query(Some("bogus")), ShopSort::Score);
        assert_eq!(ShopSort::from_query(Some("relevance")), ShopSort::Score, "a category has no words to match");
        assert_eq!(ShopSort::for_search(None), ShopSort::Relevance);
        assert_eq!(ShopSort::for_search(Some("distance")), ShopSort::Distance);
        assert_eq!(page_from_query(Some("3")), 3);
        assert_eq!(page_from_query(Some("0")), 1);
        assert_eq!(page_from_query(Some("-2")), 1);
        assert_eq!(page_from_query(None), 1);
    }

    fn form(name: &str, lon: &str, lat: &str, price: &str, images: &str) -> ShopForm {
        ShopForm {
            name: name.into(),
            address: "杭州市延安路1号".into(),
            longitude: lon.into(),
            latitude: lat.into(),
            avg_price: price.into(),
            images: images.into(),
            ..ShopForm::default()
        }
        .every_day("10:00-22:00")
    }

    #[test]
    fn edits_are_validated_field_by_field() {
        let ok = ShopEdit::try_from(form("新名字", "120.16", "30.25", "88.5", "/images/a.svg\n\n/uploads/b.png"))
            .expect("valid");
        assert_eq!(ok.avg_price_cents, 8850);
        assert_eq!(ok.at, GeoPoint { lon: 120.16, lat: 30.25 });
        assert_eq!(ok.images.len(), 2);
        let field = |f: ShopForm| match ShopEdit::try_from(f).expect_err("invalid") {
            AppError::Validation { field, .. } => field,
            other => panic!("{other:?}"),
        };
        assert_eq!(field(form("", "120", "30", "1", "")), "name");
        assert_eq!(field(form("x", "200", "30", "1", "")), "longitude");
        assert_eq!(field(form("x", "120", "89", "1", "")), "latitude");
        assert_eq!(field(form("x", "120", "30", "-1", "")), "avg_price");
        assert_eq!(field(form("x", "120", "30", "1", "javascript:x")), "images");
        assert_eq!(field(form("x", "120", "30", "1", "/api/auth/logout")), "images", "not an image of ours");
        let closed_on_wednesday = ShopForm { hours_wed: "休息".into(), ..form("x", "120", "30", "1", "") };
        assert!(ShopEdit::try_from(closed_on_wednesday).expect("valid").hours.day_text(2, None).is_empty());
        assert_eq!(field(ShopForm { hours_fri: "10:00-25:00".into(), ..form("x", "120", "30", "1", "") }), "hours_fri");
    }

    #[test]
    fn a_coupon_form_round_trips_and_checks_each_field() {
        let form = CouponForm {
            title: "¥50 代金券".into(),
            rules: "每桌限用一张".into(),
            // Canonical amounts (what the edit form shows back): two decimals unless whole.
            pay: "39.90".into(),
            actual: "50".into(),
            until: "2026-12-31".into(),
            valid_days: "90".into(),
        };
        let c = NewCoupon::try_from(form.clone()).unwrap();
        assert_eq!((c.pay_cents, c.actual_cents), (3990, 5000));
        let stored = Coupon {
            id: 1,
            title: c.title,
            rules: c.rules,
            pay_value_cents: c.pay_cents,
            actual_value_cents: c.actual_cents,
            on_sale: true,
            until_ms: c.until_ms,
            valid_days: c.valid_days,
            sold: 0,
        };
        assert_eq!(stored.form(), form, "editing shows what was typed");
        let field = |f: CouponForm| NewCoupon::try_from(f).unwrap_err();
        assert!(field(CouponForm { title: "".into(), ..form.clone() }).field_message("title").is_some());
        assert!(field(CouponForm { actual: "10".into(), ..form.clone() }).field_message("actual").is_some());
        assert!(field(CouponForm { until: "31/12/2026".into(), ..form.clone() }).field_message("until").is_some());
        assert!(field(CouponForm { valid_days: "31".into(), ..form.clone() }).field_message("valid_days").is_some());
        assert_eq!(NewCoupon::try_from(CouponForm { valid_days: "".into(), ..form.clone() }).unwrap().valid_days, 30);
        assert_eq!(NewCoupon::try_from(CouponForm { until: " ".into(), ..form }).unwrap().until_ms, None);
    }
}
